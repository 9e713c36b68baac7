"""Shared fixtures: the demo site on 127.0.0.1 (port 0), a crawl runner, the packet schema."""

from __future__ import annotations

import os

import pytest

# Test sites run on 127.0.0.1, which the egress policy refuses by default. Admit the loopback
# host (any port) for every crawl the suite starts; egress tests override this explicitly.
os.environ.setdefault("GATECRAWL_EGRESS_ALLOW", "127.0.0.1")

@pytest.fixture(scope="session")
def demo_server():
    from gatecrawl.demo import DemoServer

    server = DemoServer(port=0).start_in_thread()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def packet_validator():
    import jsonschema

    from gatecrawl.core.evidence import load_schema

    schema = load_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.fixture
def origin():
    """The "public" test origin on 127.0.0.3 (admitted by the tests' allow lists)."""
    from mockserver import MockServer

    s = MockServer("127.0.0.3").start()
    yield s
    s.stop()


@pytest.fixture
def canary():
    """An "internal" listener on 127.0.0.2 that must never be reached."""
    from mockserver import MockServer

    s = MockServer("127.0.0.2").start()
    yield s
    s.stop()


@pytest.fixture
def canary_lo():
    """An "internal" listener on 127.0.0.1."""
    from mockserver import MockServer

    s = MockServer("127.0.0.1").start()
    yield s
    s.stop()


@pytest.fixture
def recipes_dir(tmp_path):
    """A folder with the ``probe`` test recipe (start URLs come from -a start_url)."""
    from crawlutil import PROBE_RECIPE

    d = tmp_path / "recipes"
    d.mkdir()
    (d / "probe.toml").write_text(PROBE_RECIPE)
    return d
