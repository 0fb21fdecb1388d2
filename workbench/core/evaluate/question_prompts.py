"""The prompts of the synthetic question generator (``evaluate.synthetic``): one worked example, then the
passage one numbered sentence per line (a small model copies a numbered line far more faithfully)."""

from __future__ import annotations

from workbench.core.ingest.sentences import sentence_spans
from workbench.core.llm.base import Message
from workbench.core.llm.fences import data_rule, fenced, new_nonce

SYSTEM = "You write a question about a text, then copy the one line of the text that answers it, exactly."
FENCE_TAGS = ("text", "part")
PASSAGE_CHARS = 1200  # at most this much of a passage goes into the prompt (a part of a two-part window: half)


EXAMPLE_TITLE = "Bridge handbook"
EXAMPLE_A = ("The bridge closes at night. Crews close it because the steel expands in the heat of the day and "
             "must cool down. Repairs start in May.")
EXAMPLE_B = "To close it, a guard lowers both barriers and switches the signal to red. The guard then logs the time."
EXAMPLE_Q = "Why is the bridge closed at night?"
EXAMPLE_Q2 = "Why is the bridge closed at night, and how is it closed?"


def numbered_lines(text: str, limit: int = PASSAGE_CHARS, first: int = 1) -> str:
    """``text`` as one sentence per line, numbered ``[1] …``, cut after ``limit`` characters (whole lines).

    Small models copy a numbered line far more faithfully than a sentence inside a paragraph."""
    out: list[str] = []
    used = 0
    for n, (a, b) in enumerate(sentence_spans(text), start=first):
        line = f"[{n}] {' '.join(text[a:b].split())}"
        if out and used + len(line) > limit:
            break
        out.append(line)
        used += len(line) + 1
    return "\n".join(out)


def question_messages(title: str, passage: str, nonce: str | None = None) -> list[Message]:
    """Messages asking for one question and the exact line that answers it (one worked example first). The
    text (with its document's title) is fenced (``core.llm.fences``) with ``nonce`` (default: a keyed hash of
    it): a document cannot pose as the instructions or as the worked example."""
    text = numbered_lines(passage)
    nonce = nonce or new_nonce(title, text)

    def shown(name: str, lines: str) -> str:
        return "Text:\n" + fenced("text", nonce, f"From: {name}\n{lines}", tags=FENCE_TAGS)

    return [{"role": "system", "content": f"{SYSTEM} {data_rule(nonce, ('text',))}"},
            {"role": "user", "content": shown(EXAMPLE_TITLE, numbered_lines(EXAMPLE_A))},
            {"role": "assistant", "content": f"Question: {EXAMPLE_Q}\nExcerpt: [2] {sentence_at(EXAMPLE_A, 1)}"},
            {"role": "user", "content": shown(title, text)}]


def two_part_messages(title: str, part_a: str, part_b: str, nonce: str | None = None) -> list[Message]:
    """Messages asking for a question that needs both parts (why something is done, then how); each part is
    fenced as in ``question_messages``."""
    half = PASSAGE_CHARS // 2

    def parts(a: str, b: str) -> tuple[str, str]:
        lines_a = numbered_lines(a, half)
        return lines_a, numbered_lines(b, half, first=lines_a.count(chr(10)) + 2)

    own = parts(part_a, part_b)
    nonce = nonce or new_nonce(title, *own)

    def shown(name: str, pair: tuple[str, str]) -> str:
        part_a = fenced("part", nonce, f"From: {name}\n{pair[0]}", 'name="A"', FENCE_TAGS)
        part_b = fenced("part", nonce, pair[1], 'name="B"', FENCE_TAGS)
        return f"Text from the document named in part A:\n{part_a}\n{part_b}"

    return [{"role": "system", "content": f"{SYSTEM} The question needs both parts: why, then how. "
                                          f"{data_rule(nonce, ('part',))}"},
            {"role": "user", "content": shown(EXAMPLE_TITLE, parts(EXAMPLE_A, EXAMPLE_B))},
            {"role": "assistant", "content": f"Question: {EXAMPLE_Q2}\nExcerpt A: [2] {sentence_at(EXAMPLE_A, 1)}\n"
                                             f"Excerpt B: [4] {sentence_at(EXAMPLE_B, 0)}"},
            {"role": "user", "content": shown(title, own)}]


def sentence_at(text: str, i: int) -> str:
    """The ``i``-th sentence of ``text`` (for the worked examples)."""
    a, b = sentence_spans(text)[i]
    return text[a:b].strip()
