"""The answer panel: the chosen LLM backend, streamed answers with citations, and the LLM tools menu."""
