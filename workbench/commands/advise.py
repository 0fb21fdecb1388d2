"""``workbench advise``: the best strategy for one question set's corpus at a context budget, judged on questions
it was not chosen on (cross-fitted over K folds, or fit/confirm halves with ``--folds 2``), saved as a named
strategy in the data folder (``core.evaluate.advise``)."""

from __future__ import annotations

import argparse
import re
import time
from typing import TYPE_CHECKING

from workbench.commands.cluster_options import add_cluster_options
from workbench.commands.common import (
    UserError,
    add_common,
    add_yes,
    emit,
    open_workspace,
    progress_printer,
    say,
    whole_number,
)
from workbench.core.evaluate.advise.objective import DEFAULT_OBJECTIVE, objective_for, objective_names
from workbench.core.evaluate.advise.rules import DEFAULT_RULE, RULES
from workbench.core.evaluate.advise.space import CHUNKERS, EXPANSIONS, SEARCHES, SIZES, TOP_KS, Space
from workbench.core.evaluate.advise.split import DEFAULT_FOLDS, default_folds

if TYPE_CHECKING:
    from workbench.core.evaluate.advise.advice import AdvicePlan

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(min|sec|h|m|s)?", re.IGNORECASE)
_UNITS = {None: 1, "s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600}


def parse_duration(text: str) -> float:
    """Seconds from ``1800``, ``90s``, ``5m``, ``1h30m`` or ``1.5h``; an ``ArgumentTypeError`` otherwise."""
    value = text.strip().lower().replace(" ", "")
    pos, total = 0, 0.0
    while pos < len(value):
        m = _DURATION.match(value, pos)
        if not m or m.end() == pos:
            break
        total += float(m.group(1)) * _UNITS[m.group(2)]
        pos = m.end()
    if not value or pos != len(value) or total <= 0:
        raise argparse.ArgumentTypeError(f"a time limit is seconds or a duration such as 90s, 5m or 1h30m, "
                                         f"not {text!r}")
    return total


def _names(text: str, allowed: tuple[str, ...], what: str) -> tuple[str, ...]:
    values = tuple(v.strip() for v in text.split(",") if v.strip())
    unknown = [v for v in values if v not in allowed]
    if unknown or not values:
        raise argparse.ArgumentTypeError(f"{what}: {', '.join(unknown) or 'none given'}; choose from "
                                         f"{', '.join(allowed)}")
    return values


def _objective(text: str) -> str:
    try:
        return objective_for(text.strip()).name
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _numbers(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"whole numbers separated by commas, not {text!r}") from None
    if not values:
        raise argparse.ArgumentTypeError("give at least one number")
    return values


def _space(args: argparse.Namespace) -> Space:
    try:
        return Space(args.chunkers or Space.chunkers, args.sizes or Space.sizes, args.searches or Space.searches,
                     args.expansions or Space.expansions, args.top_k or Space.top_ks, args.budget)
    except ValueError as exc:
        raise UserError(str(exc)) from None


def check_plan_size(plan: AdvicePlan, confirmed: bool) -> None:
    """An advice plan whose time limit is over ``ADVICE_UNASKED_S``, or whose confirm half alone would
    overrun the limit, is refused without ``--yes`` (its estimate was printed just before)."""
    from workbench.core.evaluate.advise.advice import ADVICE_UNASKED_S, confirm_reserve
    from workbench.core.index.estimate import about, duration

    if confirmed:
        return
    reserve = confirm_reserve(plan, len(plan.halves()[1].questions))
    if plan.time_limit_s > ADVICE_UNASKED_S:
        raise UserError(f"this advice run may take up to {duration(plan.time_limit_s)} (its time limit); more than "
                        f"{duration(ADVICE_UNASKED_S)} needs --yes to start")
    if reserve > max(plan.time_limit_s, 600.0):
        raise UserError(f"the confirm half alone needs {about(reserve)}, more than the time limit of "
                        f"{duration(plan.time_limit_s)}; add --yes to start anyway, or choose a smaller space")


def run_advise(args: argparse.Namespace) -> int:
    from workbench.commands.question_sources import check_dataset, load_dataset
    from workbench.core.evaluate.advise.advice import plan_advice, resume_advice, run_advice
    from workbench.core.evaluate.datasets import DatasetError
    from workbench.core.retrieve.strategy.presets import check_saved_name

    if not args.resume and not args.dataset:
        raise UserError("give a question set (a bundled name or a folder), or --resume RUN")
    if args.dataset:
        check_dataset(args, args.dataset)
    if args.name:
        try:
            check_saved_name(args.name)
        except ValueError as exc:
            raise UserError(str(exc)) from None
    progress = progress_printer(args.quiet)
    out = (lambda line: say(line, err=True)) if args.json else say
    started = time.monotonic()  # the plan counts in the time limit
    ws = open_workspace(args)
    try:
        if args.resume:
            result = resume_advice(ws, args.resume, args.time_limit, progress, objective_name=args.objective)
        else:
            qset = load_dataset(args, ws, args.dataset, args.reviewed_only).subset(args.limit, args.corpus)
            folds = args.folds if args.folds is not None else default_folds(qset, args.seed)
            try:
                plan = plan_advice(ws, qset, _space(args), args.seed, args.time_limit or 1800.0, args.name or "",
                                   progress=progress, folds=folds, rule=args.rule,
                                   objective_name=args.objective or DEFAULT_OBJECTIVE)
            except ValueError as exc:
                raise UserError(str(exc)) from None
            for line in plan.lines():
                out(line)
            if args.plan_only:
                if args.json:
                    emit(args, {"plan": plan.lines()}, "")
                return 0
            check_plan_size(plan, args.yes)
            result = run_advice(ws, plan, progress, started=started)
    except (DatasetError, KeyError) as exc:
        raise UserError(str(exc.args[0] if exc.args else exc)) from None
    except KeyboardInterrupt:
        say("advice stopped; it is recorded and resumes with: workbench advise --resume last", err=True)
        raise
    emit(args, result.to_dict(), "\n".join(result.lines()))
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("advise", help="find the best strategy for a question set's corpus at a context budget, "
                                      "judged on questions it was not chosen on (cross-fitted folds)")
    p.add_argument("dataset", nargs="?", metavar="DATASET",
                   help="question set: a folder in Chroma format, a set stored in the data folder (see workbench "
                        "questions list), or a bundled name (see workbench datasets)")
    p.add_argument("--reviewed-only", action="store_true",
                   help="a stored set: leave out the drafts nobody reviewed (workbench questions review)")
    p.add_argument("--budget", type=whole_number(0), default=1000,
                   help="context budget in tokens every configuration runs at (default 1000)")
    p.add_argument("--time-limit", type=parse_duration, default=None, metavar="DURATION",
                   help="how long to search: seconds or a duration such as 90s, 5m or 1h30m (default 30m; with "
                        "--resume: the recorded limit) for the whole run, every fold included; the time to score the "
                        "picks and baselines afterwards is kept aside within it")
    p.add_argument("--seed", type=whole_number(0, 2**32 - 1), default=0,
                   help="seed of the folds (or the fit/confirm split) and the optimiser (default 0)")
    p.add_argument("--folds", type=whole_number(2, 20), default=None, metavar="K",
                   help=f"cross-fit over K folds: each fold's search and selection read only the other folds' "
                        f"questions and its pick is scored on the fold's own, giving the out-of-fold recall of the "
                        f"procedure; then the final pick is chosen on all questions (default {DEFAULT_FOLDS}, or 2 "
                        f"when the set is too small for them; 2: choose on one half, confirm on the other)")
    p.add_argument("--rule", choices=RULES, default=DEFAULT_RULE,
                   help="how the pick is chosen from the configurations tried: best (the best objective, recall unless "
                        "--objective says otherwise), one-se (the "
                        "simplest within one paired standard error of the best) or preset (the best preset unless "
                        f"the best is distinguishably better) (default {DEFAULT_RULE}; see docs/evaluation.md)")
    p.add_argument("--objective", type=_objective, default=None, metavar="METRIC",
                   help=f"the registered metric the advisor maximises, per question, and judges the pick on against "
                        f"the baselines: {', '.join(objective_names())} (default {DEFAULT_OBJECTIVE}; with --resume: "
                        f"the recorded one); the report, verdict and JSON name it")
    p.add_argument("--name", help="save the pick under this name (default advised-SETNAME); use it as --strategy "
                                  "NAME")
    p.add_argument("--chunkers", type=lambda t: _names(t, CHUNKERS, "--chunkers"), metavar="A,B,...",
                   help=f"chunkers to try (default: every one installed of {', '.join(CHUNKERS)})")
    p.add_argument("--sizes", type=_numbers, metavar="N,N,...",
                   help=f"chunk sizes in tokens (default {','.join(map(str, SIZES))})")
    p.add_argument("--searches", type=lambda t: _names(t, SEARCHES, "--searches"), metavar="dense,hybrid",
                   help="first stages to try (default dense,hybrid)")
    p.add_argument("--expansions", type=lambda t: _names(t, EXPANSIONS, "--expansions"), metavar="A,B,...",
                   help=f"expansions to try (default {','.join(EXPANSIONS)})")
    p.add_argument("--top-k", type=_numbers, metavar="N,N,...",
                   help=f"top-k values to try (default {','.join(map(str, TOP_KS))})")
    p.add_argument("--corpus", action="append", metavar="ID",
                   help="only this corpus's questions and documents (repeatable)")
    p.add_argument("--limit", type=whole_number(1), help="only the first N questions")
    p.add_argument("--resume", metavar="RUN", help="continue a recorded advice run (its split, space, seed and "
                                                   "trials; 'last' for the newest advice run)")
    p.add_argument("--plan-only", action="store_true", help="show what would be tried and its cost, then stop")
    add_yes(p)
    add_common(p)
    add_cluster_options(p)
    p.set_defaults(func=run_advise)
