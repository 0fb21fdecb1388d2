"""The chunk map at laptop size (1366×768): the sample corpus, a question with one reference span, side B's
chunks (smaller, overlapping) painted in the document view with the size histogram and the boundary
diagnostics beside it (``chunk-map.png``).

Run from the repository root (offscreen is enough: the window is grabbed, not the screen):
    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 QT_QPA_PLATFORM=offscreen .venv/bin/python scripts/screenshot_chunk_map.py [OUT_DIR]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's workbench, not an installed one
from workbench.ui.app.launch import SAMPLE_DIR, SELF_TEST_QUESTION, make_app  # noqa: E402

WIDTH, HEIGHT = 1366, 768


def main() -> None:
    """Index the sample corpus, search side by side with a reference span and save ``chunk-map.png``."""
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots")
    out.mkdir(parents=True, exist_ok=True)
    app = make_app()
    from workbench.core.retrieve.strategies import PRESETS, override
    from workbench.core.spans import Span
    from workbench.core.workspace import Workspace
    from workbench.ui.app.settings import open_settings
    from workbench.ui.window.main_window import MainWindow

    def wait(done, seconds: float = 300.0) -> None:  # noqa: ANN001
        deadline = time.monotonic() + seconds
        while not done():
            if time.monotonic() > deadline:
                raise SystemExit("screenshot: timed out")
            app.processEvents()
            time.sleep(0.01)

    def settle(seconds: float = 0.8) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            app.processEvents()
            time.sleep(0.02)

    tmp = Path(tempfile.mkdtemp(prefix="workbench-chunk-map-"))
    ws = Workspace(tmp / "data")
    window = MainWindow(ws, settings=open_settings(str(tmp / "settings.ini")))
    window.setGeometry(0, 0, WIDTH, HEIGHT)
    window.show()
    compare = window.compare
    wait(lambda: not compare.a.controller.building and not compare.b.controller.building)
    done: list[object] = []
    window.library.indexingFinished.connect(done.append)
    window.index_sample(SAMPLE_DIR)
    wait(lambda: done)
    window.actions_["library"].trigger()  # indexing opened the library; collapse it (Ctrl+Shift+L)
    window.side_by_side.setChecked(True)
    compare.b.set_strategy(override(PRESETS["plain"], size=96, overlap=24))
    wait(lambda: not compare.b.controller.building)
    doc = next(d for d in ws.store.documents() if d["path"].endswith("deploy-guide.md"))
    text = ws.doc_text(doc["id"])
    start = text.index("The database schema must be migrated")
    reference = [Span(doc["id"], start, text.index("\n", start))]
    shown: dict[str, list[object]] = {"A": [], "B": []}
    compare.a.resultShown.connect(shown["A"].append)
    compare.b.resultShown.connect(shown["B"].append)
    compare.show_question(SELF_TEST_QUESTION, reference)
    wait(lambda: shown["A"] and shown["B"])
    compare.focus_document()
    compare.split.setSizes([260, 10_000])  # the user drags the splitter up to read the document
    settle()
    pane = compare.doc_pane
    pane.flush()
    pane.show_doc(doc["id"], start)
    pane.set_chunk_map_side("B")
    pane.view.scroll_to(doc["id"], start)
    settle()
    path = out / "chunk-map.png"
    window.grab().save(str(path))
    print(f"screenshot: {path} (window {window.size().toTuple()}, summary {pane.chunk_summary.size().toTuple()})")
    window.close()
    ws.close()


if __name__ == "__main__":
    main()
