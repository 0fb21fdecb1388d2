"""Rules of the code base that a reader relies on: the workspace changed only through its facade,
annotations everywhere (no ``noqa: ANN``) and no argparse conflict handler hiding duplicate flags. (Modules
are split along their seams when they do two things, in review; no line count decides it.)"""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "workbench"
FACADE = PACKAGE / "core" / "workspace" / "facade.py"


def sources() -> list[Path]:
    """Every Python module of the package."""
    return sorted(PACKAGE.rglob("*.py"))


def _assigned_attributes(tree: ast.AST) -> list[tuple[int, str]]:
    """``(line, text)`` of every ``ws.<attr> = …`` / ``self.ws.<attr> = …`` and ``setattr(ws, …)``."""
    found: list[tuple[int, str]] = []

    def is_ws(node: ast.expr) -> bool:
        return (isinstance(node, ast.Name) and node.id == "ws") or (
            isinstance(node, ast.Attribute) and node.attr == "ws")

    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            for t in (target.elts if isinstance(target, ast.Tuple) else [target]):
                if isinstance(t, ast.Attribute) and is_ws(t.value):
                    found.append((node.lineno, ast.unparse(t)))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr")
                and node.args and is_ws(node.args[0])):
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_the_rule_finder_sees_assignments_and_setattr():
    code = "ws.llm = 1\nself.ws.x, y = 2, 3\nsetattr(ws, 'a', 1)\nws.store.put(1)\nother.llm = 1\n"
    assert [text for _, text in _assigned_attributes(ast.parse(code))] == [
        "ws.llm", "self.ws.x", "setattr(ws, 'a', 1)"]


def test_workspace_attributes_are_set_only_by_the_facade():
    offenders = [f"{p.relative_to(ROOT)}:{line}: {text}" for p in sources() if p != FACADE
                 for line, text in _assigned_attributes(ast.parse(p.read_text(encoding="utf-8")))]
    assert not offenders, f"set workspace state through core.workspace.Workspace methods: {offenders}"


def test_no_annotation_waivers_and_no_conflict_handler():
    waived = [f"{p.relative_to(ROOT)}:{i}" for p in sources()
              for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if "noqa: ANN" in line]
    assert not waived, f"annotate instead of waiving: {waived}"
    conflict = [str(p.relative_to(ROOT)) for p in sources() if "conflict_handler" in p.read_text(encoding="utf-8")]
    assert not conflict, f"argparse conflict_handler hides duplicate options: {conflict}"


def _project_bases() -> list[str]:
    """``module:Class(A, B)`` for every class of the package with two or more bases that are classes of the
    package (protocols and exceptions, which hold no state of their own, aside)."""
    trees = {p: ast.parse(p.read_text(encoding="utf-8")) for p in sources()}
    classes = [(path, node) for path, tree in trees.items() for node in ast.walk(tree)
               if isinstance(node, ast.ClassDef)]

    def name(base: ast.expr) -> str:
        return base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else ""

    errors = {n for n in dir(builtins) if isinstance(getattr(builtins, n), type)
              and issubclass(getattr(builtins, n), BaseException)}
    while True:  # the package's exceptions: classes with an exception among their bases
        more = {node.name for _, node in classes if {name(b) for b in node.bases} & errors} - errors
        if not more:
            break
        errors |= more
    ours = {node.name for _, node in classes} - errors
    return [f"{path.relative_to(ROOT)}:{node.name}({', '.join(name(b) for b in node.bases)})"
            for path, node in classes
            if "Protocol" not in {name(b) for b in node.bases} and len([b for b in node.bases if name(b) in ours]) > 1]


def test_no_class_is_assembled_from_mixins():
    """The workspace and the store own parts (``ws.records``, ``store.sets`` …), each with its own state; no class
    inherits from two classes of the package, whose private state the parts would then share."""
    offenders = _project_bases()
    assert not offenders, f"compose parts instead of inheriting from two project classes: {offenders}"


def test_a_chunkers_size_and_overlap_are_read_from_the_chunker_only():
    """One chunker form: outside ``core/ingest`` nothing reads a chunk configuration's own ``size`` / ``overlap`` /
    ``unit`` fields (they are the defaults for a registry chunker, whose size lives in its parameters); code asks
    ``chunk_size`` / ``chunk_overlap`` / ``chunk_unit``. The strategy JSON reader is the one edge that writes the
    legacy flat fields."""
    import re

    field = re.compile(r"\b\w*(config|chunk)\.(size|overlap|unit)\b")
    edge = PACKAGE / "core" / "retrieve" / "strategy" / "json_form.py"
    found = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
             for path in sources() if "ingest" not in path.relative_to(PACKAGE).parts[:2] and path != edge
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1) if field.search(line)]
    assert not found, "\n".join(found)
