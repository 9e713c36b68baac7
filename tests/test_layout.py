"""The source layout stays navigable (issue 17): no module in gatecrawl/ over 500 lines, and every
package's ``__init__`` says in its docstring what the package owns."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "gatecrawl"
MAX_LINES = 500

# Allow-list: modules over the limit with their line count as a ceiling (they may shrink, never
# grow). Empty: every module is within the limit (issue 17).
OVER_LIMIT_CEILINGS: dict[str, int] = {}


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_the_package_is_found():
    names = {p.relative_to(PACKAGE).as_posix() for p in _modules()}
    assert "core/markdown/__init__.py" in names and len(names) > 50


def test_no_module_over_the_line_limit():
    over = {}
    for path in _modules():
        rel = path.relative_to(PACKAGE).as_posix()
        n = _lines(path)
        ceiling = OVER_LIMIT_CEILINGS.get(rel, MAX_LINES)
        if n > ceiling:
            over[rel] = (n, ceiling)
    assert not over, f"modules over their line limit (lines, limit): {over}"


def test_the_allow_list_only_raises_the_limit():
    assert all(ceiling > MAX_LINES for ceiling in OVER_LIMIT_CEILINGS.values())


def test_every_package_init_has_a_docstring():
    missing = []
    for init in sorted(PACKAGE.rglob("__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        if not doc or not doc.strip():
            missing.append(init.relative_to(PACKAGE).as_posix())
    assert not missing, f"package __init__ without a docstring: {missing}"
