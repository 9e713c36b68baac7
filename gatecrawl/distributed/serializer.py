"""JSON request serializer for scrapy-redis (``SCHEDULER_SERIALIZER = "gatecrawl.distributed.serializer"``).

scrapy-redis pickles requests by default, so anyone who can write to Redis could run code in
every worker. This module replaces pickle: ``dumps`` turns the dict from
``request.to_dict(spider=...)`` into JSON text, ``loads`` turns bytes read from Redis back into
that dict (``scrapy.utils.request.request_from_dict`` builds the request) and nothing read from
Redis is ever unpickled or imported freely.

What ``loads`` accepts (anything else raises :class:`RejectedPayload`, a ``ValueError``):

- UTF-8 JSON of the envelope ``{"gatecrawl": 1, "request": {...}}``;
- a request whose ``url`` is an absolute ``http``/``https`` URL and whose ``method`` is a token;
- ``callback``/``errback`` either absent or a public method name (no leading ``_``);
- a request class (``_class``) from a short allowlist of Scrapy's own classes.

Values JSON lacks are tagged: ``{"$b": base64}`` for bytes, ``{"$d": [[key, value], ...]}`` for
a dict whose keys are not all plain strings (headers have bytes keys) or start with ``$``.
Tuples become lists.

Meta values that only live in one process (scrapy-playwright's page, callbacks, PageMethod
objects, context kwargs, and keys starting with ``_``) are left out: the browser middleware
sets them again on the worker that renders. Any other value that is not JSON data raises
``TypeError`` in ``dumps``; the scheduler counts and logs it.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any
from urllib.parse import urlsplit

__all__ = ["RejectedPayload", "dumps", "loads", "ENVELOPE_VERSION", "ALLOWED_REQUEST_CLASSES"]

ENVELOPE_VERSION = 1

ALLOWED_REQUEST_CLASSES = frozenset(
    {
        "scrapy.http.request.Request",
        "scrapy.http.Request",
        "scrapy.Request",
        "scrapy.http.request.form.FormRequest",
        "scrapy.http.request.json_request.JsonRequest",
    }
)

#: Meta keys that are process-local; the render middleware sets them again where the page renders.
PROCESS_LOCAL_META = frozenset(
    {
        "playwright_page",
        "playwright_page_init_callback",
        "playwright_page_methods",
        "playwright_include_page",
        "playwright_context_kwargs",
        "playwright_page_event_handlers",
        "download_slot",
        "download_latency",
    }
)

_METHOD = re.compile(r"^[A-Z]{1,16}$")
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,99}$")


class RejectedPayload(ValueError):
    """A payload read from Redis that is not a gatecrawl JSON request (e.g. a pickle)."""


# -- encoding ---------------------------------------------------------------------------


def _enc(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"$b": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, (list, tuple)):
        return [_enc(v) for v in value]
    if isinstance(value, dict):
        if all(isinstance(k, str) and not k.startswith("$") for k in value):
            return {k: _enc(v) for k, v in value.items()}
        return {"$d": [[_enc(k), _enc(v)] for k, v in value.items()]}
    raise TypeError(f"not JSON data: {type(value).__name__}")


def _dec(value: Any) -> Any:
    if isinstance(value, list):
        return [_dec(v) for v in value]
    if isinstance(value, dict):
        if len(value) == 1 and "$b" in value:
            raw = value["$b"]
            if not isinstance(raw, str):
                raise RejectedPayload("bad $b value")
            return base64.b64decode(raw.encode("ascii"), validate=True)
        if len(value) == 1 and "$d" in value:
            pairs = value["$d"]
            if not isinstance(pairs, list) or not all(isinstance(p, list) and len(p) == 2 for p in pairs):
                raise RejectedPayload("bad $d value")
            out = {}
            for k, v in pairs:
                k = _dec(k)
                if isinstance(k, (list, dict)):
                    raise RejectedPayload("unhashable $d key")
                out[k] = _dec(v)
            return out
        return {k: _dec(v) for k, v in value.items()}
    return value


def dumps(obj: dict[str, Any]) -> str:
    """JSON text for a request dict (from ``request.to_dict(spider=...)``)."""
    request = dict(obj)
    meta = request.get("meta") or {}
    request["meta"] = {k: v for k, v in meta.items() if k not in PROCESS_LOCAL_META and not k.startswith("_")}
    return json.dumps({"gatecrawl": ENVELOPE_VERSION, "request": _enc(request)}, separators=(",", ":"), sort_keys=True)


# -- decoding ---------------------------------------------------------------------------


def loads(data: bytes | str) -> dict[str, Any]:
    """The request dict in ``data``; :class:`RejectedPayload` for anything else."""
    if isinstance(data, (bytes, bytearray)):
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError:
            raise RejectedPayload("not UTF-8 text (a pickle or other binary payload?)") from None
    if not isinstance(data, str):
        raise RejectedPayload(f"unexpected payload type {type(data).__name__}")
    try:
        envelope = json.loads(data)
    except (ValueError, RecursionError):
        raise RejectedPayload("not JSON") from None
    if not isinstance(envelope, dict) or envelope.get("gatecrawl") != ENVELOPE_VERSION or not isinstance(envelope.get("request"), dict):
        raise RejectedPayload("not a gatecrawl request envelope")
    try:
        request = _dec(envelope["request"])
    except (ValueError, TypeError, RecursionError) as exc:
        raise RejectedPayload(f"bad value encoding: {exc}") from None
    _validate(request)
    return request


def _validate(request: dict[str, Any]) -> None:
    url = request.get("url")
    if not isinstance(url, str):
        raise RejectedPayload("request url missing")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise RejectedPayload(f"request url is not an absolute http(s) URL: {url[:200]!r}")
    method = request.get("method", "GET")
    if not isinstance(method, str) or not _METHOD.match(method):
        raise RejectedPayload("bad request method")
    for key in ("callback", "errback"):
        name = request.get(key)
        if name is not None and (not isinstance(name, str) or not _NAME.match(name)):
            raise RejectedPayload(f"bad {key} name")
    cls = request.get("_class")
    if cls is not None and cls not in ALLOWED_REQUEST_CLASSES:
        raise RejectedPayload(f"request class not allowed: {str(cls)[:200]!r}")
    if not isinstance(request.get("meta", {}), dict):
        raise RejectedPayload("meta is not an object")
    if not isinstance(request.get("headers", {}), dict):
        raise RejectedPayload("headers is not an object")
    if "body" in request and not isinstance(request["body"], (bytes, str)):
        raise RejectedPayload("body is not bytes")
    if "priority" in request and (not isinstance(request["priority"], int) or isinstance(request["priority"], bool)):
        raise RejectedPayload("priority is not an integer")
