"""LLM rerank: a wider candidate set reordered by the local LLM from a JSON list of ranked ids.

An unparseable or out-of-range answer never raises: the original order is kept (or completed) and a
visible warning says what happened.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from workbench.core.retrieve import Hit, rerank_hits

_ARRAY = re.compile(r"\[[^\[\]]*\]")
PASSAGE_CHARS = 400


def backend_for(ws) -> tuple[object | None, str]:  # noqa: ANN001 - Workspace
    """The workspace's answering backend, opened on first use ('auto'); (None, reason) when unavailable."""
    if ws.llm is not None:
        return ws.llm, ""
    try:
        opener = getattr(ws, "llm_opener", None)
        if opener is None:
            from workbench.core.llm import open_backend

            def opener():  # noqa: ANN202
                return open_backend("auto")

        llm = opener()
    except Exception as exc:  # any backend failure becomes a warning, never a crash
        return None, f"no local LLM available ({exc})"
    from workbench.core.llm.extractive import is_extractive

    if is_extractive(llm):  # auto without Ollama: no language model to rank, summarise or situate with
        return None, ("no local LLM available (answers are extractive: start Ollama, or choose the embedded "
                      "model in Settings)")
    ws.llm = llm
    return ws.llm, ""


def rerank_messages(question: str, texts: Sequence[str]) -> list[dict]:
    """The chat messages asking the model to rank candidate passages by relevance."""
    listing = "\n\n".join(f"[{i}] {' '.join(t.split())[:PASSAGE_CHARS]}" for i, t in enumerate(texts, start=1))
    return [
        {"role": "system", "content": "You rank passages by how well they answer a question. "
                                      "Reply with a JSON list of passage numbers only, most relevant first."},
        {"role": "user", "content": f"Question: {question}\n\nPassages:\n{listing}\n\n"
                                    f"JSON list of the passage numbers (1-{len(texts)}), best first:"},
    ]


def parse_ranking(answer: str, n: int) -> tuple[list[int] | None, str]:
    """Zero-based order from a model answer such as ``[3, 1, 2]`` or ``{"ranking": [3, 1]}``.

    Missing candidates are appended in their original order; duplicates are ignored. Returns
    ``(None, reason)`` when no usable list is found or a number is out of range.
    """
    candidates = [answer.strip()] + _ARRAY.findall(answer)
    numbers = None
    for text in candidates:
        try:
            value = json.loads(text)
        except (json.JSONDecodeError, ValueError):
            continue
        if isinstance(value, dict):
            value = next((v for v in value.values() if isinstance(v, list)), None)
        if isinstance(value, list) and value and all(isinstance(x, int) or (isinstance(x, str) and x.strip().isdigit())
                                                     for x in value):
            numbers = [int(x) for x in value]
            break
    if numbers is None:
        return None, "the LLM's ranking could not be parsed"
    bad = [x for x in numbers if not 1 <= x <= n]
    if bad:
        return None, f"the LLM ranked passages that do not exist ({', '.join(map(str, bad[:5]))})"
    order = list(dict.fromkeys(x - 1 for x in numbers))
    order += [i for i in range(n) if i not in order]
    return order, ""


def llm_rerank(ws, question: str, hits: list[Hit], top_k: int) -> tuple[list[Hit], str]:  # noqa: ANN001
    """Reorder ``hits`` with the local LLM; returns (hits, warning or '')."""
    if len(hits) <= 1:
        return hits, ""
    llm, why = backend_for(ws)
    if llm is None:
        return hits, f"LLM rerank skipped: {why}; original order kept"
    texts = [ws.doc_text(h.span.doc_id)[h.span.start : h.span.end] for h in hits]
    try:
        answer = llm.complete(rerank_messages(question, texts), max_tokens=8 + 4 * len(hits), temperature=0.0)
    except Exception as exc:
        return hits, f"LLM rerank failed ({exc}); original order kept"
    order, why = parse_ranking(answer, len(hits))
    if order is None:
        return hits, f"LLM rerank: {why}; original order kept"
    return rerank_hits(hits, order), ""
