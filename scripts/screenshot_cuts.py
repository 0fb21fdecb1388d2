"""*Cuts of A and B* at laptop size (1366×768): the sample corpus, a question with one reference span, A cut
into 100-token chunks (the window's first strategy) and B into three-sentence chunks, both sides' cuts drawn
on the one text with the figures above it (``cuts-ab.png``).

Run from the repository root (offscreen is enough: the window is grabbed, not the screen):
    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 QT_QPA_PLATFORM=offscreen \\
    .venv/bin/python scripts/screenshot_cuts.py [OUT_DIR]
"""

from __future__ import annotations

from screenshot_support import SELF_TEST_QUESTION, LaptopWindow, output_dir


def main() -> None:
    """Index the sample corpus, search side by side with a reference span and save ``cuts-ab.png``."""
    out = output_dir()
    shot = LaptopWindow("cuts-ab")
    from dataclasses import replace

    from workbench.core.ingest.values import ChunkConfig
    from workbench.core.retrieve.strategy.presets import PRESETS
    from workbench.core.spans import Span

    window, ws, wait, settle = shot.window, shot.ws, shot.wait, shot.settle
    compare = window.compare
    shot.index_sample()
    window.side_by_side.setChecked(True)
    compare.b.set_strategy(replace(PRESETS["plain"], chunk=ChunkConfig(unit="sentences", size=3)))
    wait(lambda: not compare.b.controller.building)
    doc = next(d for d in ws.records.documents() if d["path"].endswith("deploy-guide.md"))
    text = ws.corpus.doc_text(doc["id"])
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
    pane.set_chunk_map_side("AB")
    pane.view.scroll_to(doc["id"], max(0, start - 400))
    settle()
    print(f"screenshot: window {window.size().toTuple()}, figures: {pane.cut_summary.text()}")
    shot.save(out, "cuts-ab.png")
    shot.close()


if __name__ == "__main__":
    main()
