"""GUI latency: how long the real window takes from a knob change to redrawn results.

    .venv/bin/python benchmarks/gui_latency.py [--corpus FILE_OR_DIR ...] [--repeats 15]

Scenarios (offscreen Qt, real model and store; each timed from the slider's ``setValue`` until side A's
results view has been redrawn — the document view follows on the next event-loop turn, timed separately):

* window slider: window ±1 ↔ ±2 (no embedding: the chunk set and question vector are cached);
* cached chunk-size change: chunk size 100 ↔ 64 tokens after both chunk sets were built once;
* first chunk-size change (for reference): a size never built before (debounce + chunking + embedding).

Prints one table with the median, 90th percentile and range per scenario, plus the core-only search time
for the same window change (what the GUI adds on top of ``Workspace.search``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
QUESTION = "Why must the database migration run before the rollout?"


def timed_change(app, panel, change, pane=None, timeout_s: float = 120.0) -> float:
    """Milliseconds from ``change()`` until ``panel`` shows a new result (and, with ``pane``, until the
    document view has been redrawn too)."""
    shown: list[object] = []
    signal = pane.rendered if pane is not None else panel.resultShown
    signal.connect(shown.append)
    t0 = time.perf_counter()
    change()
    deadline = t0 + timeout_s
    while not shown:
        app.processEvents()
        if time.perf_counter() > deadline:
            raise TimeoutError("no result")
        time.sleep(0.0002)
    elapsed = (time.perf_counter() - t0) * 1000
    signal.disconnect(shown.append)
    return elapsed


def row(name: str, values: list[float]) -> str:
    """One table row."""
    values = sorted(values)
    p90 = values[min(len(values) - 1, int(round(0.9 * (len(values) - 1))))]
    return (f"{name:<34} {len(values):>4} {statistics.median(values):>10.1f} {p90:>9.1f} "
            f"{values[0]:>9.1f} {values[-1]:>9.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", nargs="*", default=[str(ROOT / "resources" / "sample")])
    ap.add_argument("--repeats", type=int, default=15)
    args = ap.parse_args()

    from workbench.ui.app.settings import open_settings

    from workbench.core.index.embedding import SentenceTransformerEmbedder
    from workbench.core.retrieve.strategy.presets import PRESETS
    from workbench.core.workspace import Workspace
    from workbench.ui.app.launch import make_app
    from workbench.ui.window.main_window import MainWindow

    app = make_app()
    embedder = SentenceTransformerEmbedder()
    embedder.encode(["warm up the model"])
    with tempfile.TemporaryDirectory() as tmp:
        ws = Workspace(Path(tmp) / "data", embedder=embedder)
        base = PRESETS["neighbours"]  # 100-token chunks, window ±1
        ws.add_paths(args.corpus, base.chunk)
        window = MainWindow(ws, settings=open_settings(str(Path(tmp) / "settings.ini")))
        window.resize(1600, 1000)
        window.show()
        side = window.compare.a
        side.set_strategy(base)
        knobs = side.strategy_panel
        window.question.setText(QUESTION)
        timed_change(app, side, window.run_search)
        encoded = embedder.texts_encoded
        pane = window.compare.doc_pane

        def flip(row, a: int, b: int):  # a change that always changes the value
            return lambda: row.setValue(b if row.value() == a else a)

        slider = [timed_change(app, side, flip(knobs.window_knob, 1, 2)) for _ in range(args.repeats)]
        slider_doc = [timed_change(app, side, flip(knobs.window_knob, 1, 2), pane) for _ in range(args.repeats)]
        assert embedder.texts_encoded == encoded, "a window change embedded something"
        first = [timed_change(app, side, lambda: knobs.size_knob.setValue(64))]
        cached = [timed_change(app, side, flip(knobs.size_knob, 100, 64)) for _ in range(args.repeats)]
        core = []
        for i in range(args.repeats):
            strategy = side.strategy().with_expansion(window=2 if i % 2 == 0 else 1)
            t0 = time.perf_counter()
            ws.search(QUESTION, strategy)
            core.append((time.perf_counter() - t0) * 1000)
        chunks = {size: len(ws.sets.runtime(ws.sets.find_chunk_set(base.chunk.__class__(size=size)).id))
                  for size in (100, 64)}
        window.close()
        ws.close()
    print(f"corpus: {', '.join(Path(c).name for c in args.corpus)} ({chunks[100]} chunks at 100 tokens, "
          f"{chunks[64]} at 64); question: {QUESTION!r}")
    print(f"{'scenario':<34} {'runs':>4} {'median ms':>10} {'p90 ms':>9} {'min ms':>9} {'max ms':>9}")
    print(row("window slider (±1 ↔ ±2)", slider))
    print(row("  … until the document view too", slider_doc))
    print(row("cached chunk size (100 ↔ 64)", cached))
    print(row("first chunk size 64 (builds)", first))
    print(row("core search only (window change)", core))


if __name__ == "__main__":
    main()
