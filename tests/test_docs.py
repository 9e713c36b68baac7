"""The README documents every setting, drop reason and stats key family the code defines."""

from __future__ import annotations

import re

from crawlutil import ROOT
from gatecrawl.core.reasons import REASON_DOCS, Reason

README = (ROOT / "README.md").read_text("utf-8")


def test_every_gatecrawl_setting_is_documented():
    settings_src = (ROOT / "gatecrawl" / "settings.py").read_text("utf-8")
    names = sorted(set(re.findall(r"^(GATECRAWL_[A-Z0-9_]+)\s*=", settings_src, re.M)))
    assert names
    missing = [n for n in names if f"`{n}`" not in README]
    assert not missing, missing


def test_every_drop_reason_is_documented():
    assert set(REASON_DOCS) == {r.value for r in Reason}
    missing = [r.value for r in Reason if f"| `{r.value}` |" not in README]
    assert not missing, missing


def test_every_stats_key_used_in_code_is_documented():
    used = set()
    for path in (ROOT / "gatecrawl").rglob("*.py"):
        for m in re.finditer(r"[\"']gatecrawl/([a-z_]+(?:/[a-z_]+)*)(/\{|/[\"']|/\.\.\.)?", path.read_text("utf-8")):
            used.add((m.group(1), bool(m.group(2))))
    documented = re.findall(r"`gatecrawl/([a-z_/]+?)(/<[a-z_]+>)?`", README)
    exact = {d for d, ph in documented if not ph}
    families = {d for d, ph in documented if ph}
    missing = sorted(k for k, templated in used if (k not in families if templated else (k not in exact and not any(k.startswith(f + "/") for f in families))))
    assert not missing, missing


def test_every_meta_key_is_documented():
    from gatecrawl import meta

    keys = set(meta.ALL)
    for path in (ROOT / "gatecrawl").rglob("*.py"):
        keys |= set(re.findall(r"[\"'](gatecrawl_[a-z_]+)[\"']", path.read_text("utf-8")))
    missing = sorted(k for k in keys if f"`{k}`" not in README)
    assert not missing, missing
    table = README.split("### Meta keys", 1)[1].split("\n### ", 1)[0]
    assert set(re.findall(r"`(gatecrawl_[a-z_]+)`", table)) == set(meta.ALL)


def test_meta_keys_are_named_in_one_module():
    spelled = set()
    for path in (ROOT / "gatecrawl").rglob("*.py"):
        rel = path.relative_to(ROOT / "gatecrawl").as_posix()
        if rel != "meta.py" and re.search(r"[\"']gatecrawl_[a-z_]+[\"']", path.read_text("utf-8")):
            spelled.add(rel)
    assert not spelled, sorted(spelled)  # every module names gatecrawl.meta's constants


def test_readme_command_examples_name_spiders_that_exist():
    """Every `scrapy crawl/report NAME` in the README's shell examples names a packaged recipe
    (or a placeholder such as <site>/SITE): a copied example must not end in 'no spider'."""
    recipes = {p.stem for p in (ROOT / "recipes").glob("*.toml")}
    blocks = re.findall(r"```sh\n(.*?)```", README, re.S)
    assert blocks
    names = re.findall(r"\bscrapy (?:crawl|report) (\S+)", "\n".join(blocks))
    assert names
    wrong = sorted({n for n in names if n not in recipes and not n.startswith("<") and not n.isupper()})
    assert not wrong, wrong
