"""Spool, object identity, and the stores' shared "rewrite nothing unchanged" rule (no services)."""

from __future__ import annotations

import json
import os
import socket
import stat

import pytest

from gatecrawl.store import LocalStore, open_store
from gatecrawl.store.identity import identity_sha256
from gatecrawl.store.s3 import S3Store, spool_folder_name
from gatecrawl.store.spool import Spool, SpoolError


def _packet(**over):
    p = {"url_final": "https://e.test/a", "outcome": "kept", "run_id": "r1", "fetched_at": "2024-01-01T00:00:00Z",
         "latency_ms": 12, "conversion_ms": 3, "render": {"navigation_ms": 5, "polls": 3, "main_found": True},
         "markdown_sha256": "ab"}
    p.update(over)
    return json.dumps(p, sort_keys=True).encode()


def test_identity_ignores_per_run_fields_only():
    key = "demo/pages/x.json"
    a = identity_sha256(key, _packet())
    assert a == identity_sha256(key, _packet(run_id="r2", fetched_at="2025-01-01T00:00:00Z", latency_ms=99,
                                             conversion_ms=7, render={"navigation_ms": 9, "polls": 8, "main_found": True}))
    assert a != identity_sha256(key, _packet(markdown_sha256="cd"))
    assert a != identity_sha256(key, _packet(render={"navigation_ms": 5, "polls": 3, "main_found": False}))
    # A render's transport count and context name vary per run (issue 16); elsewhere they count.
    assert a == identity_sha256(key, _packet(render={"navigation_ms": 5, "polls": 3, "main_found": True, "bytes_received": 3044, "context": "gatecrawl:demo:1"}))
    assert a != identity_sha256(key, _packet(bytes_received=1))
    # Markdown and run manifests: identity is the bytes.
    assert identity_sha256("demo/pages/x.md", b"a") != identity_sha256("demo/pages/x.md", b"b")
    assert identity_sha256("demo/runs/r.json", _packet()) != identity_sha256("demo/runs/r.json", _packet(run_id="r2"))


def test_local_store_rewrites_nothing_unchanged(tmp_path):
    store = LocalStore(str(tmp_path))
    key = "demo/pages/x.json"
    assert store.put(key, _packet(), content_type="application/json") is True
    assert store.put(key, _packet(run_id="r2", latency_ms=50), content_type="application/json") is False
    assert store.get(key) == _packet()  # the first run's bytes stay
    assert store.put(key, _packet(markdown_sha256="zz"), content_type="application/json") is True
    assert store.counters() == {"put": 2, "unchanged": 1, "deleted": 0}
    store.delete(key)
    assert store.status(key) == "deleted" and store.get(key) is None


def test_spool_is_atomic_latest_wins_and_removal_is_guarded(tmp_path):
    spool = Spool(tmp_path)
    (tmp_path / ".tmp-crashed.entry").write_bytes(b"half")
    spool = Spool(tmp_path)  # a temp file of a crashed write is cleaned up
    assert not list(tmp_path.glob(".tmp-*"))
    e1 = spool.add("demo/pages/a.md", b"one", content_type="text/markdown", metadata={"m": "1"})
    assert spool.load(e1.name).data == b"one"
    e2 = spool.add("demo/pages/a.md", b"two", content_type="text/markdown")
    assert e2.name == e1.name and len(spool) == 1
    assert spool.remove(e1) is False  # replaced meanwhile: the newer entry must stay
    assert spool.load(e2.name).data == b"two"
    assert spool.remove(e2) is True and len(spool) == 0
    d = spool.add("demo/quarantine/a.json", op="delete")
    assert spool.load(d.name).op == "delete"


def test_spool_detects_damage(tmp_path):
    spool = Spool(tmp_path)
    e = spool.add("k/pages/a.md", b"payload")
    path = tmp_path / e.name
    path.write_bytes(path.read_bytes()[:-2])
    with pytest.raises(SpoolError):
        spool.load(e.name)


def test_spool_folder_is_per_store_uri_and_hides_credentials():
    a = spool_folder_name("s3://bucket/prefix")
    assert a != spool_folder_name("s3://bucket/other") != spool_folder_name("s3://other/prefix")
    assert spool_folder_name("s3://KEY:SECRET@bucket/prefix") == a
    assert "SECRET" not in a


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_s3_store_with_s3_down_keeps_everything_spooled(tmp_path):
    options = {
        "AWS_ENDPOINT_URL": f"http://127.0.0.1:{_dead_port()}",
        "AWS_ACCESS_KEY_ID": "k",
        "AWS_SECRET_ACCESS_KEY": "s",
        "AWS_REGION_NAME": "us-east-1",
        "GATECRAWL_SPOOL_DIR": str(tmp_path),
        "GATECRAWL_S3_MAX_ATTEMPTS": "1",
        "GATECRAWL_S3_TIMEOUT": "2",
    }
    store = open_store("s3://bucket/p", options)
    assert isinstance(store, S3Store)
    try:
        for i in range(5):
            store.put(f"demo/pages/{i}.md", b"x%d" % i, content_type="text/markdown")
        store.delete("demo/quarantine/0.json")
        assert store.flush(timeout=30) == 6
        assert store.status("demo/pages/0.md") == "pending"
        assert store.counters()["upload_failed"] >= 1
        assert "'s'" not in repr(store.config)
    finally:
        store.close()
    again = open_store("s3://bucket/p", options)
    try:
        assert again.pending() == 6  # a later process finds the leftovers
    finally:
        again.close()


def test_bad_options_fail_at_open(tmp_path):
    from gatecrawl.store import StoreError

    with pytest.raises(StoreError):
        open_store("s3://bucket/p", {"GATECRAWL_SPOOL_DIR": str(tmp_path), "GATECRAWL_EXPORT_THREADS": "zero"})
    with pytest.raises(StoreError):
        open_store("s3:///nobucket", {"GATECRAWL_SPOOL_DIR": str(tmp_path)})


def test_s3_config_reads_scrapy_aws_settings_and_hides_secrets(tmp_path):
    from gatecrawl.store.s3 import S3Config

    c = S3Config.from_options(
        "s3://bkt/some/prefix/",
        {"AWS_ACCESS_KEY_ID": "AKIAX", "AWS_SECRET_ACCESS_KEY": "TOPSECRET", "AWS_SESSION_TOKEN": "TOK",
         "AWS_ENDPOINT_URL": "http://127.0.0.1:9000", "AWS_REGION_NAME": "auto", "AWS_USE_SSL": "False",
         "AWS_VERIFY": "false", "GATECRAWL_SPOOL_DIR": str(tmp_path), "GATECRAWL_S3_MAX_ATTEMPTS": "7"},
    )
    assert (c.bucket, c.prefix, c.region, c.use_ssl, c.verify, c.max_attempts) == ("bkt", "some/prefix", "auto", False, False, 7)
    assert c.session_token == "TOK" and "TOPSECRET" not in repr(c) and "AKIAX" not in repr(c)
    # Scrapy-style credentials in the URI work too, and are never shown.
    c2 = S3Config.from_options("s3://AK:SK@bkt/p", {})
    assert (c2.access_key, c2.secret_key) == ("AK", "SK")
    store = S3Store("s3://AK:SK@bkt/p", {"GATECRAWL_SPOOL_DIR": str(tmp_path)})
    try:
        assert "SK" not in store.uri and "SK" not in str(store.spool_root)
    finally:
        store.close()


@pytest.mark.parametrize("umask, expected", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_local_store_files_follow_the_umask(tmp_path, umask, expected):
    """Output files get the modes the user's umask gives new files (they were always 0600,
    mkstemp's mode); the spool stays private."""
    old = os.umask(umask)
    try:
        store = LocalStore(f"file://{tmp_path / 'out'}")
        store.put("site/pages/a.md", b"# A\n", content_type="text/markdown")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "out" / "site" / "pages" / "a.md").stat().st_mode) == expected
