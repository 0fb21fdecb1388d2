"""No import cycles among ``workbench.*`` modules (lazy imports inside functions count too), and none either when
imports under ``if TYPE_CHECKING:`` count as well: a helper names the small protocol it needs, never the module
that uses it (``evaluate.sweep_checks`` reads configurations through its own protocols, not ``sweep``'s types).

The import graph comes from grimp (installed with import-linter); a cycle is a strongly connected component
of more than one module, found with Tarjan's algorithm. Core and the outer layers (ui, commands, cli) are
checked separately so that a cycle in one does not hide behind the other.
"""

from __future__ import annotations

from pathlib import Path

import grimp
from conftest import ROOT


def import_graph(annotations: bool = False) -> dict[str, set[str]]:
    """Module → the ``workbench`` modules it imports directly when running (with ``annotations``: under
    ``TYPE_CHECKING`` too), from this checkout's sources, no cache."""
    import workbench

    assert Path(workbench.__file__).resolve().parent == ROOT / "workbench", "workbench imported from elsewhere"
    graph = grimp.build_graph("workbench", cache_dir=None, exclude_type_checking_imports=not annotations)
    return {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.get(target, ())))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_cycle_finder_finds_a_cycle_and_nothing_else():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set(), "f": {"f"}}
    assert cycles(graph) == [["a", "b", "c"]]


def _is_core(module: str) -> bool:
    return module.startswith("workbench.core.") or module == "workbench.core"


def test_no_cycles_in_ui_commands_and_cli():
    outer = [c for c in cycles(import_graph()) if not all(_is_core(m) for m in c)]
    assert not outer, f"import cycles: {outer}"


def test_no_cycles_in_core():
    inner = [c for c in cycles(import_graph()) if all(_is_core(m) for m in c)]
    assert not inner, f"import cycles in core: {inner}"


def test_no_cycles_anywhere_counting_annotation_imports():
    found = cycles(import_graph(annotations=True))
    assert not found, f"import cycles (annotation imports included): {found}"
