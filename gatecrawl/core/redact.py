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
from functools import lru_cache
from typing import Any, Mapping
from urllib.parse import unquote_plus, urlsplit, urlunsplit

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
    r"csrf|xsrf|jwt|bearer|jsessionid|phpsessid|aspsessionid"
)
_SECRET_NAME = re.compile(r"(?:^|[-_. ])(?:%s)(?:$|[-_. ])" % _SECRET_SEGMENT, re.I)
# Short query-parameter names that are secrets only as a whole name.
_SECRET_PARAM_EXACT = frozenset(
    {"key", "sig", "code", "auth", "sid", "session", "pass", "pw", "hash", "otp", "x-amz-signature", "x-amz-credential"}
)

# Linear in the input (issue 15, T33): no pattern may backtrack over unbounded input. Names and
# values are matched with possessive quantifiers, schemes are looked for behind each "://" within
# a bounded window, and each scan resumes after what it consumed.
_URL_TAIL = re.compile(r"://[^\s'\"<>]*+")
_SCHEME_BEFORE = re.compile(r"[a-zA-Z][a-zA-Z0-9+.\-]*+\Z")
_SCHEME_MAX = 32
_AUTH_SCHEME = re.compile(r"\b(Bearer|Basic|Digest|Token|Negotiate|NTLM)[ \t]++(?!\[REDACTED\])[A-Za-z0-9._~+/=\-:]{4,}+", re.I)
# Header names always redacted to the end of the line, wherever they appear in text.
_INLINE_HEADER = re.compile(r"(?i)\b((?:proxy-)?authorization|set-cookie2?|cookie|x-api-key)([ \t]*+:[ \t]*+)(?!\[REDACTED\])(?![\"'])([^\r\n]++)")
_SECRET_IN_NAME = re.compile(_SECRET_SEGMENT, re.I)
# 'name': 'value'  /  "name": "value"  /  b'name': [b'value']  (reprs, JSON, dicts in log lines):
# the name and the opening quote of the value; the value runs to its closing quote or the line's end.
_QUOTED_NAME = re.compile(r"b?(['\"])([A-Za-z0-9_.\-]++)\1[ \t]*+[:=][ \t]*+\[?[ \t]*+b?(['\"])")
_QUOTED_VALUE = {q: re.compile(r"(?:\\.|[^\\\r\n%s])*+" % q) for q in ("'", '"')}
# name=value / name: value (unquoted; env dumps, cookies, header lines, query-like text, ;jsessionid=):
# the name (a whole word: the lookbehind keeps the scan off the middle of words) and the separator;
# the value is matched from there only when the name is secret.
# (Common URL schemes are skipped at once: the URL pass handled them, and a URL-heavy text would
# otherwise stop the loop at every "https:".)
_BARE_NAME = re.compile(r"(?<![A-Za-z0-9_.\-])(?!(?:https?|ftp|wss?|s3|file)://)([A-Za-z0-9_.\-]++)[ \t]*+[=:][ \t]*+", re.I)
_BARE_VALUE = re.compile(r"(?!\[REDACTED\])[^\s&;,'\"<>)\]}]++")
# Cheap prefilters (substring tests on the lower-cased text) before any pattern runs.
_SECRET_WORDS = ("token", "secret", "pass", "pwd", "key", "credential", "signature", "cookie", "authori", "authenti",
                 "session", "sessid", "csrf", "xsrf", "jwt", "bearer")
_AUTH_WORDS = ("bearer", "basic", "digest", "token", "negotiate", "ntlm")
_HEADER_WORDS = ("authorization", "cookie", "x-api-key")
# The same word lists as one pattern each: a single scan of the text instead of one per word.
_AUTH_WORD = re.compile("|".join(map(re.escape, _AUTH_WORDS)))
_HEADER_WORD = re.compile("|".join(map(re.escape, _HEADER_WORDS)))
_SECRET_WORD = re.compile("|".join(map(re.escape, _SECRET_WORDS)))
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def is_secret_name(name: str) -> bool:
    """True for header, field, setting or parameter names that carry secrets (``camelCase`` names
    are split into segments: ``clientSecret``, ``AWSAccessKeyId``)."""
    raw = str(name).strip()
    if len(raw) > 256:  # not a name; free text is handled by redact_text
        return False
    n = raw.lower()
    return n in SECRET_HEADERS or bool(_SECRET_NAME.search(n)) or bool(_SECRET_NAME.search(_CAMEL.sub("-", raw).lower()))


@lru_cache(maxsize=4096)
def _is_secret_param(name: str) -> bool:
    return name.strip().lower() in _SECRET_PARAM_EXACT or is_secret_name(name)


def redact_headers(headers: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (REDACTED if is_secret_name(str(k)) else v) for k, v in headers.items()}


_PARAM = re.compile(r"(^|[&;])([^=&;#]*+)=([^&;#]*+)")


def _redact_params(qs: str) -> str:
    """Secret ``name=value`` parameters of a query or fragment get ``[REDACTED]`` values; the
    rest of the string is kept byte for byte."""
    if not qs or "=" not in qs:
        return qs

    def one(m: re.Match) -> str:
        name = m.group(2)
        if m.group(3) == REDACTED or not _is_secret_param(unquote_plus(name) if "%" in name or "+" in name else name):
            return m.group(0)
        return f"{m.group(1)}{name}={REDACTED}"

    return _PARAM.sub(one, qs)


def redact_url(url: str) -> str:
    """``url`` with userinfo, secret query/fragment parameters and secret ``name=value`` pairs
    (path parameters such as ``;jsessionid=``) replaced: as strong as :func:`redact_text`."""
    return _redact_free(_redact_url_parts(url))


def _redact_url_parts(url: str) -> str:
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


def _redact_quoted(text: str) -> str:
    if "'" not in text and '"' not in text:
        return text
    out: list[str] = []
    pos = 0
    while True:
        m = _QUOTED_NAME.search(text, pos)
        if m is None:
            break
        if not _secret_word(m.group(2)):
            # Not a secret name: go on just after the name's opening quote (the name's closing
            # quote may open the next pair).
            out.append(text[pos : m.start(1) + 1])
            pos = m.start(1) + 1
            continue
        v = _QUOTED_VALUE[m.group(3)].match(text, m.end())
        assert v is not None  # the value pattern matches the empty string
        out.append(text[pos : m.end()])
        out.append(v.group(0) if v.group(0) == REDACTED else REDACTED)
        pos = v.end()
    out.append(text[pos:])
    return "".join(out)


def _redact_free(text: str) -> str:
    low = text.lower()
    if _AUTH_WORD.search(low):
        text = _AUTH_SCHEME.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    if _HEADER_WORD.search(low):
        text = _INLINE_HEADER.sub(lambda m: m.group(1) + m.group(2) + REDACTED, text)
    if _SECRET_WORD.search(low):
        text = _redact_quoted(text)
        if "=" in text or ":" in text:
            text = _redact_bare(text)
    return text


@lru_cache(maxsize=4096)
def _secret_word(name: str) -> bool:
    """A name with a secret segment anywhere (``accessToken``, ``x_session_id``, ``jsessionid``)."""
    if len(name) > 256:  # no real name is this long: any secret word in it is enough (linear)
        low = name.lower()
        return any(w in low for w in _SECRET_WORDS)
    return _SECRET_IN_NAME.search(name) is not None


def _redact_bare(text: str) -> str:
    out: list[str] = []
    pos = 0
    search = _BARE_NAME.search
    while True:
        m = search(text, pos)
        if m is None:
            break
        end = m.end()
        if _secret_word(m.group(1)):
            v = _BARE_VALUE.match(text, end)
            if v is not None:
                out.append(text[pos:end])
                out.append(REDACTED)
                pos = v.end()
                continue
        out.append(text[pos:end])
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _redact_urls(text: str) -> str:
    if "://" not in text:
        return text
    out: list[str] = []
    pos = 0  # text before pos is written out already
    for m in _URL_TAIL.finditer(text):
        colon = m.start()
        if colon < pos:
            continue
        s = _SCHEME_BEFORE.search(text, max(pos, colon - _SCHEME_MAX), colon)
        if s is None:
            continue
        out.append(text[pos : s.start()])
        out.append(_redact_url_parts(text[s.start() : m.end()]))
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)


def redact_text(text: str) -> str:
    """Redact URLs with credentials or secret parameters, auth schemes and secret pairs in free text."""
    if not text:
        return text
    return _redact_free(_redact_urls(text))


# Kept for callers of the first version.
redact_text_plain = _redact_free


@lru_cache(maxsize=1)
def _own_vocabulary() -> frozenset:
    """gatecrawl's own names that look like secret names but are not (``cookie_wall``, a drop
    reason, used as a key of per-reason counts)."""
    from gatecrawl.core.reasons import Reason

    return frozenset(str(r) for r in Reason)


def _secret_key(k: Any) -> bool:
    return isinstance(k, str) and _secret_key_name(k)


@lru_cache(maxsize=4096)
def _secret_key_name(k: str) -> bool:
    # Cached: a packet's keys are the same few hundred names packet after packet.
    return is_secret_name(k) and k not in _own_vocabulary()


def redact_obj(obj: Any) -> Any:
    """Recursively redact a JSON-like object: values under secret keys, URLs and free text."""
    if isinstance(obj, str):  # the common cases first: the Mapping test is a slow ABC check
        return redact_text(obj)
    if isinstance(obj, (dict, Mapping)):
        return {k: (REDACTED if _secret_key(k) else redact_obj(v)) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [redact_obj(x) for x in obj]
    return obj
