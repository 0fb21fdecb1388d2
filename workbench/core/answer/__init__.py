"""Stage 4, answer: the numbered-passage prompt, generation through a backend, citations parsed back to
exact spans, and extractive answers (quoted sentences, no language model)."""
