"""Cross-fitting: how well the advisor's *procedure* does on questions it did not choose on, using every question
once for that, then the final pick chosen on all questions.

The questions are dealt into K folds (``split.fold_questions``: whole documents together when there are enough).
For each fold the search (``optimise.Search``) and the selection rule (``selection.choose``) read only the other
folds' questions; the configuration chosen is then run on the held fold. Every question is held exactly once, so
the held folds' results together are the procedure's **out-of-fold** objective (recall unless asked otherwise; "recall"
in what follows) over all questions, at its mean
context tokens, compared question by question with ``plain`` and ``hybrid`` at the same budget (Holm-adjusted).
The folds' picks show how stable the choice is (how many folds chose the same chunker, the same expansion), and
every selection rule is replayed on the same folds from the figures already kept (``rule_check``).

A configuration runs once on every question and its figures are kept in a ``ScoreBook`` shared by the folds'
searches (and its chunk sets by everything): a fold's search reads only its training questions' figures from it.
A last search on all questions, with the same rule, gives the **final pick**, which is saved; its recall on all
questions is in-sample (it was chosen on them) and is labelled so. The headline figure is the out-of-fold one.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from workbench.core.evaluate.advise.book import ScoreBook
from workbench.core.evaluate.advise.confirm import BASELINES, ConfirmRow, fixed_rows, versus_hybrid
from workbench.core.evaluate.advise.objective import DEFAULT_OBJECTIVE, RECALL, Objective
from workbench.core.evaluate.advise.optimise import Trial, done_trials
from workbench.core.evaluate.advise.rule_check import RuleOutcome, book_reader, replay_rules, rules_line
from workbench.core.evaluate.advise.selection import Selection, choose
from workbench.core.evaluate.advise.space import Space
from workbench.core.evaluate.advise.split import Folds, document_of
from workbench.core.evaluate.baseline import holm_adjust
from workbench.core.evaluate.question_set import QuestionSet
from workbench.core.evaluate.statistics import PairedComparison, compare_paired, format_p
from workbench.core.evaluate.sweep import QuestionResult, SweepConfig, SweepResult, run_sweep
from workbench.core.jobs import CancelToken

if TYPE_CHECKING:
    from workbench.core.evaluate.needs import EvalWorkspace

FINAL = "final pick"


@dataclass
class FoldRow:
    """One fold: what its search chose on the other folds' questions (in-sample there) and how that did on the
    fold's own questions (held out)."""

    fold: int  # 0-based
    questions: int
    documents: int
    pick: str
    params: dict[str, Any]
    how: str
    trials: int
    fit_score: float | None  # the objective on the other folds' questions: in-sample
    fit_tokens: float | None
    held_score: float
    held_tokens: float

    def to_dict(self, objective: str = DEFAULT_OBJECTIVE) -> dict[str, Any]:
        """JSON-ready (the objective's figures under its name, ``in_sample_recall`` …; a rate as a fraction
        0-1)."""
        return {"fold": self.fold + 1, "questions": self.questions, "documents": self.documents, "pick": self.pick,
                "params": self.params, "how": self.how, "trials": self.trials,
                f"in_sample_{objective}": _clean(self.fit_score), "in_sample_tokens": _clean(self.fit_tokens),
                f"held_out_{objective}": _clean(self.held_score), "held_out_tokens": _clean(self.held_tokens)}


def _clean(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else x


@dataclass
class CrossFit:
    """The cross-fitted report (see the module docstring)."""

    folds: Folds
    rule: str
    rows: list[FoldRow]
    score: float  # the objective out-of-fold, over every question
    tokens: float
    questions: int
    comparisons: dict[str, PairedComparison]  # baseline key → out-of-fold procedure vs baseline (Holm)
    stability: dict[str, tuple[str, int]]  # "chunker" / "expansion" → (most chosen, by how many folds)
    final: Selection
    table: list[ConfirmRow]  # on all questions: the final pick (in-sample), the baselines, the reference
    references: dict[str, PairedComparison]  # each table row but hybrid → against hybrid, unadjusted
    pick: ConfirmRow
    verdict: str
    sweep: SweepResult
    out_of_fold: list[QuestionResult] = field(default_factory=list)
    book: ScoreBook | None = field(default=None, repr=False)  # every figure read, and by whom (``reads``)
    rules: list[RuleOutcome] = field(default_factory=list)  # every rule replayed on these folds (``rule_check``)
    objective: Objective = RECALL

    @property
    def measured_on(self) -> str:
        """What the headline figure is: ``out-of-fold, 5 folds over 472 questions``."""
        return f"out-of-fold, {self.folds.k} folds over {self.questions} questions"

    def stability_line(self) -> str:
        """``folds chose the same chunker 4 of 5 (fixed), the same expansion 3 of 5 (multi-granularity)``."""
        parts = [f"the same {what} {n} of {self.folds.k} ({value})" for what, (value, n) in self.stability.items()]
        return "folds chose " + ", ".join(parts) if parts else "no fold chose anything"

    def lines(self) -> list[str]:
        """The folds, the out-of-fold comparison, the table on all questions and the verdict, as text."""
        head = (f"{'fold':>4} {'questions':>9} {'pick (chosen on the other folds)':<52} {'in-sample':>9} "
                f"{'held-out':>8} {'tokens':>6}")
        o = self.objective
        out = [f"cross-fitting: {self.folds.describe()}; rule {self.rule}", head, "-" * len(head)]
        for r in self.rows:
            fit = "" if r.fit_score is None else o.figure(r.fit_score)
            out.append(f"{r.fold + 1:>4} {r.questions:>9} {r.pick[:52]:<52} {fit:>9} {o.figure(r.held_score):>8} "
                       f"{r.held_tokens:>6.0f}")
        out.append(self.stability_line())
        out.append(f"out-of-fold {o.label} of the procedure ({self.measured_on}): {o.figure(self.score)} at "
                   f"{self.tokens:.0f} mean context tokens")
        levels = [c.metrics[o.name].ci_level for c in self.comparisons.values()]
        level = min((x for x in levels if x is not None and not math.isnan(x)), default=None)
        out.append(f"against the baselines on the same questions (A = baseline, B = out-of-fold; "
                   f"{len(self.comparisons)} comparisons, p-values Holm-adjusted"
                   f"{f', intervals at {100 * (1 - level):.3g}%' if level else ''}):")
        for base, comp in self.comparisons.items():
            out.append(f"  [{base}]")
            out += [f"    {comp.metrics[m].sentence()}" for m in (o.name, "context_tokens")]
        versus = "vs hybrid (points)" if o.percent else "vs hybrid"
        head = f"{'configuration':<52} {'role':<28} {o.label:>7} {'tokens':>7} {versus:>24}"
        out += [f"all {self.questions} questions (the final pick's figures are in-sample: it was chosen on them; "
                "differences unadjusted)", head, "-" * len(head)]
        for row in self.table:
            found = self.references.get(row.key)
            diff = versus_hybrid(found, o) if found is not None else \
                ("(itself)" if row.key.startswith("hybrid@") else "")
            out.append(f"{row.key[:52]:<52} {row.role:<28} {o.figure(row.score):>7} {row.tokens:>7.0f} {diff:>24}")
        if self.rules:
            out.append(rules_line(self.rules, self.rule, o))
        out.append(f"verdict: {self.verdict}")
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready; the headline under ``out_of_fold_recall`` / ``out_of_fold_tokens`` (the objective's name
        in place of ``recall``: ``out_of_fold_iou``)."""
        name = self.objective.name
        return {"objective": name, "folds": self.folds.to_dict(), "rule": self.rule,
                f"out_of_fold_{name}": _clean(self.score),
                "out_of_fold_tokens": _clean(self.tokens), "questions": self.questions,
                "measured_on": self.measured_on, "fold_rows": [r.to_dict(name) for r in self.rows],
                "comparisons": {b: c.to_dict() for b, c in self.comparisons.items()},
                "stability": {k: {"value": v, "folds": n, "of": self.folds.k} for k, (v, n) in self.stability.items()},
                "final": self.final.to_dict(), "rows": [r.to_dict(name) for r in self.table],
                "reference_comparisons": {k: c.to_dict() for k, c in self.references.items()},
                "pick": self.pick.key, "verdict": self.verdict,
                "rules": [o.to_dict(name) for o in self.rules],
                "rules_line": rules_line(self.rules, self.rule, self.objective) if self.rules else "",
                "out_of_fold_questions": [{"q_index": r.q_index, name: self.objective.metric.value(r.metrics),
                                           "tokens": r.metrics.context_tokens} for r in self.out_of_fold]}


def fill_book(ws: EvalWorkspace, book: ScoreBook, trials: Sequence[Trial], space: Space,
              cancel: CancelToken | None = None) -> None:
    """Run on every question the trials done whose figures the book lacks (a resumed run's older trials)."""
    missing = list({t.key: t for t in done_trials(trials) if t.key not in book}.values())
    if missing:
        sweep = run_sweep(ws, book.qset, [SweepConfig(t.key, space.strategy(t.params), "advise", dict(t.params))
                                          for t in missing], None, cancel)
        for cr in sweep.results:
            book.add(cr.config.key, cr)


def cross_fit(ws: EvalWorkspace, qset: QuestionSet, folds: Folds, book: ScoreBook, fold_trials: Sequence[list[Trial]],
              final_trials: list[Trial], space: Space, rule: str, seed: int = 0,
              cancel: CancelToken | None = None) -> CrossFit:
    """Choose per fold on the other folds, score on the held fold, choose the final pick on all questions and
    compare (see the module docstring), all on the book's objective. ``fold_trials[f]``: fold ``f``'s search;
    ``final_trials``: the search on all questions."""
    o = book.objective
    fill_book(ws, book, [t for ts in [*fold_trials, final_trials] for t in ts], space, cancel)
    hybrid = f"hybrid@{space.budget}"
    fixed = fixed_rows(space.budget)
    rows: list[FoldRow] = []
    out_of_fold: list[QuestionResult] = []
    picks: list[Trial | None] = []
    for f, held in enumerate(folds.folds):
        train = folds.training(f)
        selection = choose(rule, fold_trials[f], book_reader(book, train, f"fold {f + 1}"), space, seed, o)
        pick = selection.ranked[0] if selection.ranked else None
        picks.append(pick)
        strategy = space.strategy(pick.params) if pick else next(s for k, _, s in fixed if k == hybrid)
        key = pick.key if pick else hybrid
        result = run_sweep(ws, qset.subset(indexes=held), [SweepConfig(key, strategy, "advise")], None, cancel)
        held_rows = result.results[0].rows
        out_of_fold += held_rows
        s = result.results[0].summary
        documents = len({document_of(q) for q in qset.questions if q.index in set(held)})
        rows.append(FoldRow(f, len(held), documents, key, dict(pick.params) if pick else {},
                            selection.how("the other folds") if pick else "nothing was tried: the hybrid baseline",
                            len(done_trials(fold_trials[f])), pick.score if pick else None,
                            pick.tokens if pick else None, s[o.name].mean, s["context_tokens"].mean))
    everything = folds.everything()
    final = choose(rule, final_trials, book_reader(book, everything, "all questions"), space, seed, o)
    configs = [SweepConfig(key, strategy, role) for key, role, strategy in fixed]
    if final.ranked:
        top = final.ranked[0]
        configs.insert(0, SweepConfig(f"{FINAL}: {top.key}", space.strategy(top.params), FINAL, dict(top.params)))
    sweep = run_sweep(ws, qset, configs, None, cancel)
    by_key = {cr.config.key: cr for cr in sweep.results}
    table = [ConfirmRow(cr.config.key, "final pick (in-sample)" if cr.config.base == FINAL else cr.config.base,
                        cr.config.strategy, cr.summary[o.name].mean, cr.summary["context_tokens"].mean,
                        params=dict(cr.config.params)) for cr in sweep.results]
    compared = (o.name, "context_tokens")
    comparisons = {f"{b}@{space.budget}": compare_paired(by_key[f"{b}@{space.budget}"].rows, out_of_fold,
                                                          compared, seed=seed) for b in BASELINES}
    holm_adjust(list(comparisons.values()))
    references = {r.key: compare_paired(by_key[hybrid].rows, by_key[r.key].rows, compared,
                                        seed=seed) for r in table if r.key != hybrid}
    chunkers = Counter(p.params["chunker"] for p in picks if p is not None)
    expansions = Counter(p.params["expansion"] for p in picks if p is not None)
    stability = {what: counter.most_common(1)[0] for what, counter in (("chunker", chunkers),
                                                                        ("expansion", expansions)) if counter}
    counted = [v for v in (o.metric.value(r.metrics) for r in out_of_fold) if v is not None]
    score = float(sum(counted) / max(1, len(counted)))
    tokens = float(sum(r.metrics.context_tokens for r in out_of_fold) / max(1, len(out_of_fold)))
    rules = replay_rules(book, folds, fold_trials, space, rule, seed)
    report = CrossFit(folds, rule, rows, score, tokens, len(out_of_fold), comparisons, stability, final, table,
                      references, table[0], "", sweep, out_of_fold, book, rules, o)
    report.pick, report.verdict = _verdict(report, space.budget)
    return report


def _against(comp: PairedComparison, base: str, objective: Objective) -> str:
    m = comp.metrics[objective.name]
    figures = f"{objective.difference(m.diff)}, CI {objective.interval(m.ci_low, m.ci_high)}, {format_p(m.p)}"
    word = {"B better": "better than", "A better": "worse than"}.get(m.verdict, "not distinguishable from")
    return f"{word} {base} ({figures})"


def _verdict(report: CrossFit, budget: int) -> tuple[ConfirmRow, str]:
    """``(what is saved, the verdict)``: the final pick, unless the procedure's out-of-fold objective is worse than
    a baseline's (then the better such baseline); nothing tried: the hybrid baseline."""
    by_key = {r.key: r for r in report.table}
    hybrid = by_key[f"hybrid@{budget}"]
    o = report.objective
    if not report.final.ranked:
        return hybrid, (f"no configuration could be tried in the time limit; {hybrid.key} is the pick "
                        f"({o.figure(hybrid.score)} {o.label} at {hybrid.tokens:.0f} tokens on {report.questions} "
                        "questions)")
    top = report.table[0]
    headline = (f"the procedure's out-of-fold {o.label} is {o.figure(report.score)} at {report.tokens:.0f} tokens "
                f"({report.measured_on}, rule {report.rule}): "
                + "; ".join(_against(c, b, o) for b, c in report.comparisons.items()))
    final = (f"the final pick, chosen on all {report.questions} questions, is {top.key[len(FINAL) + 2:]}: "
             f"{report.final.how('all questions')}")
    worse = [b for b, c in report.comparisons.items() if c.metrics[o.name].verdict == "A better"]
    if worse:
        fallback = max((by_key[b] for b in worse), key=lambda r: r.score)
        return fallback, f"{headline}; {report.stability_line()}; {final}, but {fallback.key} is the pick"
    return top, f"{headline}; {report.stability_line()}; {final}"
