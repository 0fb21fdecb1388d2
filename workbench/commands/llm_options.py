"""The LLM options every LLM-using command shares, and opening the LLM they name.

One set of flags: ``--llm {auto,ollama,extractive,embedded}``, ``--llm-model``, ``--llm-host`` and
``--allow-remote``; ``--model`` is always the embedding model (a folder, or ``ollama:NAME``). The command's choice
(``core.llm.LLMChoice``) answers, judges, writes questions or situates chunks, and is also what the
strategy's LLM steps (rerank, summaries, contextual sentences) open on first use.

Old spellings keep working for one release, each with one deprecation line on stderr (not with
``--quiet``): ``--backend`` (now ``--llm``), ``--host`` (now ``--llm-host``), ``--embed-model`` (now
``--model``) and, on ``ask``, ``contextualize`` and ``make-questions``, ``--model NAME`` meaning the LLM.
The rule for that last one: ``--model NAME`` names the LLM (as before) when ``--llm-model`` is not given
and either ``--embed-model`` is (an old-style call) or ``NAME`` is not an existing folder (an embedding
model is a local sentence-transformers folder, ``ollama:NAME`` or ``minilm-bf16``; a GGUF file or a bare Ollama
model name is not).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.commands.common import UserError, say
from workbench.core.index.embedder_pool import is_named_model

if TYPE_CHECKING:

    from workbench.core.llm.base import Backend
    from workbench.core.llm.open import LLMChoice

LLM_KINDS = ("auto", "ollama", "extractive", "embedded")
ALLOW_REMOTE_HELP = ("allow sending text (questions, passages, chunks) to an Ollama host (--llm-host or "
                     "$OLLAMA_HOST) or a Ray cluster (--cluster ray://HOST:PORT) that is not this machine; "
                     "refused without it")
LLM_ADVICE = ("start Ollama with a model (`ollama serve`, then `ollama pull llama3.2`), or choose --llm embedded "
              "(with --llm-model FILE.gguf for a real model)")
LLM_HELP = ("auto: Ollama when its server answers with a model, else extractive (quotes the passages' closest "
            "sentences, no language model); embedded: a tiny plumbing demo (SmolLM2-135M), not for real text. "
            "Commands that need a generative model refuse extractive. The strategy's LLM steps (rerank, "
            "summaries, contextual) use the same choice")


def add_llm_options(p: argparse.ArgumentParser, llm_meant_by_model: bool = False) -> None:
    """``--llm``, ``--llm-model``, ``--llm-host``, ``--allow-remote`` and the hidden old spellings
    (``--backend``, ``--host``; with ``llm_meant_by_model`` also ``--embed-model`` and the ``--model NAME``
    rule of the module docstring, for the commands where ``--model`` used to name the LLM)."""
    p.add_argument("--llm", choices=LLM_KINDS, default=None, help=LLM_HELP + " (default auto)")
    p.add_argument("--llm-model", metavar="NAME", help="LLM: an Ollama model name, or a GGUF file (embedded)")
    p.add_argument("--llm-host", metavar="HOST", help="Ollama host (default: $OLLAMA_HOST or 127.0.0.1:11434)")
    p.add_argument("--allow-remote", action="store_true", help=ALLOW_REMOTE_HELP)
    p.add_argument("--backend", dest="old_backend", choices=LLM_KINDS, help=argparse.SUPPRESS)
    p.add_argument("--host", dest="old_host", help=argparse.SUPPRESS)
    if llm_meant_by_model:
        p.add_argument("--embed-model", dest="old_embed_model", help=argparse.SUPPRESS)
    p.set_defaults(llm_meant_by_model=llm_meant_by_model, llm_options=True)


def _deprecated(args: argparse.Namespace, old: str, new: str) -> None:
    if not getattr(args, "quiet", False):
        say(f"workbench: deprecated: {old} will be removed in the next release; use {new}", err=True)


def resolve_llm_options(args: argparse.Namespace) -> None:
    """Fold the old spellings into ``llm``, ``llm_model``, ``llm_host`` and ``model`` (the embedding
    model), printing one deprecation line for each one used; a no-op for commands without LLM options."""
    if not getattr(args, "llm_options", False) or getattr(args, "llm_resolved", False):
        return
    args.llm_resolved = True
    old_embed = getattr(args, "old_embed_model", None)
    name = args.model
    if (args.llm_meant_by_model and name and args.llm_model is None and not name.startswith("ollama:")
            and not is_named_model(name) and (old_embed or not Path(name).expanduser().is_dir())):
        _deprecated(args, f"--model {name} naming the LLM", "--llm-model (--model is the embedding model folder)")
        args.llm_model, args.model = name, None
    if old_embed:
        _deprecated(args, "--embed-model", "--model")
        args.model = args.model or old_embed
    if args.old_backend:
        _deprecated(args, "--backend", "--llm")
    if args.old_host:
        _deprecated(args, "--host", "--llm-host")
    args.llm = args.llm or args.old_backend or "auto"
    args.llm_host = args.llm_host or args.old_host


def llm_choice(args: argparse.Namespace) -> LLMChoice:
    """The command line's ``LLMChoice`` (old spellings folded in)."""
    from workbench.core.llm import LLMChoice

    resolve_llm_options(args)
    return LLMChoice(args.llm, args.llm_model, args.llm_host, args.allow_remote)


def check_llm_host(choice: LLMChoice) -> None:
    """Refuse up front (before the store or any LLM work) an Ollama host that is not on this machine,
    unless the choice allows it; with consent, warn on stderr that text leaves the machine."""
    from workbench.core.llm import LLMError
    from workbench.core.llm.ollama_backend import check_host, host_warning

    if not choice.contacts_ollama:
        return
    try:
        check_host(choice.host, choice.allow_remote)
    except LLMError as exc:
        raise UserError(str(exc)) from None
    warning = host_warning(choice.host)
    if warning:
        say(f"workbench: warning: {warning}", err=True)


def pipeline_llm_reason(choice: LLMChoice, why: str) -> str:
    """Why the strategy steps of ``choice`` have no generative LLM, in command-line terms (``why``: what
    ``core.llm.open.pipeline_backend`` said)."""
    if choice.kind == "extractive":
        return "--llm extractive quotes sentences and has no language model"
    if "answers are extractive" in why:  # auto fell back: no Ollama server answered with a model
        from workbench.core.llm.ollama_backend import display_host, resolve_host

        return f"--llm auto found no Ollama server with a model at {display_host(resolve_host(choice.host))}"
    return why


def open_llm(choice: LLMChoice, needs: str = "this command") -> Backend:
    """The backend ``choice`` names (errors, a refused remote host among them, become one-line user errors).

    ``needs`` names what the generated text is for; when the backend is extractive (chosen, or what
    ``auto`` falls back to without Ollama) the command is refused: it needs a generative model. Pass
    ``needs=""`` where extractive answers are fine (``ask``).
    """
    from workbench.core.llm import LLMError, open_backend
    from workbench.core.llm.no_model import is_extractive

    try:
        llm = open_backend(choice)
    except LLMError as exc:
        raise UserError(str(exc)) from None
    if needs and is_extractive(llm):
        raise UserError(f"{needs} needs a generative model; start Ollama or choose --llm embedded")
    return llm
