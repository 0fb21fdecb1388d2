"""Follow a strategy value through ``Workspace.search`` (a warm search: its chunk set exists, as in the window after
the first search) and count its stays, rooms and returns.

A stay is a function of the package called with the strategy or one of its parts (chunk config, search config,
expansion, steps) among its arguments (``self`` included); a room is a module holding one; a return is the module
sequence of the stays (each function once, in the order first reached, consecutive repeats collapsed) coming back
to a module it had left.

Run from the repository root (the hashed test embedder: no model is loaded):
    HF_HUB_OFFLINE=1 .venv/bin/python scripts/value_path.py [PRESET]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


def main() -> None:
    """Trace one warm search of the preset named on the command line (default ``neighbours``)."""
    from fake_embedder import HashEmbedder

    from workbench.core.retrieve.strategy.presets import PRESETS
    from workbench.core.workspace import Workspace

    name = sys.argv[1] if len(sys.argv) > 1 else "neighbours"
    strategy = PRESETS[name]
    parts = [strategy, strategy.chunk, strategy.search_config, strategy.search_config.fine, strategy.expander,
             strategy.steps, *strategy.steps]
    ids = {id(p) for p in parts}
    package = str(ROOT / "workbench")
    ws = Workspace(Path(tempfile.mkdtemp()) / "data", embedder=HashEmbedder())
    ws.add_paths([ROOT / "resources" / "sample"])
    question = "How do I flush the cache?"
    ws.search(question, strategy)  # builds the set: the traced search is a warm one
    calls: list[tuple[str, str]] = []

    def profile(frame, event, _arg):  # sys.setprofile's callback
        code = frame.f_code
        if event != "call" or not code.co_filename.startswith(package):
            return
        given = list(frame.f_locals.values())[: code.co_argcount + code.co_kwonlyargcount]
        if any(id(v) in ids for v in given):
            calls.append((code.co_filename[len(package) + 1:].removesuffix(".py"), code.co_qualname))

    sys.setprofile(profile)
    try:
        ws.search(question, strategy)
    finally:
        sys.setprofile(None)
        ws.close()
    order = list(dict.fromkeys(calls))
    modules = [m for m, _ in order]
    collapsed = [m for i, m in enumerate(modules) if i == 0 or m != modules[i - 1]]
    returns = sum(1 for i, m in enumerate(collapsed) if m in collapsed[:i])
    for module, function in order:
        print(f"  {module}: {function}")
    print(f"{name}: {len(order)} stays / {len(set(modules))} rooms / {returns} returns")


if __name__ == "__main__":
    main()
