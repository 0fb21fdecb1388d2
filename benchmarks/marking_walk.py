"""The marking walk: questions marked with their reference passages in the real window, as a person would, with
every action a person takes counted, then the set evaluated in the lab, advised on, exported, and the export
scored again by ``workbench eval`` (issue #37's "20 questions in under 15 minutes").

A script cannot time a person, so the walk drives the window with real input events (keys typed into the
question bar, the passage selected by a mouse drag in the document view, Ctrl+R, the document picker) and counts
the actions each question needed; the Keystroke-Level Model (Card, Moran & Newell) turns the counts into a
person's time: K 0.28 s a key (an average typist), P 1.1 s a pointing, B 0.1 s a mouse-button press or release,
H 0.4 s a hand between keyboard and mouse, M 1.35 s a mental step (deciding, reading the passages to find the
answer, checking it), plus the window's own response time measured here (search, drawing). Finding the passage
is reading: every word from the top of the passages shown to the answer's end (when a passage holds it), else all
the passages and then the document view's words from the top of its screen to the answer's end, at 250 words a
minute. One scroll of the document view by a screen is a wheel turn and a look:
K + M.

The questions and their reference passages are read from a Chroma-format folder (default the project's tech24
set: the walk marks its first N questions; a person would know their own documents as well as that), so every
span marked can be checked against the intended one.

    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 QT_QPA_PLATFORM=offscreen \\
    .venv/bin/python benchmarks/marking_walk.py [--questions 20] [--set benchmarks/data/tech24] [--size=1366x768]
        [--advise-minutes 2] [--screenshots docs/screenshots]
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

# the Keystroke-Level Model's operator times, seconds (Card, Moran & Newell 1980; Kieras 2001)
KLM = {"K": 0.28, "P": 1.1, "B": 0.1, "H": 0.4, "M": 1.35}
READING_WPS = 250 / 60  # words a second when reading to find a passage (about 250 words a minute)
SET_NAME = "my questions"


@dataclass
class Actions:
    """What a person did for one step, counted by the Keystroke-Level Model's operators, and how long the window
    itself took (``waited``, seconds, measured)."""

    K: int = 0
    P: int = 0
    B: int = 0
    H: int = 0
    M: int = 0
    read_words: int = 0  # words read to find the passage: from the top of the screen shown to the passage's end
    hit_words: int = 0  # words read when the eye goes to the highlighted hit first (see ``mark``)
    answer_words: int = 0  # the answer's own words: all a person reads who knows where the answer is
    waited: float = 0.0
    notes: list[str] = field(default_factory=list)

    def add(self, **counts: int) -> None:
        """Count more of each operator (``add(P=1, B=2)``)."""
        for op, n in counts.items():
            setattr(self, op, getattr(self, op) + n)

    def click(self, times: int = 1) -> None:
        """Point at something and click it (``times`` things)."""
        self.add(P=times, B=2 * times)

    def seconds(self) -> float:
        """The Keystroke-Level Model's estimate of a person's time, plus the window's measured response time."""
        counts = {"K": self.K, "P": self.P, "B": self.B, "H": self.H, "M": self.M}
        return sum(KLM[op] * n for op, n in counts.items()) + self.read_words / READING_WPS + self.waited

    def seconds_hit_first(self) -> float:
        """The estimate when the person reads the highlighted hit of each passage first (``hit_words``)."""
        return self.seconds() + (self.hit_words - self.read_words) / READING_WPS

    def seconds_knowing(self) -> float:
        """The estimate for a person who knows where each answer is: only the answer is read (checked)."""
        return self.seconds() + (self.answer_words - self.read_words) / READING_WPS

    def __iadd__(self, other: Actions) -> Actions:
        for op in (*KLM, "read_words", "hit_words", "answer_words", "waited"):
            setattr(self, op, getattr(self, op) + getattr(other, op))
        self.notes += other.notes
        return self


@dataclass(frozen=True)
class Target:
    """A question to mark and its reference passage: a corpus file's name and the passage's character offsets."""

    question: str
    corpus: str
    start: int
    end: int


Wait = Callable[[Callable[[], object]], None]


def targets(folder: Path, count: int) -> list[Target]:
    """The first ``count`` questions of the Chroma-format set in ``folder`` that have one reference each."""
    from workbench.core.evaluate.datasets import load_question_set

    qset = load_question_set(folder)
    found = [Target(q.question, q.corpus_id, q.references[0].start, q.references[0].end)
             for q in qset.questions if len(q.references) == 1]
    return found[:count]


def new_set(window: Any, name: str) -> Actions:
    """The Questions tab's *New set…*: the Evaluate mode, the tab, the button, the name typed, Enter; then back to
    Explore."""
    acts = Actions()
    lab = window.eval_view
    window.set_mode("evaluate")
    lab.lab_tabs.setCurrentWidget(lab.questions_tab)
    acts.click(3)  # the mode, the tab, New set…
    acts.add(H=1, M=1, K=len(name) + 1)
    if not lab.questions_tab.new_set(name):
        raise SystemExit(f"walk: the set was refused: {lab.questions_tab.status.text()}")
    acts.add(H=1)
    acts.click()  # back to Explore
    window.set_mode("explore")
    return acts


def _point(view: Any, doc: int, offset: int) -> Any:
    """The viewport point of the cursor place before character ``offset`` (the view's ``place_rect``)."""
    return view.place_rect(doc, offset).center()


def _pages_between(view: Any, doc: int, offset: int) -> int:
    """How many screens the document view must scroll to show character ``offset`` (0: on screen now)."""
    y = int(_point(view, doc, offset).y())
    height = max(1, int(view.viewport().height()))
    if 0 <= y < height - 4:
        return 0
    return max(1, math.ceil(abs(y - height / 2) / height))


def _in_passage(results: Any, doc: int, target: Target) -> bool:
    """Whether the whole reference passage is drawn in one piece of the passages view (a passage holds it)."""
    a = results.pmap.position_of(doc, target.start)
    b = results.pmap.position_of(doc, target.end - 1)
    if a is None or b is None or b < a:
        return False
    pieces = results.pmap.to_document(a, b + 1 - a)  # split where a chunk marker or a layer edge is drawn
    joined = all(x.doc_id == doc and x.end == y.start for x, y in zip(pieces, pieces[1:], strict=False))
    return joined and (pieces[0].start, pieces[-1].end) == (target.start, target.end)


def _hit_first_words(window: Any, doc: int, target: Target) -> int:
    """Words read when the eye goes to the strongly highlighted hits first: the hits of each passage shown above
    the one that holds the answer (read in vain), then in that passage the text from its first hit (or the
    answer, when that comes first) to the answer's end (or the hit's end, when that comes later)."""
    text = window.ws.corpus.doc_text
    words = 0
    for passage in window.model.current_result("A").passages:
        hits = list(passage.hit_spans) or [passage.span]
        span = passage.span
        if span.doc_id == doc and span.start <= target.start and target.end <= span.end:
            first = min(hits, key=lambda h: h.start)
            a, b = min(first.start, target.start), max(first.end if first.start > target.start else 0, target.end)
            return words + len(text(doc)[a:b].split())
        words += sum(len(text(h.doc_id)[h.start:h.end].split()) for h in hits)
    return words


def _words_above(view: Any, offset_position: int) -> int:
    """Words of the view's text from the top of its screen to Qt position ``offset_position``."""
    from PySide6.QtCore import QPoint

    top = view.cursorForPosition(QPoint(0, 0)).position()
    return len(view.document().toPlainText()[min(top, offset_position):offset_position].split())


def _select(view: Any, doc: int, target: Target, acts: Actions) -> None:
    """Scroll ``view`` to the passage (counted per screen), then drag over it (or click its start and shift-click
    its end when it runs off the screen)."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    pages = _pages_between(view, doc, target.start)
    if pages:
        acts.add(K=pages, M=pages)  # a wheel turn and a look, per screen
        acts.notes.append(f"scrolled {pages} screen(s)")
        view.scroll_to(doc, target.start)
        QApplication.processEvents()
    vp = view.viewport()
    a = _point(view, doc, target.start)
    b = _point(view, doc, target.end)
    if not vp.rect().contains(b):  # the passage runs below the screen: click its start, scroll, shift-click the end
        QTest.mouseClick(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a)
        view.verticalScrollBar().setValue(view.verticalScrollBar().value() + (b.y() - vp.height() // 2))
        QApplication.processEvents()
        b = _point(view, doc, target.end)
        QTest.mouseClick(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ShiftModifier, b)
        acts.add(P=2, B=4, K=2, M=1)
        acts.notes.append("selected with a shift-click")
    else:
        QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a)
        QTest.mouseMove(vp, b)
        QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, b)
        acts.add(P=2, B=2)  # to the start, press; drag to the end, release
    view.setFocus()


def mark(window: Any, wait: Wait, doc: int, target: Target) -> Actions:
    """One question, as a person marks it: click the question bar, type the question, Enter; read the passages
    (side A's, the largest view) and select the answer there when a passage holds it whole; else open the
    reference's document in the document view (the document picker when another one is shown), read and scroll to
    the passage there and select it; Ctrl+R. Returns the actions counted; raises SystemExit when the stored
    reference is not the passage meant."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    acts = Actions()
    model, pane, results = window.model, window.compare.doc_pane, window.compare.a.results
    view = pane.view
    acts.add(M=1)  # what to ask
    acts.add(H=1)
    acts.click()  # the question bar
    acts.add(H=1)
    window.question.setFocus()
    window.question.selectAll()
    QTest.keyClicks(window.question, target.question)
    acts.add(K=len(target.question))
    began = time.monotonic()
    QTest.keyClick(window.question, Qt.Key.Key_Return)
    acts.add(K=1)
    wait(lambda: model.question == target.question and model.current_result("A") is not None
         and bool(results.pmap.entries) and pane.doc_id is not None and not pane._timer.isActive())
    acts.waited += time.monotonic() - began
    acts.add(M=1, H=1)  # look at the passages; the hand to the mouse
    if _in_passage(results, doc, target):
        acts.read_words += _words_above(results, results.pmap.position_of(doc, target.end - 1))
        acts.hit_words += _hit_first_words(window, doc, target)
        acts.notes.append("selected in a passage")
        _select(results, doc, target, acts)
    else:
        acts.read_words += len(results.document().toPlainText().split())  # every passage read, in vain
        acts.hit_words += len(results.document().toPlainText().split())
        acts.notes.append("selected in the document view")
        if pane.doc_id != doc:
            i = pane.picker.findData(doc)
            if i < 0:
                raise SystemExit(f"walk: {target.corpus} is not in the document picker")
            passages = pane.picker.itemText(i).endswith("passage(s))")
            acts.click(2)  # open the picker, choose the document
            acts.add(M=1)  # find it in the list
            acts.notes.append("picker: a document with passages" if passages else
                              "picker: a document without passages")
            began = time.monotonic()
            pane.picker.setCurrentIndex(i)
            pane.picker.activated.emit(i)
            wait(lambda: view.pmap.position_of(doc, target.start) is not None)
            acts.waited += time.monotonic() - began
        acts.read_words += _words_above(view, view.pmap.position_of(doc, target.end - 1))
        acts.hit_words += _words_above(view, view.pmap.position_of(doc, target.end - 1))
        _select(view, doc, target, acts)
    acts.answer_words += len(window.ws.corpus.doc_text(doc)[target.start:target.end].split())
    acts.notes.append(f"words read: {acts.read_words}")
    acts.add(M=1, H=1, K=2)  # check the selection; Ctrl+R
    window.menu_actions["add_reference"].trigger()
    tab = window.eval_view.questions_tab
    stored = [q for q in window.ws.questions.read(tab.current_set).questions if q.text == target.question]
    if not stored:
        raise SystemExit(f"walk: not stored: {target.question!r} ({tab.status.text()})")
    refs = [(r.doc_id, r.start, r.end) for r in stored[-1].references]
    if refs != [(doc, target.start, target.end)]:
        raise SystemExit(f"walk: {target.question!r} stored {refs}, meant {(doc, target.start, target.end)}")
    return acts


def walk(window: Any, wait: Wait, corpus_docs: dict[str, int], chosen: list[Target]) -> list[Actions]:
    """A new set, then each target marked (see ``mark``); the actions of each step (the set's first)."""
    steps = [new_set(window, SET_NAME)]
    for target in chosen:
        steps.append(mark(window, wait, corpus_docs[target.corpus], target))
    return steps


def totals(steps: list[Actions]) -> dict[str, Any]:
    """The counts and the estimate over all steps, and per question."""
    whole = Actions()
    for s in steps:
        whole += s
    per = [round(s.seconds(), 1) for s in steps[1:]]
    return {"questions": len(steps) - 1, "operators": {op: getattr(whole, op) for op in KLM},
            "read_words": whole.read_words, "reading_seconds": round(whole.read_words / READING_WPS, 1),
            "hit_first_words": whole.hit_words,
            "minutes": {"typing (K)": round(whole.K * KLM["K"] / 60, 1),
                        "pointing and clicking (P, B, H)": round((whole.P * KLM["P"] + whole.B * KLM["B"]
                                                                  + whole.H * KLM["H"]) / 60, 1),
                        "deciding and checking (M)": round(whole.M * KLM["M"] / 60, 1),
                        "reading from the top": round(whole.read_words / READING_WPS / 60, 1),
                        "reading hit first": round(whole.hit_words / READING_WPS / 60, 1),
                        "reading only the answers": round(whole.answer_words / READING_WPS / 60, 1),
                        "the window's response": round(whole.waited / 60, 2)},
            "klm_minutes_hit_first": round(whole.seconds_hit_first() / 60, 1),
            "klm_minutes_knowing": round(whole.seconds_knowing() / 60, 1),
            "window_seconds": round(whole.waited, 1), "klm_seconds": round(whole.seconds(), 1),
            "klm_minutes": round(whole.seconds() / 60, 1), "per_question_seconds": per,
            "notes": sorted({n for s in steps for n in s.notes})}


def main() -> None:
    """Index the set's corpus in a fresh data folder, walk, evaluate, advise, export, score the export again."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default=str(ROOT / "benchmarks" / "data" / "tech24"))
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--advise-minutes", type=int, default=2)
    parser.add_argument("--screenshots", default="")
    parser.add_argument("--size", default="1366x768")
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    from screenshot_support import LaptopWindow  # type: ignore[import-not-found]  # scripts/, on sys.path

    folder = Path(args.set)
    chosen = targets(folder, args.questions)
    shot = LaptopWindow("walk")
    window, ws = shot.window, shot.ws

    def wait(done: Callable[[], object]) -> None:
        shot.wait(done, 600.0)

    shot.wait(lambda: not window.compare.a.controller.building and not window.compare.b.controller.building)
    began = time.monotonic()
    report = ws.add_documents([str(p) for p in sorted((folder / "corpora").iterdir())])
    indexed = time.monotonic() - began
    docs = {Path(str(r["path"])).stem: int(r["id"]) for r in ws.records.documents()}
    print(f"walk: {len(docs)} documents indexed in {indexed:.0f} s ({len(report.added)} added)", flush=True)
    window.library.refresh()
    shot.settle()
    began = time.monotonic()
    steps = walk(window, wait, docs, chosen)
    driven = time.monotonic() - began
    result: dict[str, Any] = {"set": str(folder), "size": args.size, **totals(steps),
                              "driven_seconds": round(driven, 1)}
    print(f"walk: {result['questions']} questions marked; {result['operators']}; a person: about "
          f"{result['klm_minutes']} min reading every passage from the top, {result['klm_minutes_hit_first']} min "
          f"reading the highlighted hits first, {result['klm_minutes_knowing']} min knowing where the answers are; "
          f"{result['minutes']}", flush=True)
    out = Path(args.screenshots) if args.screenshots else None
    lab, tab = window.eval_view, window.eval_view.questions_tab
    window.set_mode("evaluate")
    lab.lab_tabs.setCurrentWidget(tab)
    tab.refresh(choose=SET_NAME)
    shot.settle()
    if out is not None:
        shot.save(out, "walk-questions.png")
    # Evaluate this set: the lab runs its checked strategies on the stored set
    lab.set_checked(["plain", "hybrid"])  # at the lab's budget
    tab.evaluate_button.click()
    shot.wait(lambda: lab.results and not lab.running, 1800.0, lambda: lab.status.text())
    lab_recall = {r.config.key: round(100 * r.summary["recall"].mean, 1) for r in lab.results}
    result["lab"] = {"run": lab.run_id, "recall": lab_recall}
    print(f"walk: the lab on the set: {lab_recall}", flush=True)
    shot.settle()
    if out is not None:
        shot.save(out, "walk-lab.png")
    # Advise on the set: a small space, a short limit
    from workbench.core.evaluate.advise.space import Space

    advise = lab.advise
    lab.lab_tabs.setCurrentWidget(advise)
    advise.space_for = lambda budget: Space(budget=budget, chunkers=("fixed", "recursive"), sizes=(64, 200),
                                            expansions=("none", "neighbours-1", "multi-granularity"),
                                            top_ks=(5, 10))
    advise.limit.setValue(args.advise_minutes)
    advise.name.setText("advised-mine")
    if not advise.start():
        raise SystemExit(f"walk: advise refused: {advise.status.text()}")
    shot.wait(lambda: not advise.running, 60.0 * args.advise_minutes + 900, lambda: advise.status.text())
    result["advise"] = {"status": advise.status.text(), "verdict": advise.verdict.toPlainText()}
    print(f"walk: advise: {advise.status.text()}\n{advise.verdict.toPlainText()}", flush=True)
    shot.settle()
    if out is not None:
        shot.save(out, "walk-advise.png")
    # Export set…, then the CLI scores the exported folder in a data folder of its own
    lab.lab_tabs.setCurrentWidget(tab)
    export = Path(tempfile.mkdtemp(prefix="workbench-walk-export-")) / "mine"
    files = tab.export_set(export, "chroma")
    result["export"] = {"folder": str(export), "files": len(files)}
    done = subprocess.run([sys.executable, "-m", "workbench.cli", "eval", str(export), "--strategy", "plain",
                           "--strategy", "hybrid", "--data-dir", str(export.parent / "cli-data"), "--json"],
                          capture_output=True, text=True, check=True, cwd=ROOT)
    data = json.loads(done.stdout)
    rows = data["rows"] if isinstance(data, dict) else data
    cli = {str(row["key"]): round(100 * float(row["recall"]), 1) for row in rows}
    result["cli_recall"] = cli
    print(f"walk: workbench eval on the export: {cli}", flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "per_question_seconds"}, indent=1))
    shot.close()


if __name__ == "__main__":
    main()
