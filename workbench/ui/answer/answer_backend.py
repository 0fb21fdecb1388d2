"""The bridge to ``workbench.core.llm`` (built separately): is it installed, and one answering job.

Everything here imports the answering module lazily, so the app runs (and says "answering backend not
installed") when it is absent.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from workbench.core.jobs import CancelToken
from workbench.core.retrieve.strategy.presets import Strategy

if TYPE_CHECKING:
    from workbench.core.llm import LLMChoice as CoreChoice
    from workbench.core.llm.base import Backend, Message
    from workbench.core.workspace import Workspace

MAX_TOKENS = 256


def llm_available() -> bool:
    """True when ``workbench.core.llm`` with its answer module can be imported."""
    try:
        if importlib.util.find_spec("workbench.core.llm") is None:
            return False
        importlib.import_module("workbench.core.llm")
        importlib.import_module("workbench.core.answer.answering")
    except ImportError:
        return False
    return True


@dataclass
class AnswerJob:
    """What the answer panel needs from one answer: prompt, text, sources, stats and warnings."""

    question: str
    strategy: Strategy | None = None  # the strategy whose passages it answers from
    prompt_text: str = ""
    text: str = ""
    sources: list[tuple[str, tuple[int, int, int] | None]] = field(default_factory=list)
    stats_line: str = ""
    warnings: list[str] = field(default_factory=list)
    quotes: list[tuple[int, int, int]] = field(default_factory=list)  # extractive: quoted sentence spans
    extractive: bool = False
    side: str = "A"  # the strategy whose passages it answers from
    verdict: str = ""  # the judge's label (see ``answer_judging``); "" when not judged
    reason: str = ""  # the judge's one-line reason, or why the answer is not judged
    covered: bool = True  # judged against reference passages (False: the corpus does not cover the question)


class BackendHolder:
    """Opens the answering backend once (on first use, on a worker thread) and keeps it.

    ``kind`` is a core ``LLMChoice``, or with ``model``, ``host`` and ``allow_remote`` makes the one it opens
    ("" or None:
    the backend's default; ``allow_remote`` is the user's Settings consent for a non-loopback host, checked
    again by core); ``blocked`` is a reason not to open it at all (a non-loopback host never allowed).
    """

    def __init__(self, kind: str | CoreChoice = "auto", model: str | None = None, host: str | None = None,
                 blocked: str | None = None, allow_remote: bool = False) -> None:
        from workbench.core.llm import LLMChoice

        self.choice = kind if isinstance(kind, LLMChoice) else LLMChoice(str(kind), model, host, allow_remote)
        self.blocked = blocked
        self.backend: Backend | None = None

    @property
    def kind(self) -> str:
        """The backend kind of the choice."""
        return self.choice.kind

    @property
    def model(self) -> str | None:
        """The model of the choice (None: the backend's default)."""
        return self.choice.model

    @property
    def host(self) -> str | None:
        """The Ollama host of the choice (None: ``$OLLAMA_HOST`` or the default)."""
        return self.choice.host

    def get(self) -> Backend:
        """The backend (opening it on first call; raises the backend's own error with its message)."""
        if self.blocked:
            raise RuntimeError(self.blocked)
        if self.backend is None:
            from workbench.core.llm import open_backend

            self.backend = open_backend(self.choice)
        return self.backend


def format_prompt(messages: Sequence[Message]) -> str:
    """Messages as plain text for the "show prompt" view."""
    return "\n\n".join(f"── {m['role']} ──\n{m['content']}" for m in messages)


def run_answer(ws: Workspace, question: str, strategy: Strategy | str | dict[str, Any] | None, holder: BackendHolder,
               on_prompt: Callable[[str], None],
               on_token: Callable[[str], None], cancel: CancelToken, max_tokens: int = MAX_TOKENS) -> AnswerJob:
    """Search, build the prompt (reported through ``on_prompt``), stream the answer through ``on_token``.

    With the extractive backend the "answer" is the quoted sentences (``job.quotes`` holds their spans) and
    the prompt view shows the numbered passages they were chosen from."""
    from workbench.core.answer.answering import answer, prepare
    from workbench.core.llm.no_model import is_extractive

    backend = holder.get()
    prompt, warnings = prepare(ws, question, strategy, backend, max_tokens=max_tokens, context_budget=0,
                               cancel=cancel)
    if is_extractive(backend):  # nothing is sent to a model: show what the sentences are chosen from
        text = ("No language model reads this: the answer quotes the sentences of these passages closest to the "
                f"question.\n\nQuestion: {question}\n\n" + "\n\n".join(p.block for p in prompt.passages))
    else:
        text = format_prompt(prompt.messages)
    job = AnswerJob(question, strategy if isinstance(strategy, Strategy) else None, prompt_text=text)
    on_prompt(job.prompt_text)
    result = answer(prompt, backend, max_tokens=max_tokens, temperature=0.0, on_token=on_token, cancel=cancel,
                    warnings=warnings, ws=ws)
    job.text = result.text
    job.warnings = list(result.warnings)
    seen = set()
    for c in result.citations:
        if c.number in seen:
            continue
        seen.add(c.number)
        label = c.passage.label if c.passage is not None else "(no such passage)"
        job.sources.append((f"[{c.number}] {label}", c.span))
    s = result.stats
    if is_extractive(backend):
        job.extractive = True
        job.quotes = [(c.quote.doc_id, c.quote.start, c.quote.end) for c in result.citations if c.quote is not None]
        job.stats_line = (f"{backend.label} · {len(prompt.passages)} passage(s) · {len(job.quotes)} sentence(s) "
                          f"quoted · tokens in/out n/a · {s.backend} · total {s.total_s:.2f} s")
        return job
    ttft = f"{s.time_to_first_token_s:.2f} s" if s.time_to_first_token_s is not None else "–"
    job.stats_line = (f"{getattr(backend, 'label', s.backend)} · {len(prompt.passages)} passage(s), "
                      f"{prompt.context_tokens} context tokens · {s.prompt_tokens} prompt + {s.output_tokens} "
                      f"output tokens · first token {ttft} · {s.tokens_per_s:.1f} tokens/s · "
                      f"total {s.total_s:.1f} s")
    return job
