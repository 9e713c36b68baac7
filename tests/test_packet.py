"""The evidence packet is one typed record (issue 17): its fields are the schema's, its per-run
fields are the ones the stored identity leaves out, and it becomes JSON in one place."""

from __future__ import annotations

import json
from dataclasses import fields

import pytest

from gatecrawl.core.convert import convert
from gatecrawl.core.evidence import dumps, load_schema
from gatecrawl.core.packet import PER_RUN_FIELDS, STORE_KEY_FIELDS, EvidencePacket
from gatecrawl.store.identity import identity_sha256, stable_view

ARTICLE = (
    "<html><head><title>Packets</title></head><body><article><h1>Packets</h1>"
    + "<p>Every fetched page leaves one record of what was read and why it was kept. </p>" * 20
    + "</article></body></html>"
)


def test_fields_are_the_schema_properties():
    schema = load_schema()
    assert [f.name for f in fields(EvidencePacket)] and {f.name for f in fields(EvidencePacket)} == set(schema["properties"])


def test_convert_gives_a_typed_packet_whose_json_is_schema_valid(packet_validator):
    r = convert(ARTICLE, "http://127.0.0.1/a")
    assert isinstance(r.packet, EvidencePacket) and r.ok
    doc = r.evidence
    # Not stored yet: no store keys; no embedded data read: no "embedded".
    assert not set(STORE_KEY_FIELDS) & set(doc) and "embedded" not in doc
    assert not list(packet_validator.iter_errors(json.loads(dumps(r.packet))))
    assert dumps(r.packet) == dumps(doc)
    stored = r.packet.stored_as(markdown_key="s/pages/k.md", packet_key="s/pages/k.json")
    assert {k: stored.to_dict()[k] for k in STORE_KEY_FIELDS} == {"markdown_key": "s/pages/k.md", "packet_key": "s/pages/k.json"}
    quarantined = r.packet.stored_as(markdown_key=None, packet_key="s/quarantine/k.json").to_dict()
    assert quarantined["markdown_key"] is None and quarantined["packet_key"] == "s/quarantine/k.json"
    assert r.packet.packet_key is None  # stored_as() copies


def test_per_run_fields_are_what_the_identity_leaves_out():
    r = convert(ARTICLE, "http://127.0.0.1/a")
    top_level_volatile = set(r.evidence) - set(stable_view(r.evidence))
    assert PER_RUN_FIELDS == top_level_volatile == {"run_id", "fetched_at", "latency_ms", "render_elapsed_ms", "conversion_ms"}
    key = f"default/pages/{r.packet.url_key}.json"
    a = identity_sha256(key, dumps(r.packet))
    from dataclasses import replace

    later = replace(r.packet, run_id="another", fetched_at="2030-01-01T00:00:00Z", latency_ms=5, conversion_ms=9)
    assert identity_sha256(key, dumps(later)) == a
    assert identity_sha256(key, dumps(replace(r.packet, chars_out=1))) != a


def test_unknown_field_is_an_error():
    with pytest.raises(TypeError):
        EvidencePacket(schema_version="x", site="s", recipe={}, url_requested="u", url_final="u", url_key="k", colour="red")  # type: ignore[call-arg]


def test_every_field_is_documented():
    import ast
    import inspect

    import gatecrawl.core.packet as packet_mod

    cls = next(n for n in ast.parse(inspect.getsource(packet_mod)).body if isinstance(n, ast.ClassDef) and n.name == "EvidencePacket")
    undocumented = [
        n.target.id for i, n in enumerate(cls.body)
        if isinstance(n, ast.AnnAssign)
        and not (i + 1 < len(cls.body) and isinstance(cls.body[i + 1], ast.Expr) and isinstance(getattr(cls.body[i + 1], "value", None), ast.Constant))
    ]
    assert undocumented == []
