"""``workbench ask``: answer a question from the corpus with a local model; ``workbench models``: list the
answering backends and their models."""

from __future__ import annotations

import argparse

from workbench.commands.common import UserError, add_common, emit, open_workspace, progress_printer, say, whole_number
from workbench.commands.llm_options import add_llm_options, check_llm_host, llm_choice, open_llm
from workbench.commands.search import add_strategy_options, strategy_from_args
from workbench.core.jobs import CancelToken


def run_ask(args: argparse.Namespace) -> int:
    from workbench.core.answer.answering import answer, prepare
    from workbench.core.answer.citations import source_lines
    from workbench.core.llm import LLMError
    from workbench.core.llm.no_model import is_extractive

    if args.max_tokens < 1 or args.context_budget < 0:
        raise UserError("--max-tokens must be at least 1 and --context-budget not negative")
    strategy = strategy_from_args(args)
    choice = llm_choice(args)
    check_llm_host(choice)
    ws = open_workspace(args, existing=True)
    if not ws.records.documents():
        raise UserError("the corpus is empty: index documents first with 'workbench index PATH'")
    backend = open_llm(choice, needs="")
    ws.use_llm(lambda: backend)  # rerank / summaries use the same backend
    if not args.quiet:
        say(f"answering with {backend.label}", err=True)
    cancel = CancelToken()
    stream = None if args.json else (lambda piece: say(piece, end="", flush=True))
    try:
        prompt, warnings = prepare(ws, args.question, strategy, backend, args.max_tokens, args.context_budget,
                                   progress_printer(args.quiet))
        result = answer(prompt, backend, args.max_tokens, 0.0, stream, cancel, warnings, ws=ws)
    except LLMError as exc:
        raise UserError(str(exc)) from None
    except KeyboardInterrupt:  # Ctrl-C while streaming: end the partial answer's line first
        if not args.json:
            say(flush=True)
        raise
    if args.json:
        emit(args, result.to_dict(), "")
        return 0
    say()
    lines = source_lines(result.citations)
    say("\nSources:" if lines else "\nSources: (the answer cites no passage)")
    for line in lines:
        say(f"  {line}")
    s = result.stats
    ttft = f"{s.time_to_first_token_s:.2f}" if s.time_to_first_token_s is not None else "-"
    if is_extractive(backend):
        say(f"\n{len(prompt.passages)} passage(s); {len(result.citations)} sentence(s) quoted; tokens n/a "
              f"(no language model); total {s.total_s:.2f} s; {s.backend} ({s.model})")
    else:
        say(f"\n{len(prompt.passages)} passage(s), {prompt.context_tokens} context tokens; "
              f"{s.prompt_tokens} prompt + {s.output_tokens} output tokens; first token {ttft} s, "
              f"total {s.total_s:.2f} s ({s.tokens_per_s:.1f} tokens/s); {s.backend} {s.model}")
    for w in result.warnings:
        say(f"warning: {w}")
    return 0


def run_models(args: argparse.Namespace) -> int:
    from workbench.core.llm import list_backends
    from workbench.core.llm.ollama_backend import host_warning

    if args.old_host:
        say("workbench: deprecated: --host will be removed in the next release; use --llm-host", err=True)
    host = args.llm_host or args.old_host
    if args.allow_remote and host_warning(host):  # asked with consent: say that the host is not this machine
        say(f"workbench: warning: {host_warning(host)}", err=True)
    infos = list_backends(host, allow_remote=args.allow_remote)
    data = [{"backend": i.name, "available": i.available, "detail": i.detail, "models": i.models} for i in infos]
    lines = []
    for i in infos:
        lines.append(f"{i.name}: {'available' if i.available else 'not available'} — {i.detail}")
        for m in i.models:
            size = f"{m['size'] / 1e6:.0f} MB" if m.get("size") else ""
            extra = " ".join(str(m[k]) for k in ("parameter_size", "quantization") if m.get(k))
            lines.append(f"    {m['name']}  {size}  {extra}".rstrip())
    emit(args, data, "\n".join(lines))
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("ask", help="answer a question from the corpus with a local model, or quote its closest "
                                   "sentences without one (cites passages)")
    p.add_argument("question", help="the question")
    add_strategy_options(p)
    add_common(p)
    add_llm_options(p, llm_meant_by_model=True)
    p.add_argument("--max-tokens", type=whole_number(1, 100_000), default=256,
                   help="longest answer in tokens (default 256)")
    p.add_argument("--context-budget", type=whole_number(0), default=0,
                   help="tokens for passages in the prompt (default 0: what the model's context allows)")
    p.set_defaults(func=run_ask)

    m = sub.add_parser("models", help="list the answering backends and the models they offer")
    m.add_argument("--llm-host", metavar="HOST", help="Ollama host (default: $OLLAMA_HOST or 127.0.0.1:11434)")
    m.add_argument("--host", dest="old_host", help=argparse.SUPPRESS)
    m.add_argument("--allow-remote", action="store_true",
                   help="ask an Ollama host (--llm-host or $OLLAMA_HOST) that is not this machine for its models; "
                        "without it such a host is not contacted")
    m.add_argument("--json", action="store_true", help="print machine-readable JSON")
    m.set_defaults(func=run_models)
