"""The chunk map's cut editing at laptop size (1366×768): the bundled benchmark's ``state_of_the_union`` corpus,
the preschool question with its two reference spans, side A's chunk map after three cuts were moved around
the references through the window's own editor (the hand-made chunking ``preschool``, the guide's worked
example), the side re-run with ``edited:preschool`` (``cut-edit.png``).

Run from the repository root (offscreen is enough: the window is grabbed, not the screen):
    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 QT_QPA_PLATFORM=offscreen \\
    .venv/bin/python scripts/screenshot_cut_edit.py [OUT_DIR]
"""

from __future__ import annotations

from screenshot_support import LaptopWindow, output_dir

QUESTION = ("What are the benefits mentioned by President Biden for providing access to preschool for three- "
            "and four-year-olds?")
REFERENCES = ((19026, 19273), (19565, 19755))  # the question's spans in questions.csv
MOVES = ((19167, 19026), (20049, 19757), (20922, 20767))  # the guide's three moved cuts


def main() -> None:
    """Index the corpus, ask the question on plain, move three cuts in A's chunk map, save ``cut-edit.png``."""
    out = output_dir()
    shot = LaptopWindow("cut-edit")
    from workbench.core.evaluate.bundled import bundled_path
    from workbench.core.retrieve.strategy.presets import PRESETS
    from workbench.core.spans import Span

    window, ws, wait, settle = shot.window, shot.ws, shot.wait, shot.settle
    compare = window.compare
    wait(lambda: not compare.a.controller.building)
    folder = bundled_path("chroma-general")
    assert folder is not None
    report = ws.add_paths([str(folder / "corpora" / "state_of_the_union.md")])
    assert not report.failed, report.failed
    window.library.refresh()
    window.menu_actions["library"].trigger()  # collapse the library (Ctrl+Shift+L): the text gets the width
    doc_id = int(ws.records.documents()[0]["id"])
    compare.a.set_strategy(PRESETS["plain"])
    wait(lambda: not compare.a.controller.building)
    shown: list[object] = []
    compare.a.resultShown.connect(shown.append)
    compare.show_question(QUESTION, [Span(doc_id, a, b) for a, b in REFERENCES])
    wait(lambda: shown)
    compare.focus_document()
    compare.split.setSizes([250, 10_000])
    settle()
    pane, editor = compare.doc_pane, compare.cut_editor
    pane.flush()
    pane.show_doc(doc_id, REFERENCES[0][0])
    pane.set_chunk_map_side("A")
    editor.ask = lambda offered: "preschool"  # the name the dialog asks for once
    for cut, to in MOVES:
        before = len(shown)
        assert editor.move(doc_id, cut, to), cut
        wait(lambda n=before: len(shown) > n and not compare.a.controller.building)
        pane.flush()
    pane.show_doc(doc_id, REFERENCES[0][0])
    pane.view.scroll_to(doc_id, REFERENCES[0][0] - 420)
    settle()
    print(f"screenshot: A runs {compare.a.strategy().chunk.chunker}; status: {window.statusBar().currentMessage()}")
    shot.save(out, "cut-edit.png")
    shot.close()


if __name__ == "__main__":
    main()
