"""Which selection rule loses least to the winner's curse? (issue #38)

Reads cross-fitted advice runs (``workbench advise SET --folds K``) from a data folder: each kept every
configuration's per-question recall on every question (its score book) and its folds. For each selection rule
(``best``, ``one-se``, ``preset``) and each fold, the rule chooses on the other folds' questions and its pick is
scored on the fold's own (the advisor's own replay, ``core/evaluate/advise/rule_check``, which every cross-fitted
``advise`` report also prints for the candidates its folds' searches tried); the held folds together give the
rule's out-of-fold recall over every question, compared question by question with ``hybrid`` at the same budget
and with the ``best`` rule (paired sign-flip intervals, not adjusted). Two candidate sets per fold:

* ``search``: the configurations that fold's own search tried (the procedure as ``advise`` runs it);
* ``matrix``: every configuration any search of the run tried (the same matrix for every rule and fold).

    .venv/bin/python benchmarks/advise_rules.py --data-dir /tmp/advice [RUN ...] [--json]

Reading only: nothing is run and nothing is written.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workbench.core.evaluate.advise.book import ScoreBook
from workbench.core.evaluate.advise.optimise import Trial
from workbench.core.evaluate.advise.rule_check import replay_rules
from workbench.core.evaluate.advise.space import Space
from workbench.core.evaluate.advise.split import Folds
from workbench.core.evaluate.paired_tests import paired_tests
from workbench.core.evaluate.question_set import QuestionSet
from workbench.core.evaluate.records import list_runs, load_run
from workbench.core.workspace import Workspace


def _book(summary: dict[str, Any], indexes: list[int]) -> ScoreBook:
    """The run's score book over its questions (only indexes matter here: a stand-in question set)."""
    from workbench.core.evaluate.question_set import Question

    qset = QuestionSet(Path("."), [Question(i, "", "") for i in indexes], {}, {}, "")
    book = ScoreBook(qset)
    book.restore(summary["book"])
    return book


def _difference(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """``b − a`` recall in points with its 95% interval and p (paired sign-flip, over questions both cover)."""
    valid = ~np.isnan(a) & ~np.isnan(b)
    s = paired_tests(np.nan_to_num(a), np.nan_to_num(b), valid)[0]
    return {"diff": 100 * s["diff"], "low": 100 * s["ci_low"], "high": 100 * s["ci_high"], "p": s["p_value"]}


def compare_rules(ws: Workspace, run_id: str) -> dict[str, Any]:
    """Every rule's out-of-fold recall on one recorded cross-fitted run, for both candidate sets (the rules are
    replayed by the advisor's own ``rule_check.replay_rules``; here also against ``hybrid`` and per fold)."""
    info, results = load_run(ws, run_id)
    advice = info.config["advice"]
    folds, space = Folds.from_dict(advice["folds"]), Space.from_dict(advice["space"])
    everything = list(folds.everything())
    summary: dict[str, Any] = dict(info.summary)
    book = _book(summary, [int(i) for i in summary["book"]["questions"]])
    trials = [Trial.from_dict(t) for t in info.summary["trials"]]
    done = [t for t in trials if t.state == "done" and t.key in book]
    unique = list({t.key: t for t in done}.values())
    hybrid_rows = next(cr.rows for cr in results if cr.config.key.startswith("hybrid@"))
    position = {i: n for n, i in enumerate(everything)}
    hybrid = np.full(len(everything), math.nan)
    for r in hybrid_rows:
        if r.q_index in position and r.metrics.recall is not None:
            hybrid[position[r.q_index]] = r.metrics.recall
    out: dict[str, Any] = {"run": info.id, "set": info.config["dataset"]["name"], "budget": space.budget,
                           "folds": folds.k, "method": folds.method, "questions": len(everything),
                           "configurations": len(unique), "trials": len(done),
                           "hybrid": float(np.nanmean(hybrid)), "candidates": {}}
    pools = {"search": [[t for t in done if t.fold == f] for f in range(folds.k)], "matrix": [unique] * folds.k}
    for candidates, fold_trials in pools.items():
        by_rule: dict[str, Any] = {}
        for outcome in replay_rules(book, folds, fold_trials, space, "best"):
            oof = np.full(len(everything), math.nan)
            picks = []
            for f, (held, key) in enumerate(zip(folds.folds, outcome.picks, strict=True)):
                if not key:
                    continue
                held_list, train = list(held), list(folds.training(f))
                for i, v in zip(held_list, book.vector(key, held_list), strict=True):
                    oof[position[i]] = v
                held_recall, held_tokens, _ = book.mean(key, held_list)
                picks.append({"fold": f + 1, "pick": key, "chosen_on": len(train),
                              "in_sample": book.mean(key, train)[0], "held_out": held_recall,
                              "held_tokens": held_tokens})
            row: dict[str, Any] = {"out_of_fold_recall": outcome.recall, "tokens": outcome.tokens,
                                   "vs_hybrid": _difference(hybrid, oof), "picks": picks}
            d = outcome.versus_used
            if d is not None:
                row["vs_best"] = {"diff": 100 * d.diff, "low": 100 * d.ci_low, "high": 100 * d.ci_high, "p": d.p}
            by_rule[outcome.rule] = row
        out["candidates"][candidates] = by_rule
    return out


def _lines(report: dict[str, Any]) -> list[str]:
    out = [f"{report['set']} at {report['budget']} tokens: run {report['run']}, {report['folds']} folds "
           f"({report['method']}), {report['questions']} questions, {report['configurations']} configurations "
           f"({report['trials']} trials); hybrid {100 * report['hybrid']:.1f}"]
    for candidates, by_rule in report["candidates"].items():
        out.append(f"  candidates: {candidates}")
        for rule, r in by_rule.items():
            vh = r["vs_hybrid"]
            line = (f"    {rule:<7} out-of-fold {100 * r['out_of_fold_recall']:5.1f} @ {r['tokens']:4.0f} tokens; "
                    f"vs hybrid {vh['diff']:+.1f} [{vh['low']:+.1f}, {vh['high']:+.1f}] p={vh['p']:.3f}")
            if "vs_best" in r:
                vb = r["vs_best"]
                line += f"; vs best {vb['diff']:+.1f} [{vb['low']:+.1f}, {vb['high']:+.1f}] p={vb['p']:.3f}"
            out.append(line)
            for p in r["picks"]:
                out.append(f"      fold {p['fold']}: {p['pick']} — chosen on {p['chosen_on']} questions "
                           f"({100 * p['in_sample']:.1f} in-sample), held out {100 * p['held_out']:.1f} "
                           f"@ {p['held_tokens']:.0f}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="*", help="advice run ids (default: every cross-fitted one in the folder)")
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    ws = Workspace(Path(args.data_dir))
    try:
        ids = args.runs or [r.id for r in list_runs(ws) if r.kind == "advice" and r.summary.get("state") == "done"
                            and r.summary.get("book") and r.config.get("advice", {}).get("folds")]
        reports = [compare_rules(ws, i) for i in ids]
    finally:
        ws.close()
    if args.json:
        print(json.dumps(reports, indent=1))
    else:
        for report in reports:
            print("\n".join(_lines(report)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
