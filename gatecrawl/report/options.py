"""Report options (unit costs, currency, drift thresholds, history length) and the report's error."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

# Illustrative unit costs (replace them with your own measured figures): a plain fetch, one
# second of browser rendering, one PDF page parsed.
DEFAULT_UNIT_COSTS = {"fetch": 0.0001, "render_second": 0.001, "pdf_page": 0.0005}
COST_FORMULA = (
    "per_1000_clean_pages = 1000 * (fetches * fetch + render_seconds * render_second"
    " + pdf_pages * pdf_page) / kept"
)


class ReportError(LookupError):
    """No such site or run in the store."""


@dataclass(frozen=True)
class ReportOptions:
    unit_costs: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_UNIT_COSTS))
    currency: str = "USD"
    drift_escalation: float = 0.02
    drift_drop: float = 0.02
    history: int = 20

    @classmethod
    def from_settings(cls, settings: Any) -> "ReportOptions":
        """From any mapping with ``.get(name, default)`` (Scrapy settings included)."""

        def num(name: str, default: float) -> float:
            v = settings.get(name, default)
            return float(default if v is None or v == "" else v)

        return cls(
            unit_costs={
                "fetch": num("GATECRAWL_COST_FETCH", DEFAULT_UNIT_COSTS["fetch"]),
                "render_second": num("GATECRAWL_COST_RENDER_SECOND", DEFAULT_UNIT_COSTS["render_second"]),
                "pdf_page": num("GATECRAWL_COST_PDF_PAGE", DEFAULT_UNIT_COSTS["pdf_page"]),
            },
            currency=str(settings.get("GATECRAWL_COST_CURRENCY", "USD") or "USD"),
            drift_escalation=num("GATECRAWL_REPORT_DRIFT_ESCALATION", 0.02),
            drift_drop=num("GATECRAWL_REPORT_DRIFT_DROP", 0.02),
            history=int(num("GATECRAWL_REPORT_HISTORY", 20)),
        )


# -- small statistics ---------------------------------------------------------------------
