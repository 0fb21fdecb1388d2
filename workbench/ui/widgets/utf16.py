"""Code points ↔ UTF-16 code units: the one conversion between Python offsets and Qt text positions.

Python strings (and every span in the store) count code points; ``QTextCursor`` / ``QTextDocument``
positions count UTF-16 code units, where every character outside the Basic Multilingual Plane
(emoji, many CJK extensions, math letters) takes two units. Every highlight goes through this module.
"""

from __future__ import annotations

import bisect


def utf16_len(text: str) -> int:
    """Length of ``text`` in UTF-16 code units."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


class Utf16Map:
    """Offsets of one text in both units; O(log n) per lookup after one O(n) scan."""

    def __init__(self, text: str) -> None:
        self.length = len(text)
        # code-point indices of the characters that take two UTF-16 units (surrogate pairs)
        self._wide = [i for i, ch in enumerate(text) if ord(ch) > 0xFFFF]
        # their UTF-16 start positions
        self._wide_u16 = [i + k for k, i in enumerate(self._wide)]
        self.utf16_length = self.length + len(self._wide)

    def to_utf16(self, index: int) -> int:
        """UTF-16 position of code-point offset ``index`` (0 ≤ index ≤ len(text))."""
        if not 0 <= index <= self.length:
            raise IndexError(f"offset {index} outside 0..{self.length}")
        return index + bisect.bisect_left(self._wide, index)

    def to_code_point(self, position: int) -> int:
        """Code-point offset of UTF-16 ``position``; a position inside a surrogate pair maps to its
        character's start."""
        if not 0 <= position <= self.utf16_length:
            raise IndexError(f"position {position} outside 0..{self.utf16_length}")
        before = bisect.bisect_right(self._wide_u16, position - 2)  # pairs that end at or before position
        inside = bisect.bisect_right(self._wide_u16, position - 1) - before  # 1 when in the middle of a pair
        return position - before - inside


def to_utf16(text: str, index: int) -> int:
    """UTF-16 position of code-point offset ``index`` in ``text`` (one-off; use ``Utf16Map`` for many)."""
    return utf16_len(text[:index])


def to_code_point(text: str, position: int) -> int:
    """Code-point offset of UTF-16 ``position`` in ``text`` (one-off; use ``Utf16Map`` for many)."""
    return Utf16Map(text).to_code_point(position)
