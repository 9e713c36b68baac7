"""Wiring rules of issue 17, checked on the source: components reach Scrapy's engine only through
gatecrawl.engineport.EnginePort, and the egress package keeps no module state."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "gatecrawl"

# The distributed scheduler is part of the engine's own machinery, but it too goes through the port.
ENGINE_ALLOWED = {"engineport.py"}


def _engine_reads(tree: ast.AST) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "engine":
            lines.append(node.lineno)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
              and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and node.args[1].value == "engine"):
            lines.append(node.lineno)
    return lines


def test_only_the_engine_port_reaches_the_engine():
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        lines = _engine_reads(ast.parse(path.read_text("utf-8")))
        if lines and rel not in ENGINE_ALLOWED:
            found[rel] = lines
    assert not found, f"crawler.engine read outside gatecrawl/engineport.py (file: lines): {found}"


def test_the_egress_package_keeps_no_module_state():
    for path in sorted((PACKAGE / "egress").glob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        assert not [n for n in ast.walk(tree) if isinstance(n, ast.Global)], f"{path.name}: a global statement"
        for node in tree.body:
            value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
            if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["__all__"]:
                continue
            mutable = isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)) or (
                isinstance(value, ast.Call) and getattr(value.func, "attr", getattr(value.func, "id", "")) in ("dict", "list", "set", "Lock", "WeakKeyDictionary")
            )
            assert not mutable, f"{path.name}:{node.lineno}: module-level mutable state"


# Module-level state that is a cache, documented where it is defined: it holds what can be
# recomputed and never changes an output.
DOCUMENTED_CACHES = {
    "middlewares/presence.py": {"_DOCS"},  # the parsed tree of each live response (weak keys)
    # Not a cache but the process's own record of the spool folders it created on disk (shared by
    # every spill of the process, like the folders themselves), so the last one removes them.
    "store/spill.py": {"_CREATED"},
}
_MUTATING = {"append", "extend", "insert", "add", "update", "pop", "popitem", "setdefault", "clear", "remove", "discard", "__setitem__"}
_MUTABLE_CALLS = {"dict", "list", "set", "defaultdict", "OrderedDict", "WeakKeyDictionary", "WeakValueDictionary", "Counter", "deque"}


def _mutable_globals(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) and node.value else []
        value = getattr(node, "value", None)
        call = getattr(value.func, "attr", getattr(value.func, "id", "")) if isinstance(value, ast.Call) else ""
        if isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)) or call in _MUTABLE_CALLS:
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names - {"__all__"}


def _changed_names(tree: ast.Module) -> set[str]:
    """Names changed inside a function (building a constant while the module loads is fine)."""
    changed = set()
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]
    for node in (inner for f in functions for inner in ast.walk(f)):
        if isinstance(node, ast.Global):
            changed.update(node.names)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
            for t in (node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]):
                if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                    changed.add(t.value.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATING \
                and isinstance(node.func.value, ast.Name):
            changed.add(node.func.value.id)
    return changed


def test_no_module_keeps_mutable_state_but_documented_caches():
    """No ``global`` statement anywhere, and no module-level dict, list or set that the module
    changes, outside the documented caches (issue 17). The settings module is Scrapy's."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel == "settings.py":
            continue
        tree = ast.parse(path.read_text("utf-8"))
        allowed = DOCUMENTED_CACHES.get(rel, set())
        globals_ = {name for n in ast.walk(tree) if isinstance(n, ast.Global) for name in n.names}
        state = (_mutable_globals(tree) & _changed_names(tree)) | globals_
        if state - allowed:
            found[rel] = sorted(state - allowed)
    assert not found, found
