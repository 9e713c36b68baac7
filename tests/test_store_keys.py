"""The store's key layout lives in one module, and the store settings are read in one place
(issue 17): the modules that name keys re-export the same functions, and StoreConfig's
defaults are the project settings'."""

from __future__ import annotations

import re

from scrapy.settings import Settings

import gatecrawl.settings as project_settings
from gatecrawl.store import keys
from gatecrawl.store.config import StoreConfig


def test_every_key_of_a_site():
    assert keys.page_keys("s", "k") == {"markdown": "s/pages/k.md", "packet": "s/pages/k.json", "quarantine": "s/quarantine/k.json"}
    assert keys.run_manifest_key("s", "run 1/x") == "s/runs/run_1_x.json"
    assert keys.changes_key("s", "r") == "s/runs/changes/r.json"
    assert keys.report_keys("s", "r") == {"record": "s/runs/reports/r.record.json", "summary": "s/runs/reports/r.summary.json", "html": "s/runs/reports/r.html"}
    assert keys.crawl_key("s", "c:1") == "s/crawls/c_1.json"
    assert (keys.index_key("s"), keys.state_key("s"), keys.routing_key("s")) == ("s/index.jsonl", "s/recrawl.jsonl", "s/routing.json")


def test_the_modules_that_name_keys_use_the_layout_module():
    from gatecrawl import store
    from gatecrawl.core import routing
    from gatecrawl.report import crawl, record
    from gatecrawl.store import recrawl

    assert store.page_keys is keys.page_keys and routing.routing_key is keys.routing_key
    assert recrawl.state_key is keys.state_key and recrawl.changes_key is keys.changes_key
    assert record.report_keys is keys.report_keys and record.key_safe is keys.key_safe
    assert crawl.run_manifest_key is keys.run_manifest_key and crawl.crawl_key is keys.crawl_key


def test_store_config_from_settings():
    settings = Settings({k: getattr(project_settings, k) for k in dir(project_settings) if k.isupper()})
    cfg = StoreConfig.from_settings(settings)
    assert (cfg.uri, cfg.spool_dir, cfg.flush_timeout) == (project_settings.GATECRAWL_STORE_URI, project_settings.GATECRAWL_SPOOL_DIR, 300.0)
    empty = StoreConfig.from_settings(Settings({"GATECRAWL_STORE_URI": "file:///x", "AWS_REGION_NAME": "eu", "LOG_LEVEL": "INFO"}))
    assert (empty.spool_dir, empty.flush_timeout) == (".gatecrawl-spool", 300.0)
    assert empty.options["AWS_REGION_NAME"] == "eu" and "LOG_LEVEL" not in empty.options
    assert all(k.startswith(("AWS_", "GATECRAWL_")) for k in empty.options)
    assert StoreConfig.from_settings(settings, uri="s3://b/p").uri == "s3://b/p"


def test_store_defaults_are_written_once():
    """The spool folder's and the flush timeout's defaults: settings.py and store/config.py only."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "gatecrawl"
    where = {p.relative_to(root).as_posix() for p in root.rglob("*.py") if '".gatecrawl-spool"' in p.read_text("utf-8")}
    assert where == {"settings.py", "store/config.py"}
    # A default given where the setting is read (settings.get("GATECRAWL_EXPORT_FLUSH_TIMEOUT", 300.0)).
    flush_default = re.compile(r"GATECRAWL_EXPORT_FLUSH_TIMEOUT[\"']\)?\s*,\s*\d")
    assert not [p.name for p in root.rglob("*.py") if flush_default.search(p.read_text("utf-8"))]
