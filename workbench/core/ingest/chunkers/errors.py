"""The one error every chunker failure becomes, and the quoting its messages use."""

from __future__ import annotations


class ChunkerError(ValueError):
    """A chunker returned spans that do not match the document, or could not be built or run."""


def snippet(piece: str, limit: int = 40) -> str:
    """``piece`` quoted for an error message, cut to ``limit`` characters."""
    return repr(piece if len(piece) <= limit else piece[:limit] + "…")
