"""Search through the real window: passages and highlighted ranges match the core, the window slider
grows and merges passages without embedding anything, chunk-size changes rebuild in the background and
returning to a built size reuses it."""

from __future__ import annotations

from ui_support import QUESTION, WAIT_MS, search, wait_result

from workbench.core.ingest.values import ChunkConfig
from workbench.core.spans import merge_spans

pytest_plugins = ["ui_support"]  # the window fixtures


def _expected(ws, strategy, question=QUESTION):
    return ws.search(question, strategy)


def test_enter_runs_the_search_and_highlights_hits_inside_windows(qtbot, make_window, hash_sample_ws):
    window = make_window(hash_sample_ws)
    (result,) = search(qtbot, window)
    side = window.compare.a
    core = _expected(hash_sample_ws, side.strategy())
    assert [(p.span, p.hit_spans, p.rank) for p in result.passages] == \
        [(p.span, p.hit_spans, p.rank) for p in core.passages]
    view = side.results
    assert view.rendered("hit") == merge_spans(s for p in core.passages for s in p.hit_spans)
    assert view.rendered("window") == merge_spans(p.span for p in core.passages)
    texts = [hash_sample_ws.corpus.doc_text(p.span.doc_id)[p.span.start:p.span.end] for p in core.passages]
    assert view.passage_texts() == texts
    assert "passage" in side.stats.text() and str(core.context.tokens) in side.stats.text().replace(",", "")


def test_window_slider_grows_and_merges_without_embedding(qtbot, make_window, hash_sample_ws, hash_embedder):
    window = make_window(hash_sample_ws)
    side = window.compare.a
    side.strategy_panel.window_knob.setValue(0)
    qtbot.waitUntil(lambda: not side.controller.searching and not side.controller.building, timeout=WAIT_MS)
    (narrow,) = search(qtbot, window)
    encoded = hash_embedder.texts_encoded
    wide = wait_result(qtbot, side, lambda: side.strategy_panel.window_knob.setValue(2))
    assert hash_embedder.texts_encoded == encoded, "a window change must not embed anything"
    assert wide.strategy.expander.window == 2 and wide.strategy.chunk == narrow.strategy.chunk
    narrow_chars = sum(p.span.length for p in narrow.passages)
    wide_chars = sum(p.span.length for p in wide.passages)
    assert wide_chars > narrow_chars
    assert len(wide.passages) <= len(narrow.passages)
    for p in wide.passages:  # merged: several hits inside one passage somewhere
        assert all(p.span.contains(h) for h in p.hit_spans)
    assert any(len(p.hit_spans) > 1 for p in wide.passages)
    core = _expected(hash_sample_ws, side.strategy())
    assert side.results.rendered("window") == merge_spans(p.span for p in core.passages)


def test_chunk_size_rebuilds_in_background_and_going_back_is_instant(qtbot, make_window, hash_sample_ws, hash_embedder):
    window = make_window(hash_sample_ws)
    side = window.compare.a
    (first,) = search(qtbot, window)
    old_size = first.strategy.chunk.size
    new_size = 64
    assert hash_sample_ws.sets.find_chunk_set(first.strategy.chunk.__class__(**{**first.strategy.chunk.__dict__,
                                                                      "size": new_size})) is None
    encoded = hash_embedder.texts_encoded
    with qtbot.waitSignal(side.controller.buildStarted, timeout=WAIT_MS):
        side.strategy_panel.size_knob.setValue(new_size)
        assert side.results.is_stale, "old results stay visible, greyed"
        assert side.controller.result is first
    assert side.progress.isVisible()
    with qtbot.waitSignal(side.resultShown, timeout=WAIT_MS) as done:
        pass
    rebuilt = done.args[0]
    assert rebuilt.strategy.chunk.size == new_size and not side.results.is_stale
    assert hash_embedder.texts_encoded > encoded, "new chunks were embedded"
    config = ChunkConfig(**{**first.strategy.chunk.__dict__, "size": new_size})
    assert hash_sample_ws.sets.find_chunk_set(config) is not None
    encoded = hash_embedder.texts_encoded
    started = []
    side.controller.buildStarted.connect(started.append)
    back = wait_result(qtbot, side, lambda: side.strategy_panel.size_knob.setValue(old_size))
    assert back.strategy.chunk.size == old_size
    assert not started, "a chunk set that was built before is used directly"
    assert hash_embedder.texts_encoded == encoded
    assert [p.span for p in back.passages] == [p.span for p in first.passages]
