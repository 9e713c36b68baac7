"""One redaction function family, applied before anything reaches a sink (packets, logs, stats).

Secrets are replaced by ``[REDACTED]``: credential headers, user:password in URLs (proxy
URLs included), and secret query parameters.
"""

from __future__ import annotations

import re
from typing import Any, Mapping
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

__all__ = ["REDACTED", "SECRET_HEADERS", "redact_headers", "redact_url", "redact_text", "redact_obj"]

REDACTED = "[REDACTED]"
SECRET_HEADERS = frozenset(
    {
        "cookie",
        "set-cookie",
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "api-key",
        "x-auth-token",
        "x-access-token",
        "x-csrf-token",
        "x-xsrf-token",
        "x-amz-security-token",
        "x-goog-api-key",
    }
)
_SECRET_PARAM = re.compile(
    r"^(token|access_token|refresh_token|id_token|auth|key|api_key|apikey|secret|client_secret|password|passwd|pwd|"
    r"signature|sig|x-amz-signature|x-amz-credential|x-amz-security-token|session|sessionid|sid|code)$",
    re.I,
)
_URL_IN_TEXT = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s'\"<>]+")
_BEARER = re.compile(r"\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=\-]{6,}", re.I)
_KV_SECRET = re.compile(
    r"(?i)\b(token|access_token|refresh_token|api_key|apikey|secret|client_secret|password|passwd|signature|sig)=([^\s&'\"]+)"
)
_HEADER_LINE = re.compile(r"(?im)^(\s*(?:%s)\s*[:=]\s*)(.+)$" % "|".join(re.escape(h) for h in sorted(SECRET_HEADERS)))


def _is_secret_header(name: str) -> bool:
    n = name.lower()
    return n in SECRET_HEADERS or "token" in n or "secret" in n or n.endswith("-key")


def redact_headers(headers: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (REDACTED if _is_secret_header(str(k)) else v) for k, v in headers.items()}


def redact_url(url: str) -> str:
    try:
        parts = urlsplit(url)
    except ValueError:
        return redact_text_plain(url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        user = userinfo.split(":", 1)[0]
        netloc = f"{REDACTED}@{host}" if ":" not in userinfo else f"{user}:{REDACTED}@{host}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(_SECRET_PARAM.match(k) for k, _ in pairs):
            query = urlencode([(k, REDACTED if _SECRET_PARAM.match(k) else v) for k, v in pairs], safe="[]")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def redact_text_plain(text: str) -> str:
    text = _BEARER.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    text = _KV_SECRET.sub(lambda m: f"{m.group(1)}={REDACTED}", text)
    return _HEADER_LINE.sub(lambda m: m.group(1) + REDACTED, text)


def redact_text(text: str) -> str:
    """Redact URLs with credentials or secret parameters, auth schemes and header lines in free text."""
    text = _URL_IN_TEXT.sub(lambda m: redact_url(m.group(0)), text)
    return redact_text_plain(text)


def redact_obj(obj: Any) -> Any:
    """Recursively redact a JSON-like object: secret header keys, URLs and free text."""
    if isinstance(obj, Mapping):
        return {k: (REDACTED if isinstance(k, str) and _is_secret_header(k) else redact_obj(v)) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [redact_obj(x) for x in obj]
    if isinstance(obj, str):
        return redact_text(obj)
    return obj
