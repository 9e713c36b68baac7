"""``describe_drop``: one line for the packet's ``drop_detail`` from the validation detail."""

from __future__ import annotations

_DETAIL_KEY = {
    "bot_challenge": "bot_challenge",
    "login_wall": "login_wall",
    "soft_404": "soft_404",
    "error_page": "error_page",
    "parked_domain": "parked_domain",
    "cookie_wall": "cookie_wall",
    "age_gate": "age_gate",
    "no_results": "no_results",
    "shell_page": "shell_page",
    "gate_failed": "gate_failed",
    "extraction_empty": "length",
    "too_short": "length",
}
_FLAT_KEYS = {
    "http_error": ("http_status",),
    "canonical_mismatch": ("canonical",),
    "too_few_headings": ("heading_count", "min_headings"),
    "boilerplate_heavy": ("boilerplate_ratio", "max_boilerplate_ratio"),
    "missing_field": ("missing_fields",),
    "broken_structure": ("structure",),
}


def describe_drop(reason: str, detail: dict) -> str | None:
    """One line for ``drop_detail``: the drop reason's measured values and thresholds, as
    ``key=value`` pairs in a fixed order (the full detail is in ``validation_report.detail``)."""
    key = _DETAIL_KEY.get(reason)
    if key and isinstance(detail.get(key), dict):
        items = list(detail[key].items())
    else:
        items = [(k, detail[k]) for k in _FLAT_KEYS.get(reason, ()) if k in detail]
    if not items:
        return None
    parts = []
    for k, val in items:
        if isinstance(val, (list, tuple)):
            val = ",".join(str(x) for x in val)
        elif isinstance(val, dict) and "value" in val:
            val = f"{val['value']} (threshold {val.get('threshold')})"
        elif isinstance(val, dict):
            val = "{" + ", ".join(f"{a}={b}" for a, b in val.items()) + "}"
        parts.append(f"{k}={val}")
    return f"{reason}: " + "; ".join(parts)
