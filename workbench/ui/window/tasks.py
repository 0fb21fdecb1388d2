"""The window's tasks: **Explore** (A/B passages with the document), **Mark questions** (the question list beside a
large document view), **Shape cuts** (the knobs open over the chunk map) and the **Lab** (sweep, curves, advise,
questions), each below a slim bar (the menu bar, whose corner holds the task buttons), one click or one key apart.
Each task keeps its own state: the splitter sizes, whether the knobs and the library are shown, which bottom tab is
in front (``TaskState``). The room each view declares it needs is ``window.rooms``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

TASKS = ("explore", "mark", "cuts", "lab")
TASK_TEXT = {"explore": "Explore", "mark": "Mark questions", "cuts": "Shape cuts", "lab": "Lab"}
TASK_TIPS = {
    "explore": "Explore: the question, strategies A and B and their passages, the document below",
    "mark": "Mark questions: the stored question sets beside a large document view; select text, Ctrl+R adds it "
            "as a reference",
    "cuts": "Shape cuts: the chunker's knobs open over the chunk map of the document (drag a cut to move it)",
    "lab": "Lab: question sets, sweeps, curves by budget, the advisor and the question sets",
}


@dataclass
class TaskState:
    """What a task keeps while another has the window: splitter sizes by name, the knobs and library shown,
    the bottom tab in front, whether the person moved the results divider."""

    sizes: dict[str, list[int]] = field(default_factory=dict)
    knobs: bool | None = None
    library: bool | None = None
    bottom: int | None = None
    split_moved: bool = False

    def to_json(self) -> str:
        """The state as a settings value."""
        return json.dumps({"sizes": self.sizes, "knobs": self.knobs, "library": self.library, "bottom": self.bottom,
                           "split_moved": self.split_moved})

    @classmethod
    def from_json(cls, text: str) -> TaskState:
        """A state read back from ``to_json``; a fresh one (the task's defaults) when ``text`` does not read."""
        try:
            raw = json.loads(text) if text else {}
            sizes = {str(k): [int(x) for x in v] for k, v in dict(raw.get("sizes") or {}).items()}
            knobs, library, bottom = raw.get("knobs"), raw.get("library"), raw.get("bottom")
            return cls(sizes, knobs if isinstance(knobs, bool) else None,
                       library if isinstance(library, bool) else None, bottom if isinstance(bottom, int) else None,
                       bool(raw.get("split_moved", False)))
        except (ValueError, TypeError, AttributeError):
            return cls()
