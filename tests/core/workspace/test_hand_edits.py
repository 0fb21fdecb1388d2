"""Hand-made chunkings: exact spans after split, merge and move (no gap, no overlap unless the base overlapped,
every character covered), edits for a changed text skipped and said, and the ``edited:NAME`` chunker's identity
following its edits."""

from __future__ import annotations

import pytest

from workbench.core.index.embedding import default_model_path
from workbench.core.ingest.chunkers.choice import apply_chunker, chunker_spec
from workbench.core.ingest.chunkers.edited import EditedChunker
from workbench.core.ingest.chunkers.errors import ChunkerError
from workbench.core.ingest.chunkers.hand_edits import CutEdit, HandChunking, apply_edits, edits_from_json, text_sha
from workbench.core.ingest.chunkers.identity import chunk_set_id
from workbench.core.ingest.chunkers.protocol import ChunkerResources
from workbench.core.ingest.chunkers.registry import make_chunker
from workbench.core.ingest.tokens import counter_for_model
from workbench.core.ingest.values import ChunkConfig

TEXT = "".join(f"Sentence number {i} says something. " for i in range(20))  # 690 characters, no blank runs
SHA = text_sha(TEXT)
TILED = [(0, 140), (140, 280), (280, 420), (420, 560), (560, 690)]
COUNTER = counter_for_model(str(default_model_path()))


def edit(op: str, at: int, to: int = 0, sha: str = SHA) -> CutEdit:
    return CutEdit(op, 1, "a.md", sha, at, to)


def assert_tiles(spans: list[tuple[int, int]], length: int) -> None:
    """No gap, no overlap, every character covered."""
    assert spans[0][0] == 0 and spans[-1][1] == length
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:], strict=False)), spans


def test_split_merge_move_give_exact_tiled_spans():
    out = apply_edits(TILED, TEXT, [edit("split", 200), edit("merge", 420), edit("move", 140, 150)])
    assert out.skipped == []
    assert out.spans == [(0, 150), (150, 200), (200, 280), (280, 560), (560, 690)]
    assert_tiles(out.spans, len(TEXT))


def test_edits_apply_in_order_and_a_later_edit_sees_the_earlier_ones():
    out = apply_edits(TILED, TEXT, [edit("split", 200), edit("move", 200, 250), edit("merge", 250)])
    assert out.skipped == []
    assert out.spans == TILED  # split, moved the new cut, removed it again


def test_move_keeps_an_overlapping_base_overlapping_and_opens_no_gap():
    overlapping = [(0, 160), (140, 300), (280, 690)]
    out = apply_edits(overlapping, TEXT, [edit("move", 140, 150)])
    assert out.spans == [(0, 160), (150, 300), (280, 690)]
    refused = apply_edits(overlapping, TEXT, [edit("move", 280, 310)])
    assert refused.spans == overlapping and "gap" in refused.skipped[0].reason


def test_a_gap_the_base_left_is_named_by_either_end_and_closed_by_a_move():
    text = "alpha beta.  gamma delta."  # the base leaves the two spaces between its chunks out
    base = [(0, 11), (13, 25)]
    out = apply_edits(base, text, [CutEdit("move", 1, "a", text_sha(text), 11, 6)])
    assert out.spans == [(0, 6), (6, 25)]
    merged = apply_edits(base, text, [CutEdit("merge", 1, "a", text_sha(text), 13)])
    assert merged.spans == [(0, 25)]


@pytest.mark.parametrize(("bad", "why"), [
    (edit("merge", 200), "no cut at 200"),
    (edit("split", 140), "cut at 140 already"),
    (edit("split", 900), "outside"),
    (edit("move", 140, 300), "outside the two chunks"),
    (edit("move", 140, 280), "outside the two chunks"),
    (edit("move", 999, 100), "outside"),
])
def test_an_edit_that_does_not_apply_is_skipped_with_its_reason_and_changes_nothing(bad, why):
    out = apply_edits(TILED, TEXT, [bad, edit("split", 70)])
    assert [(s.index, why in s.reason) for s in out.skipped] == [(0, True)]
    assert out.spans == [(0, 70), (70, 140)] + TILED[1:]  # the next edit still applied


def test_edits_made_for_another_text_are_not_applied_and_never_shifted():
    changed = "Inserted at the start. " + TEXT
    out = apply_edits(TILED, changed, [edit("split", 200)])
    assert out.spans == TILED and out.skipped == []  # not for this text: the base's cuts, untouched


def test_spans_edit_replaces_the_documents_chunks_exactly():
    given = ((0, 100), (90, 400), (400, 690))
    out = apply_edits(TILED, TEXT, [CutEdit("spans", 1, "a.md", SHA, spans=given)])
    assert out.spans == list(given)
    bad = apply_edits(TILED, TEXT, [CutEdit("spans", 1, "a.md", SHA, spans=((0, 800),))])
    assert out.skipped == [] and bad.spans == TILED and "outside" in bad.skipped[0].reason


def test_edits_read_back_as_written():
    edits = (edit("move", 140, 150), CutEdit("spans", 2, "b.md", "f" * 64, spans=((0, 5), (5, 9))), edit("merge", 1))
    assert edits_from_json(HandChunking("n", "plain", '{"name":"fixed"}', edits).edits_json()) == edits


@pytest.fixture
def hands() -> dict[str, HandChunking]:
    return {}  # the chunkings a caller passes along (a data folder's: ws.cuts.get)


BASE = '{"name":"recursive","max_tokens":40,"overlap":0}'


def test_the_edited_chunker_cuts_the_base_then_applies_the_edits(hands):
    hands["h"] = HandChunking("h", "plain", BASE)
    config = apply_chunker(ChunkConfig(), "edited:h")
    chunker = make_chunker(chunker_spec(config, hands.get), ChunkerResources(counter=COUNTER), hands.get)
    assert isinstance(chunker, EditedChunker)
    base = chunker.chunk(TEXT, ())
    cut = base[1][0]
    hands["h"] = HandChunking("h", "plain", BASE, (edit("move", cut, cut + 5), edit("split", 30)))
    edited = make_chunker(chunker_spec(config, hands.get), ChunkerResources(counter=COUNTER), hands.get).chunk(TEXT, ())
    assert edited[:3] == [(0, 30), (30, cut + 5), (cut + 5, base[1][1])] and edited[3:] == base[2:]


def test_the_chunk_set_id_changes_with_the_edits_and_only_then(hands):
    hands["h"] = HandChunking("h", "plain", BASE)
    config = apply_chunker(ChunkConfig(), "edited:h")
    first = chunk_set_id(config, "m", hands=hands.get)
    assert chunk_set_id(config, "m", hands=hands.get) == first
    hands["h"] = HandChunking("h", "plain", BASE, (edit("split", 30),))
    second = chunk_set_id(config, "m", hands=hands.get)
    assert second != first
    hands["h"] = HandChunking("h", "plain", BASE.replace("40", "41"), (edit("split", 30),))
    assert chunk_set_id(config, "m", hands=hands.get) not in (first, second)  # a re-cut base is another set too


def test_a_stored_chunking_never_names_code(hands):
    hands["c"] = HandChunking("c", "mine", '{"name":"custom:os:system"}')
    with pytest.raises(ChunkerError, match="custom code"):
        chunker_spec(apply_chunker(ChunkConfig(), "edited:c"), hands.get)
    with pytest.raises(ChunkerError, match="no hand-made chunking called 'missing'"):
        chunker_spec(apply_chunker(ChunkConfig(), "edited:missing"), hands.get)
    with pytest.raises(ChunkerError, match="no hand-made chunking called 'c'"):  # no source: no chunking
        chunker_spec(apply_chunker(ChunkConfig(), "edited:c"))
