"""A 1366×768 screenshot of Explore side by side with the knobs open and a registry chunker on each side:
A = LangChain's recursive splitter (512 tokens, overlap 50), B = semantic breaks at the 90th percentile
(``chunker-knobs.png``), after a search on the sample corpus.

Run from the repository root (no display needed):
    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 QT_QPA_PLATFORM=offscreen \\
    .venv/bin/python scripts/screenshot_chunker_knobs.py [OUT_DIR]
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
    """Index the sample corpus, give each side a chunker, search and save ``chunker-knobs.png``."""
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    out = Path(args[0] if args else "docs/screenshots")
    out.mkdir(parents=True, exist_ok=True)
    app = make_app()
    from workbench.core.workspace import Workspace
    from workbench.ui.app.settings import open_settings
    from workbench.ui.window.main_window import MainWindow

    def wait(done, seconds: float = 600.0) -> None:  # noqa: ANN001
        deadline = time.monotonic() + seconds
        while not done():
            if time.monotonic() > deadline:
                banners = [side.banner.text() for side in (window.compare.a, window.compare.b)]
                raise SystemExit(f"screenshot: timed out {banners}")
            app.processEvents()
            time.sleep(0.01)

    def idle(side) -> bool:  # noqa: ANN001
        c = side.controller
        return not c.building and not c.searching and c.result is not None

    tmp = Path(tempfile.mkdtemp(prefix="workbench-knobs-"))
    ws = Workspace(tmp / "data")
    window = MainWindow(ws, settings=open_settings(str(tmp / "settings.ini")))
    window.setGeometry(0, 0, WIDTH, HEIGHT)
    window.show()
    done = []
    window.library.indexingFinished.connect(done.append)
    window.index_sample(SAMPLE_DIR)
    wait(lambda: done)
    print("screenshot: sample indexed", flush=True)
    window.actions_["library"].trigger()  # indexing opened the library; the user collapses it (Ctrl+Shift+L)
    window.side_by_side.setChecked(True)
    window.compare.set_knobs_shown(True)
    window.question.setText(SELF_TEST_QUESTION)
    window.run_search()
    a, b = window.compare.a, window.compare.b
    wait(lambda: idle(a) and idle(b))
    print("screenshot: searched with the built-in cut", flush=True)
    pick(a, "langchain_recursive")
    a.strategy_panel.size.setValue(512)
    a.strategy_panel.overlap.setValue(50)
    pick(b, "semantic")
    b.strategy_panel.chunker._controls["percentile"].widget.setValue(90)
    wait(lambda: idle(a) and idle(b) and _cut(a) and _cut(b))
    end = time.monotonic() + 1.0
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.02)
    heights = {s: getattr(window.compare, s).results.height() for s in "ab"}
    print(f"screenshot: window {window.size().toTuple()}, passage heights {heights}")
    path = out / "chunker-knobs.png"
    window.grab().save(str(path))
    print(f"screenshot: {path}")
    window.close()
    ws.close()


def pick(side, name: str) -> None:  # noqa: ANN001
    """Choose the chunker ``name`` on one side."""
    combo = side.strategy_panel.chunker.combo
    combo.setCurrentIndex(combo.findData(name))


def _cut(side) -> bool:  # noqa: ANN001
    """True once the side's shown result was searched with the chunker its knobs name."""
    result = side.controller.result
    return result is not None and result.strategy.chunk == side.controller.strategy.chunk


if __name__ == "__main__":
    main()
