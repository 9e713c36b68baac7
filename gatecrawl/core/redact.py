"""One redaction function family, applied before anything reaches a sink (packets, logs, stats).

Secrets are replaced by ``[REDACTED]``:

- credential headers (``Cookie``, ``Set-Cookie``, ``Authorization``, ``Proxy-Authorization``,
  ``X-Api-Key`` and any header or field whose name has a segment such as ``token``, ``secret``,
  ``password``, ``api-key``, ``access-key``, ``credential``, ``signature``, ``session-id``);
- the whole ``user:password@`` part of URLs (proxy URLs included: the user name of a proxy
  account is often a secret too);
- secret query (and fragment) parameters: ``token``, ``key``, ``signature``, ``access_token``,
  ``X-Amz-Signature`` ... (same name rule, plus a few short names such as ``key``, ``sig``, ``code``);
- in free text (log lines, error messages, ``repr`` of settings): URLs as above, ``Bearer``/``Basic``
  credentials, ``Name: value`` header lines, ``'name': 'value'`` pairs and ``name=value`` pairs
  whose name is secret.

Every function is idempotent: redacting redacted text changes nothing.
"""

from __future__ import annotations

import re
from typing import Any, Mapping
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

__all__ = [
    "REDACTED",
    "SECRET_HEADERS",
    "is_secret_name",
    "redact_headers",
    "redact_url",
    "redact_text",
    "redact_obj",
]

REDACTED = "[REDACTED]"
SECRET_HEADERS = frozenset(
    {
        "cookie",
        "set-cookie",
        "set-cookie2",
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "api-key",
        "apikey",
        "x-auth-token",
        "x-access-token",
        "x-csrf-token",
        "x-xsrf-token",
        "x-amz-security-token",
        "x-goog-api-key",
        "x-aws-ec2-metadata-token",
        "www-authenticate",
        "proxy-authenticate",
    }
)
# A name is secret when one of its segments (split on - _ . or space) is one of these.
_SECRET_SEGMENT = (
    r"token|secret|password|passwd|passphrase|pwd|api[-_]?key|apikey|access[-_]?key(?:[-_]?id)?|"
    r"private[-_]?key|credentials?|signature|cookie|authorization|authentication|session[-_]?id|sessionid|"
    r"csrf|xsrf|jwt|bearer"
)
_SECRET_NAME = re.compile(r"(?:^|[-_. ])(?:%s)(?:$|[-_. ])" % _SECRET_SEGMENT, re.I)
# Short query-parameter names that are secrets only as a whole name.
_SECRET_PARAM_EXACT = frozenset(
    {"key", "sig", "code", "auth", "sid", "session", "pass", "pw", "hash", "otp", "x-amz-signature", "x-amz-credential"}
)

_URL_IN_TEXT = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s'\"<>]+")
_AUTH_SCHEME = re.compile(r"\b(Bearer|Basic|Digest|Token|Negotiate|NTLM)\s+(?!\[REDACTED\])[A-Za-z0-9._~+/=\-:]{4,}", re.I)
# Header names always redacted to the end of the line, wherever they appear in text.
_INLINE_HEADER = re.compile(
    r"(?i)\b((?:proxy-)?authorization|set-cookie2?|cookie|x-api-key)(\s*:\s*)(?!\s*\[REDACTED\])(?!\s*[\"'])([^\r\n]+)"
)
_NAME = r"[A-Za-z0-9_.\-]*?(?:%s)[A-Za-z0-9_.\-]*" % _SECRET_SEGMENT
# 'name': 'value'  /  "name": "value"  /  b'name': [b'value']  (reprs, JSON, dicts in log lines)
_QUOTED_PAIR = re.compile(
    r"(?i)(b?(['\"])(%s)\2\s*[:=]\s*\[?\s*b?)(['\"])((?:\\.|(?!\4).)*)(\4)" % _NAME,
)
# name=value / name: value (unquoted; env dumps, cookies, header lines, query-like text)
_BARE_PAIR = re.compile(r"(?i)(?<![A-Za-z0-9_.\-])(%s)(\s*[=:]\s*)(?!\s*\[REDACTED\])([^\s&;,'\"<>)\]}]+)" % _NAME)


def is_secret_name(name: str) -> bool:
    """True for header, field, setting or parameter names that carry secrets."""
    n = str(name).strip().lower()
    return n in SECRET_HEADERS or bool(_SECRET_NAME.search(n))


def _is_secret_param(name: str) -> bool:
    return name.strip().lower() in _SECRET_PARAM_EXACT or is_secret_name(name)


def redact_headers(headers: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (REDACTED if is_secret_name(str(k)) else v) for k, v in headers.items()}


def _redact_params(qs: str) -> str:
    if not qs or "=" not in qs:
        return qs
    pairs = parse_qsl(qs, keep_blank_values=True)
    if not any(_is_secret_param(k) and v != REDACTED for k, v in pairs):
        return qs
    return urlencode([(k, REDACTED if _is_secret_param(k) else v) for k, v in pairs], safe="[]/:")


def redact_url(url: str) -> str:
    """``url`` with userinfo and secret query/fragment parameters replaced."""
    try:
        parts = urlsplit(url)
        netloc = parts.netloc
    except ValueError:
        return _redact_free(url)
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        if userinfo != REDACTED:
            netloc = f"{REDACTED}@{host}"
    try:
        return urlunsplit((parts.scheme, netloc, parts.path, _redact_params(parts.query), _redact_params(parts.fragment)))
    except ValueError:
        return _redact_free(url)


def _redact_free(text: str) -> str:
    text = _AUTH_SCHEME.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    text = _INLINE_HEADER.sub(lambda m: m.group(1) + m.group(2) + REDACTED, text)
    text = _QUOTED_PAIR.sub(lambda m: m.group(1) + m.group(4) + (m.group(5) if m.group(5) == REDACTED else REDACTED) + m.group(6), text)
    text = _BARE_PAIR.sub(lambda m: m.group(1) + m.group(2) + REDACTED, text)
    return text


def redact_text(text: str) -> str:
    """Redact URLs with credentials or secret parameters, auth schemes and secret pairs in free text."""
    if not text:
        return text
    text = _URL_IN_TEXT.sub(lambda m: redact_url(m.group(0)), text)
    return _redact_free(text)


# Kept for callers of the first version.
redact_text_plain = _redact_free


def redact_obj(obj: Any) -> Any:
    """Recursively redact a JSON-like object: values under secret keys, URLs and free text."""
    if isinstance(obj, Mapping):
        return {k: (REDACTED if isinstance(k, str) and is_secret_name(k) else redact_obj(v)) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [redact_obj(x) for x in obj]
    if isinstance(obj, str):
        return redact_text(obj)
    return obj
