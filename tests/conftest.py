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
