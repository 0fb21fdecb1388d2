"""Opening the LLM a pipeline step needs (rerank, summaries, contextual sentences), once per workspace."""

from __future__ import annotations


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
