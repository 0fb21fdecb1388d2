"""Messages in the window name the window's controls, not the command line's options.

The core words some refusals for the command line ("choose --llm embedded", "change it with --max-file-mb");
``for_the_window`` rewrites each such phrase as the window says it before a message reaches a status line, a
banner or the library's list. ``FLAG_PHRASES`` lists the phrases the core uses; a test checks that no message
shown in the window keeps an option's name.
"""

from __future__ import annotations

import re

# the core's command-line phrase → the window's words (checked by tests/ui/window/test_ui_wording.py)
FLAG_PHRASES: tuple[tuple[str, str], ...] = (
    ("or choose the embedded model (--llm embedded)",
     "or choose the embedded model (File → Settings… → Answering model)"),
    ("or use the embedded model (--llm embedded)",
     "or use the embedded model (File → Settings… → Answering model)"),
    ("or choose --llm embedded", "or choose the embedded model in File → Settings…"),
    ("lower --context-budget, --top-k or --max-tokens", "lower the side's Budget or Top-k"),
    (", change it with --max-file-mb", ""),
    ("name it with --model", "choose it as the side's embedding model"),
    ("allow it with --trust-custom ", "allow "),
    ("(in the window: choose it yourself, or allow it in the dialog that names it)",
     "in the dialog that names it, or choose it yourself"),
    (": chosen with --corpus)", ": chosen for this run)"),
    ("--budgets", "Budgets"),
    ("--grid", "Sweep"),
)
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z-]+")


def for_the_window(message: str) -> str:
    """``message`` with every command-line phrase the core uses put in the window's words."""
    for phrase, words in FLAG_PHRASES:
        message = message.replace(phrase, words)
    return message


def options_named(message: str) -> list[str]:
    """The command-line options ``message`` still names (``--llm`` …)."""
    return OPTION.findall(message)
