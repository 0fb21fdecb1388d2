"""``workbench contextualize``: build the contextual chunk set (an LLM sentence situating each chunk,
embedded before it) with a local model, and report what it cost.

Sentences are cached in the data folder, so running it again (or searching with
``--strategy '{"contextual": true, ...}'``) makes no LLM call for chunks already situated.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from workbench.commands.common import (
    UserError,
    add_chunk_options,
    add_common,
    emit,
    open_workspace,
    progress_printer,
)
from workbench.commands.index import chunk_config

ALLOW_REMOTE_HELP = ("allow sending questions and passages to an Ollama host (--host or $OLLAMA_HOST) that is "
                     "not this machine; refused without it")


def check_llm_host(backend: str, model: str | None, host: str | None, allow_remote: bool) -> None:
    """Refuse up front (before the store or any LLM work) an Ollama host that is not on this machine,
    unless ``allow_remote``; with it, warn on stderr that text leaves the machine."""
    from workbench.core.llm import LLMError
    from workbench.core.llm.ollama_backend import check_host, host_warning

    if backend == "embedded" or (backend == "auto" and model and model.endswith(".gguf")):
        return
    try:
        check_host(host, allow_remote)
    except LLMError as exc:
        raise UserError(str(exc)) from None
    warning = host_warning(host)
    if warning:
        print(f"workbench: warning: {warning}", file=sys.stderr)


def open_llm(backend: str, model: str | None, host: str | None = None, allow_remote: bool = False,  # noqa: ANN201
             needs: str = "this command"):
    """A local answering backend named by the command line (errors, a refused remote host among them,
    become one-line user errors).

    ``needs`` names what the generated text is for; when the backend is extractive (chosen, or what
    ``auto`` falls back to without Ollama) the command is refused: it needs a generative model. Pass
    ``needs=""`` where extractive answers are fine (``ask``).
    """
    from workbench.core.llm import LLMError, open_backend
    from workbench.core.llm.extractive import is_extractive

    try:
        llm = open_backend(backend, model, host, allow_remote=allow_remote)
    except LLMError as exc:
        raise UserError(str(exc)) from None
    if needs and is_extractive(llm):
        raise UserError(f"{needs} needs a generative model; start Ollama or choose --backend embedded")
    return llm


def workspace_llm_opener(args: argparse.Namespace):  # noqa: ANN201 - () -> Backend
    """How a workspace opens its LLM on first use (rerank, summaries, contextual builds) for a command:
    the 'auto' backend, at the command's ``--host`` and with its ``--allow-remote``."""
    from workbench.core.llm import open_backend

    def opener():  # noqa: ANN202
        return open_backend("auto", None, getattr(args, "host", None), allow_remote=args.allow_remote)

    return opener


def host_warning_for(backend: str, host: str | None) -> str | None:
    """The warning for an Ollama host that is not this machine (None for backends that never contact it)."""
    from workbench.core.llm.ollama_backend import host_warning

    return host_warning(host) if backend not in ("embedded", "extractive") else None


def add_llm_options(p: argparse.ArgumentParser, extractive: bool = False) -> None:
    """``--model`` (the LLM), ``--embed-model``, ``--backend``, ``--host`` (as ``workbench ask`` takes them);
    ``extractive`` offers ``--backend extractive`` (for commands that can quote instead of generate)."""
    p.add_argument("--model", help="LLM: an Ollama model name, or a GGUF file for --backend embedded")
    p.add_argument("--embed-model", help="local sentence-transformers folder (default: packaged all-MiniLM-L6-v2)")
    if extractive:
        p.add_argument("--backend", choices=["auto", "ollama", "extractive", "embedded"], default="auto",
                       help="auto: Ollama when its server answers with a model, else extractive (quotes the "
                            "passages' closest sentences, no language model); embedded: a tiny plumbing demo "
                            "(SmolLM2-135M), not for real answers")
    else:
        p.add_argument("--backend", choices=["auto", "ollama", "embedded"], default="auto",
                       help="auto: Ollama when its server answers with a model (without one this command is "
                            "refused: it needs a generative model); embedded: a tiny plumbing demo (SmolLM2-135M)")
    p.add_argument("--host", help="Ollama host (default: $OLLAMA_HOST or 127.0.0.1:11434)")
    p.add_argument("--allow-remote", action="store_true", help=ALLOW_REMOTE_HELP)


def run(args: argparse.Namespace) -> int:
    from workbench.core.index.context_sentences import build_contextual_set

    config = replace(chunk_config(args), contextual=True)
    check_llm_host(args.backend, args.model, args.host, args.allow_remote)
    ws = open_workspace(argparse.Namespace(data_dir=args.data_dir, model=args.embed_model))
    if not ws.store.documents():
        raise UserError("the corpus is empty: index documents first with 'workbench index PATH'")
    llm = open_llm(args.backend, args.model, args.host, args.allow_remote, needs="contextualize")
    if not args.quiet:
        print(f"situating chunks with {llm.label}", file=sys.stderr)
    info, usage = build_contextual_set(ws, config, llm, progress_printer(args.quiet))
    data = {"chunk_set": info.id, "label": config.label(), "chunks": info.chunk_count, "backend": llm.name,
            "model": llm.model, "llm": usage.as_dict(), "data_dir": str(ws.data_dir)}
    per_call = f", {usage.seconds / usage.calls:.2f} s/call" if usage.calls else ""
    lines = [
        f"chunk set ({config.label()}): {info.chunk_count} chunks",
        f"LLM ({llm.name} {llm.model}): {usage.calls} calls, {usage.cached} sentences from the cache, "
        f"{usage.prompt_tokens} prompt + {usage.output_tokens} output tokens, {usage.seconds:.1f} s{per_call}",
    ]
    if usage.empty:
        lines.append(f"warning: {usage.empty} sentence(s) came back empty (those chunks are embedded as they are)")
    lines.append(f"search it: workbench search \"…\" --strategy '{config.to_json()}'")
    emit(args, data, "\n".join(lines))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("contextualize", help="build the contextual chunk set: a local LLM situates each chunk",
                       conflict_handler="resolve")
    add_chunk_options(p)
    add_common(p)
    add_llm_options(p)
    p.set_defaults(func=run)
