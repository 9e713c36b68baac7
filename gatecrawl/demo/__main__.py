"""Serve the demo site: ``python -m gatecrawl.demo [--port N]`` (``--port 0`` picks a free port).

Prints the base URL on the first line of stdout, then serves until interrupted.
"""

from __future__ import annotations

import argparse
import sys

from gatecrawl.demo import serve


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gatecrawl.demo", description=__doc__)
    parser.add_argument("--port", type=int, default=8750, help="TCP port on 127.0.0.1 (0: pick a free one)")
    args = parser.parse_args(argv)
    server = serve(args.port)
    print(server.base_url, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
