"""A scripted LLM for the synthetic-question tests (the core's and the window's dialog): each entry of a script maps
the prompt's passage lines to the model's output."""

from __future__ import annotations

import json
import re


def passage_lines(messages) -> list[str]:
    """The numbered lines of the passage in the last user message (without their numbers)."""
    return [re.sub(r"^\[\d+\] ", "", ln) for ln in messages[-1]["content"].splitlines() if ln.startswith("[")]


class ScriptedLLM:
    """A stand-in backend answering from a script: each entry maps the prompt's passage lines to the output."""

    name, model, label = "scripted", "scripted-v1", "scripted stand-in"

    def __init__(self, script) -> None:
        self.script, self.calls = list(script), 0

    def complete(self, messages, max_tokens=256, temperature=0.0, cancel=None):
        self.calls += 1
        return self.script.pop(0)(passage_lines(messages))


OTHER_DOC_SENTENCE = "Wear nitrile gloves and a lab coat whenever you handle chemicals."  # only in lab-safety.md
SCRIPT = [
    lambda lines: f"Question: What does this part of the guide say to do?\nExcerpt: [1] {lines[0]}",
    lambda lines: f"Question: Which gloves should I wear?\nExcerpt: {OTHER_DOC_SENTENCE}",
    lambda lines: f"Question: What does this part of the guide say to do?\nExcerpt: {lines[-1]}",
    lambda lines: f"Question: How short can an excerpt be?\nExcerpt: {lines[0].split()[0]}",
    lambda lines: "I am sorry, I cannot help with that.",
    lambda lines: json.dumps({"question": "Which step comes next in the procedure?",
                              "excerpt": "  " + "\n ".join(lines[-1].split(" ")) + "  "}),
]
