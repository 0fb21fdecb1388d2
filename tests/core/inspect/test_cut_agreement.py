"""Two chunkings' cuts compared: the figures against a direct computation on constructed cut lists, the
loaded-set comparison, and ``workbench cuts diff`` with the hashed embedder."""

from __future__ import annotations

import csv
import json
import random

import pytest

from workbench.core.ingest.cut_agreement import (
    CutDiff,
    agreeing_cuts,
    chunk_cuts,
    combine_diffs,
    compare_cuts,
    diff_line,
)

GUIDE = "# Guide\n\n" + "\n\n".join(
    f"## {t.title()}\n\n" + " ".join(f"The {t} note {n} says the {t} is checked daily." for n in range(12))
    for t in ["harbour", "glacier", "orchard"])


def _max_matching(a: list[int], b: list[int], within: int) -> int:
    """The most one-to-one pairs within ``within``, by augmenting paths (Kuhn): the direct computation."""
    owner: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for j, y in enumerate(b):
            if abs(a[i] - y) <= within and j not in seen:
                seen.add(j)
                if j not in owner or augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    return sum(augment(i, set()) for i in range(len(a)))


def test_a_constructed_pair_of_cut_lists():
    a = [100, 200, 300, 410]
    b = [95, 215, 221, 330, 600]
    refs = [(90, 110), (210, 230), (250, 290), (320, 340), (405, 420), (500, 500)]
    d = compare_cuts(a, b, refs, within=20)
    # 100~95 (5), 200~215 (15; 221 is 21 away, and 215 is taken), 300 and 330 are 30 apart, 410 and 600 alone
    assert d.pairs == ((100, 95), (200, 215))
    assert (d.diff.a_cuts, d.diff.b_cuts, d.diff.agreeing) == (4, 5, 2)
    assert d.diff.agreement == pytest.approx(2 * 2 / 9)
    # (90,110): 100 and 95 inside → both; (210,230): 215, 221 → B only; (250,290): neither;
    # (320,340): 330 → B only; (405,420): 410 → A only; the empty span is no reference
    assert (d.diff.references, d.diff.split_a_only, d.diff.split_b_only, d.diff.split_both,
            d.diff.split_neither) == (5, 1, 2, 1, 1)
    assert compare_cuts(a, b, within=30).diff.agreeing == 3, "300~330 agree at 30 characters"


def test_a_cut_on_a_reference_edge_does_not_split_it():
    d = compare_cuts([10, 20], [], [(10, 20)])
    assert (d.diff.split_a_only, d.diff.split_neither) == (0, 1)
    assert compare_cuts([11], [], [(10, 20)]).diff.split_a_only == 1


def test_cuts_are_chunk_starts_after_the_first_whatever_the_order_or_overlap():
    assert chunk_cuts([(50, 90), (0, 50), (90, 120)]) == [50, 90]
    assert chunk_cuts([(0, 60), (40, 100), (80, 120)]) == [40, 80], "overlapping chunks cut where each begins"
    assert chunk_cuts([(3, 10)]) == [] and chunk_cuts([]) == []


def test_the_sweep_pairs_as_many_cuts_as_a_maximum_matching():
    rng = random.Random(7)
    for _ in range(300):
        a = sorted(rng.sample(range(200), rng.randint(0, 12)))
        b = sorted(rng.sample(range(200), rng.randint(0, 12)))
        within = rng.randint(0, 25)
        pairs = agreeing_cuts(a, b, within)
        assert len(pairs) == _max_matching(a, b, within)
        assert all(abs(x - y) <= within for x, y in pairs)
        assert len({x for x, _ in pairs}) == len(pairs) == len({y for _, y in pairs})
    with pytest.raises(ValueError):
        agreeing_cuts([1], [2], -1)


def test_documents_add_up_and_the_line_says_the_figures():
    one = compare_cuts([10, 50], [12], [(5, 15)]).diff
    two = compare_cuts([], [40], [(30, 45)]).diff
    total = combine_diffs([one, two])
    assert total == CutDiff(2, 2, 1, 2, 0, 1, 1, 0)
    assert total.agreement == 0.5 and CutDiff().agreement is None
    assert diff_line(total, 20) == ("cuts A 2 · B 2 · 1 agree within 20 chars (50%) · references split by "
                                    "A only 0, B only 1, both 1, neither 0")


def test_two_loaded_sets_compared_per_document(hash_ws, tmp_path):
    from workbench.core.ingest.values import ChunkConfig
    from workbench.core.inspect.cut_compare import set_cut_diff, set_cuts
    from workbench.core.spans import Span

    for name in ("a", "b"):
        (tmp_path / f"{name}.md").write_text(GUIDE.replace("Guide", name.upper()))
    assert not hash_ws.add_paths([str(tmp_path / "a.md"), str(tmp_path / "b.md")]).failed
    rt_a = hash_ws.sets.runtime(hash_ws.sets.ensure_chunk_set(ChunkConfig(size=40)).id)
    rt_b = hash_ws.sets.runtime(hash_ws.sets.ensure_chunk_set(ChunkConfig(unit="sentences", size=2)).id)
    doc_ids = sorted(rt_a.doc_first_row)
    refs = [Span(doc_ids[0], 30, 400), Span(doc_ids[1], 0, 5)]
    diff = set_cut_diff(rt_a, rt_b, references=refs)
    assert sorted(diff.documents) == doc_ids
    for d in doc_ids:
        first, end = rt_a.doc_rows(d)
        starts = sorted(rt_a.table.starts[first:end].tolist())
        assert set_cuts(rt_a, d) == starts[1:]
        direct = compare_cuts(set_cuts(rt_a, d), set_cuts(rt_b, d),
                              [(s.start, s.end) for s in refs if s.doc_id == d])
        assert diff.documents[d] == direct
    assert diff.total == combine_diffs(c.diff for c in diff.documents.values())
    assert diff.total.references == 2 and diff.total.split_both == 1 and diff.total.split_neither == 1
    same = set_cut_diff(rt_a, rt_a, within=0)
    assert same.total.agreement == 1.0, "a chunking agrees with itself at 0 characters"


def test_cli_cuts_diff(capsys, tmp_path, hash_cli):
    from cli_support import run_cli

    (tmp_path / "guide.md").write_text(GUIDE)
    data = tmp_path / "data"
    a, b = "neighbours", '{"chunk": {"chunker": {"name": "sentence", "size": 2}}}'
    code, _out, err = run_cli(capsys, "cuts", "diff", a, b, "--data-dir", data, "--quiet")
    assert code != 0 and "index" in err and not data.exists(), "a read-only command creates nothing"
    assert run_cli(capsys, "index", tmp_path / "guide.md", "--data-dir", data, "--quiet")[0] == 0
    code, out, err = run_cli(capsys, "cuts", "diff", a, b, "--data-dir", data, "--quiet", "--json",
                             "--within", "15")
    assert code == 0, err
    record = json.loads(out)
    (doc,) = record["documents"]
    direct = compare_cuts(doc["a"], doc["b"], within=15).diff
    assert record["overall"] == direct.as_dict() and record["within"] == 15
    assert doc["agreeing_pairs"] == [list(p) for p in compare_cuts(doc["a"], doc["b"], within=15).pairs]
    assert record["b"]["chunk_set"] == "2 sentences" and direct.b_cuts > direct.a_cuts > 0
    code, out, err = run_cli(capsys, "cuts", "diff", a, b, "--data-dir", data, "--quiet", "--doc", "guide.md")
    assert code == 0, err
    assert out.splitlines()[2] == f"overall (1 document(s)): {diff_line(compare_cuts(doc['a'], doc['b']).diff, 20)}"
    assert "guide.md: cuts A" in out
    # with a question set: one reference inside a sentence chunk, one across three sentences
    qset = tmp_path / "qset"
    (qset / "corpora").mkdir(parents=True)
    (qset / "corpora" / "guide.md").write_text(GUIDE)
    one = GUIDE.index("The orchard note 3")
    three = GUIDE.index("The glacier note 4")
    spans = [(one, GUIDE.index(".", one) + 1), (three, GUIDE.index("note 7", three))]
    refs = [{"content": GUIDE[s:e], "start_index": s, "end_index": e} for s, e in spans]
    with open(qset / "questions.csv", "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows([["question", "references", "corpus_id"], ["When?", json.dumps(refs), "guide"]])
    code, out, err = run_cli(capsys, "cuts", "diff", a, b, "--data-dir", data, "--quiet", "--json",
                             "--questions", qset)
    assert code == 0, err
    record = json.loads(out)
    (doc,) = record["documents"]
    assert record["overall"] == compare_cuts(doc["a"], doc["b"], spans).diff.as_dict()
    assert record["overall"]["references"] == 2
    assert record["overall"]["split_b_only"] + record["overall"]["split_both"] >= 1, "B cuts between sentences"
    for bad in (["nonesuch", a], [a, b, "--doc", "missing.md"], [a, b, "--within", "-1"],
                [a, b, "--questions", tmp_path / "missing"]):
        code, _out, err = run_cli(capsys, "cuts", "diff", *bad, "--data-dir", data, "--quiet")
        assert code != 0 and err.count("\n") == 1, err


def test_a_reference_is_split_exactly_when_a_cut_lies_strictly_inside():
    from workbench.core.ingest.cut_agreement import splits

    rng = random.Random(3)
    for _ in range(500):
        cuts = sorted(rng.sample(range(60), rng.randint(0, 8)))
        start = rng.randint(0, 59)
        end = rng.randint(start, 60)
        assert splits(cuts, start, end) == any(start < c < end for c in cuts)
