from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Page:
    kind: str
    slug: str
    html: str
    url: str
    expected: str  # the reason we would expect (information only: any drop is correct for junk)
    status: int = 200
    content_type: str = "text/html; charset=utf-8"
    lang: str = "en"
    near_miss: bool = False
    note: str = ""
    headers: dict = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.kind}/{self.slug}"
