"""Browser-context policy: one context per site, recycled after N pages; a page/context ledger.

Each site renders in its own context (no cookies, storage or cache shared across sites).
After ``max_pages`` renders a site moves to a fresh context (the next *generation*); the old
one is closed as soon as its last page is closed, which bounds the memory a long-lived
context accumulates. The ledger counts pages and contexts opened and closed through
Playwright's own ``close`` events, so a crawl can prove that nothing was left open.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["ContextPool", "BrowserLedger"]


@dataclass
class _Site:
    generation: int = 0
    issued: int = 0


@dataclass
class ContextPool:
    """Names contexts ``gatecrawl:<site>:<generation>`` and tracks pages in flight per name."""

    max_pages: int = 100
    _sites: dict[str, _Site] = field(default_factory=dict)
    _inflight: dict[str, int] = field(default_factory=dict)
    _retired: set[str] = field(default_factory=set)

    @staticmethod
    def _name(site: str, generation: int) -> str:
        return f"gatecrawl:{site}:{generation}"

    def assign(self, site: str) -> str:
        """The context name for the next render of ``site`` (one page in flight more)."""
        st = self._sites.setdefault(site, _Site())
        if self.max_pages and st.issued >= self.max_pages:
            self._retired.add(self._name(site, st.generation))
            st.generation += 1
            st.issued = 0
        st.issued += 1
        name = self._name(site, st.generation)
        self._inflight[name] = self._inflight.get(name, 0) + 1
        return name

    def release(self, name: str) -> bool:
        """One page of ``name`` is done; True when the context is retired and now unused."""
        left = self._inflight.get(name, 0) - 1
        self._inflight[name] = max(left, 0)
        if left <= 0 and name in self._retired:
            self._retired.discard(name)
            self._inflight.pop(name, None)
            return True
        return False

    def inflight(self, name: str) -> int:
        return self._inflight.get(name, 0)


class BrowserLedger:
    """Counts pages and contexts opened and closed, from Playwright's events."""

    def __init__(self, inc: Callable[[str], None]) -> None:
        self._inc = inc
        self._contexts: set[int] = set()
        self._objects: dict[int, Any] = {}
        self.pages_open = 0
        self.contexts_open = 0

    def page_opened(self, page: Any) -> None:
        self.pages_open += 1
        self._inc("page_opened")
        page.once("close", self._page_closed)
        ctx = page.context
        if id(ctx) not in self._contexts:
            self._contexts.add(id(ctx))
            self._objects[id(ctx)] = ctx
            self.contexts_open += 1
            self._inc("context_opened")
            ctx.once("close", self._make_context_closed(id(ctx)))

    def open_contexts(self) -> list[Any]:
        """Contexts opened and not closed yet."""
        return list(self._objects.values())

    def _page_closed(self, *_: Any) -> None:
        self.pages_open -= 1
        self._inc("page_closed")

    def _make_context_closed(self, key: int) -> Callable[..., None]:
        def closed(*_: Any) -> None:
            self._contexts.discard(key)
            self._objects.pop(key, None)
            self.contexts_open -= 1
            self._inc("context_closed")

        return closed
