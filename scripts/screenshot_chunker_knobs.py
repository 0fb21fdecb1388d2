"""A 1366×768 screenshot of Explore side by side with the knobs open and a registry chunker on each side:
A = LangChain's recursive splitter (512 tokens, overlap 50), B = semantic breaks at the 90th percentile
(``chunker-knobs.png``), after a search on the sample corpus.

Run from the repository root (no display needed):
    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 QT_QPA_PLATFORM=offscreen \\
    .venv/bin/python scripts/screenshot_chunker_knobs.py [OUT_DIR]
"""

from __future__ import annotations

from screenshot_support import SELF_TEST_QUESTION, LaptopWindow, output_dir


def main() -> None:
    """Index the sample corpus, give each side a chunker, search and save ``chunker-knobs.png``."""
    out = output_dir()
    shot = LaptopWindow("knobs")
    window = shot.window
    a, b = window.compare.a, window.compare.b

    def idle(side) -> bool:
        c = side.controller
        return not c.building and not c.searching and c.result is not None

    def banners() -> str:
        return str([side.banner.text() for side in (a, b)])

    shot.index_sample()
    window.side_by_side.setChecked(True)
    window.compare.set_knobs_shown(True)
    window.question.setText(SELF_TEST_QUESTION)
    window.run_search()
    shot.wait(lambda: idle(a) and idle(b), 600.0, banners)
    print("screenshot: searched with the fixed window", flush=True)
    pick(a, "langchain_recursive")
    a.strategy_panel.size_knob.setValue(512)
    a.strategy_panel.overlap.setValue(50)
    pick(b, "semantic")
    b.strategy_panel.chunker._controls["percentile"].widget.setValue(90)  # the control as a user
    shot.wait(lambda: idle(a) and idle(b) and _cut(a) and _cut(b), 600.0, banners)
    shot.settle(1.0)
    heights = {s: getattr(window.compare, s).results.height() for s in "ab"}
    print(f"screenshot: window {window.size().toTuple()}, passage heights {heights}")
    shot.save(out, "chunker-knobs.png")
    shot.close()


def pick(side, name: str) -> None:
    """Choose the chunker ``name`` on one side."""
    combo = side.strategy_panel.chunker.combo
    combo.setCurrentIndex(combo.findData(name))


def _cut(side) -> bool:
    """True once the side's shown result was searched with the chunker its knobs name."""
    result = side.controller.result
    return result is not None and result.strategy.chunk == side.controller.strategy.chunk


if __name__ == "__main__":
    main()
