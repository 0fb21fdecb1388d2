"""How a control edits one field of a strategy part (an expansion or a later step): ``Knob``, the metadata the
window and the command line build their controls from."""

from __future__ import annotations

from dataclasses import dataclass

ParamValue = int | float | str | bool  # the type of every expansion and step field


MIN_TOOLTIP = 30  # characters: a knob's tooltip explains it (the window's tests read every one)


@dataclass(frozen=True)
class Knob:
    """How a control edits one field: range, step and the words shown around it. A ``str`` field with two
    ``choices`` (off, on) is a check box in the window; ``cli_help`` is the help of its command-line option
    (``--field-name``) for a later step's knob. The ``tooltip`` is the control's explanation in the window and
    must say what the knob does in more than ``MIN_TOOLTIP`` characters (a name repeated is refused here)."""

    field: str
    label: str
    minimum: float
    maximum: float
    step: float
    tooltip: str
    special: str = ""  # text shown instead of the minimum value ("section" for a parent size of 0)
    decimals: int = 0  # 0: a whole number
    suffix: str = ""  # a unit shown after the value (" tok")
    choices: tuple[str, ...] = ()  # the values of a str field
    cli_help: str = ""

    def __post_init__(self) -> None:
        if len(self.tooltip.strip()) <= MIN_TOOLTIP:
            raise ValueError(f"knob {self.field!r}: its tooltip must say what it does in more than {MIN_TOOLTIP} "
                             f"characters, not {self.tooltip!r}")

    @property
    def option(self) -> str:
        """The command-line option of this knob (``--per-doc-cap``)."""
        return "--" + self.field.replace("_", "-")
