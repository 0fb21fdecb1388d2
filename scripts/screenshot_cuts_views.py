"""Why a semantic chunker cut here, and the embedding space, at laptop size (1366×768, or ``--size=WxH``): the
sample corpus with side B cut by ``semantic``, its chunk map and the similarity curve under it
(``semantic-curve.png``), then the *Embedding space* tab with side A's chunk set, the question and the hits
(``embedding-space.png``).

Run from the repository root (offscreen is enough: the window is grabbed, not the screen):
    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 QT_QPA_PLATFORM=offscreen \\
    .venv/bin/python scripts/screenshot_cuts_views.py [OUT_DIR] [--size=1280x720]
"""

from __future__ import annotations

from screenshot_support import SELF_TEST_QUESTION, LaptopWindow, output_dir


def main() -> None:
    """Index the sample corpus, search side by side (B semantic), save both pictures."""
    out = output_dir()
    shot = LaptopWindow("cuts-views")
    from workbench.core.retrieve.strategy.presets import PRESETS, resolve

    window, wait, settle = shot.window, shot.wait, shot.settle
    compare = window.compare
    shot.index_sample()
    window.side_by_side.setChecked(True)
    compare.b.set_strategy(resolve({"chunker": {"name": "semantic", "percentile": 85, "max_tokens": 256},
                                    "top_k": 3}))
    compare.a.set_strategy(PRESETS["plain"])
    wait(lambda: not compare.b.controller.building and not compare.a.controller.building)
    window.question.setText(SELF_TEST_QUESTION)
    window.run_search()
    wait(lambda: all(window.model.current_result(s) is not None for s in "AB"))
    compare.focus_document()
    compare.split.setSizes([230, 10_000])  # the user drags the splitter up to read the document
    settle()
    pane = compare.doc_pane
    pane.flush()
    result = window.model.current_result("B")
    assert result is not None
    passage = result.passages[0]
    pane.show_doc(passage.span.doc_id, passage.span.start)
    pane.set_chunk_map_side("B")
    wait(lambda: pane.cut_curve.explanation is not None, why=lambda: "for the similarity curve")
    settle()
    print(f"screenshot: curve {pane.cut_curve.size().toTuple()}, {pane.cut_curve.title.text()[:120]}")
    shot.save(out, "semantic-curve.png")
    space = compare.space
    compare.bottom_tabs.setCurrentWidget(space)
    wait(lambda: space.data is not None, why=lambda: "for the embedding space")
    settle()
    print(f"screenshot: space {space.size().toTuple()}")
    shot.save(out, "embedding-space.png")
    shot.close()


if __name__ == "__main__":
    main()
