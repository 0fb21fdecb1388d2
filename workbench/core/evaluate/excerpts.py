"""Reading an LLM's question-and-excerpt answer, and finding each excerpt inside its own passage.

``parse_generation`` never raises: it reads a JSON object or labelled lines (``Question:``, ``Excerpt:``,
``Excerpt A:`` …). ``locate_excerpt`` searches only the passage's span — exactly first, then with whitespace
collapsed and typographic quotes/dashes folded, mapped back to exact offsets — and never the whole corpus.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from workbench.core.llm.base import first_json_object

MIN_EXCERPT_CHARS = 20
_LABEL = re.compile(r"^\s*(?:[-*#>\d.)]+\s*)?\**\s*(question|q|excerpt\s*[ab12]?|excerpts|evidence|quote|"
                    r"supporting excerpts?|answer)\s*\**\s*[:：]\s*\**\s*(.*)$", re.IGNORECASE)
_FOLD = str.maketrans({"“": '"', "”": '"', "„": '"', "‘": "'", "’": "'", "–": "-", "—": "-", "\u00a0": " "})
_STRIP = "\"'“”‘’`«» *_"
_MARK = re.compile(r"^\s*(?:\[\s*\d+\s*\]|\(\d+\)|\d+[.)])\s*")  # a line number the model echoed: "[2] "


@dataclass(frozen=True)
class Parsed:
    """A model answer read back: the question and its excerpts (empty when missing)."""

    question: str
    excerpts: tuple[str, ...]


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def _from_json(raw: str) -> Parsed | None:
    """The first JSON object in ``raw`` that parses (text around it, or a second object, is ignored)."""
    data = first_json_object(raw)
    if data is None:
        return None
    data = {str(k).lower().replace(" ", "_"): v for k, v in data.items()}
    question = next((v for k in ("question", "q") for v in _strings(data.get(k))), "")
    excerpts = [s for k, v in sorted(data.items()) if k.startswith(("excerpt", "evidence", "quote", "support"))
                for s in _strings(v)]
    return Parsed(question.strip(), tuple(e for e in excerpts if e.strip()))


def parse_generation(raw: str) -> Parsed:
    """Read a model answer: a JSON object (``question``, ``excerpt``/``excerpts``/``excerpt_a`` …) or labelled
    lines (``Question:``, ``Excerpt:``, ``Excerpt A:``; a value may continue on the next lines). Never raises;
    an ``Answer:`` line counts as an excerpt only when no excerpt is labelled."""
    found = _from_json(raw or "")
    if found is not None and found.question:
        return found
    question = ""
    excerpts: list[str] = []
    answers: list[str] = []
    current: list[str] | None = None
    for line in (raw or "").splitlines():
        m = _LABEL.match(line)
        if m:
            label, value = m.group(1).lower(), m.group(2)
            if label in ("question", "q"):
                if question:  # a second question: the first one is what we keep
                    current = None
                    continue
                question, current = value, None
            else:
                target = answers if label == "answer" else excerpts
                target.append(value)
                current = target
        elif not line.strip():
            current = None
        elif current is not None and current:
            current[-1] = f"{current[-1]}\n{line}"
        elif not question and line.strip().endswith("?"):
            question = line  # an unlabelled first question line
    parts = [e.strip() for e in (excerpts or answers) if e.strip()]
    return Parsed(question.strip().strip(_STRIP), tuple(parts))


def _normalise(text: str) -> tuple[str, list[int]]:
    """``text`` with runs of whitespace collapsed and typographic quotes/dashes folded, and the original index
    of every character of the result."""
    out: list[str] = []
    index: list[int] = []
    for i, ch in enumerate(text.translate(_FOLD)):
        if ch.isspace():
            if out and out[-1] == " ":
                continue
            ch = " "
        out.append(ch)
        index.append(i)
    return "".join(out), index


def variants(excerpt: str) -> list[str]:
    """The excerpt as given, without wrapping quotes/markdown/ellipses, without a final period, line by line."""
    base = excerpt.strip()
    bare = re.sub(r"^(\.\.\.|…)\s*|\s*(\.\.\.|…)$", "", _MARK.sub("", base.strip(_STRIP))).strip(_STRIP)
    joined = re.sub(r"\s*\[\s*\d+\s*\]\s*", " ", bare).strip()  # "[1] One. [2] Two." → "One. Two."
    out = [base, bare, bare.rstrip("."), joined]
    for line in base.splitlines():
        line = _MARK.sub("", line.strip()).strip(_STRIP)
        if len(line) >= MIN_EXCERPT_CHARS:
            out.append(line)
    return [v for v in dict.fromkeys(out) if v]


def locate_excerpt(text: str, start: int, end: int, excerpt: str) -> tuple[int, int] | None:
    """Offsets of ``excerpt`` in ``text`` searched only inside ``[start, end)``: exact first, then with
    whitespace and quotes normalised (mapped back to exact offsets). None when it is not there."""
    passage = text[start:end]
    norm, index = _normalise(passage)
    for variant in variants(excerpt):
        i = passage.find(variant)
        if i >= 0:
            return start + i, start + i + len(variant)
        needle = _normalise(variant)[0].strip()
        j = norm.find(needle) if needle else -1
        if j >= 0:
            return start + index[j], start + index[j + len(needle) - 1] + 1
    return None
