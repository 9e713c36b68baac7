"""The ``gatecrawl`` console command (installed with the package), for use outside a Scrapy
project folder; the ``scrapy`` commands stay for project users.

    gatecrawl convert FILE|URL [--url URL] [--recipe NAME] [--evidence]
    gatecrawl crawl RECIPE.toml|SPIDER [-a name=value ...] [-s NAME=value ...] [-O out.jsonl]
    gatecrawl report SITE [--store URI] [...]
    gatecrawl list

Each runs the ``scrapy`` command of the same name with gatecrawl's settings module
(``SCRAPY_SETTINGS_MODULE=gatecrawl.settings``), so options, output, errors and exit statuses are
the same. ``gatecrawl crawl path/to/site.toml`` adds the file's folder to
``GATECRAWL_RECIPES_DIRS`` and crawls the spider named by the file's stem. Relative paths
(``GATECRAWL_STORE_URI=file://./output`` by default, the spool) are relative to the current folder.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

COMMANDS = ("convert", "crawl", "report", "list")
USAGE = (
    "usage: gatecrawl {convert,crawl,report,list} ...\n"
    "  gatecrawl convert FILE|URL [--url URL] [--recipe NAME] [--evidence]\n"
    "  gatecrawl crawl RECIPE.toml|SPIDER [-a name=value] [-s NAME=value] [-O out.jsonl]\n"
    "  gatecrawl report SITE [--store URI] [--run ID] [--html FILE] [--json FILE]\n"
    "  gatecrawl list\n"
    "Each takes the options of the scrapy command of the same name (gatecrawl COMMAND -h)."
)


def _recipe_file(argv: list[str]) -> list[str]:
    """``crawl path/site.toml ...`` -> ``crawl site ...`` with the folder added to the recipe dirs."""
    takes_value = ("-a", "-s", "-o", "-O", "-t", "-L", "--output", "--overwrite-output", "--output-format", "--loglevel", "--logfile", "--set")
    for i, arg in enumerate(argv[1:], start=1):
        if arg.startswith("-") or argv[i - 1] in takes_value:
            continue
        path = Path(arg)
        if path.suffix == ".toml":
            if not path.is_file():
                print(f"gatecrawl: error: no such recipe file: {arg}", file=sys.stderr)
                sys.exit(2)
            folder = str(path.resolve().parent)
            existing = os.environ.get("GATECRAWL_RECIPES_DIRS", "")
            os.environ["GATECRAWL_RECIPES_DIRS"] = os.pathsep.join(x for x in (folder, existing) if x)
            return argv[:i] + [path.stem] + argv[i + 1 :]
        return argv
    return argv


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(USAGE)
        sys.exit(0 if args else 2)
    if args[0] not in COMMANDS:
        print(f"gatecrawl: error: unknown command {args[0]!r}\n{USAGE}", file=sys.stderr)
        sys.exit(2)
    if args[0] == "crawl":
        args = _recipe_file(args)
    # Outside a project folder there is no scrapy.cfg: name the settings module instead.
    if not os.environ.get("SCRAPY_SETTINGS_MODULE"):
        os.environ["SCRAPY_SETTINGS_MODULE"] = "gatecrawl.settings"
    from scrapy.cmdline import execute

    execute(["gatecrawl", *args])


if __name__ == "__main__":
    main()
