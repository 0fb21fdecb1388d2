"""Editing the cuts in the chunk map: drag a cut, split the chunk at the cursor, merge two neighbours, undo.

Active while the document view draws one side's chunk map (*chunks of A* / *chunks of B*). Each edit goes to a
named hand-made chunking (``core.ingest.chunkers.hand_edits``): the side's own when its chunker is already
``edited:NAME``, else a new one derived from the side's chunker, whose name is asked once (``edited-<base>``
offered). An edit is checked against the document before it is kept (``ws.cuts.edit``: one line says why one
is refused, nothing changes; an edit another process kept meanwhile stays); then the side is given the chunker
``edited:NAME`` and runs again (only the changed chunks are embedded). Ctrl+Z takes the last edit made here back.

Mouse: press on a cut (within ``GRAB`` characters of where a chunk starts) and release elsewhere to move it;
the context menu offers *Split chunk here*, *Merge with next chunk*, *Merge with previous chunk* and *Undo*.
Keys in the document view: S splits at the cursor, M merges the chunk at the cursor with the next, Ctrl+Z.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QEvent, QObject, QPoint, Qt, Signal
from PySide6.QtGui import QKeySequence, QMouseEvent, QShortcut
from PySide6.QtWidgets import QApplication, QInputDialog, QMenu, QWidget

from workbench.core.ingest.chunkers.choice import chunker_name
from workbench.core.ingest.chunkers.errors import ChunkerError
from workbench.core.ingest.chunkers.hand_edits import CutEdit, HandChunking, text_sha
from workbench.core.spans import Span
from workbench.core.workspace.cuts import HAND_PREFIX, EditRefused, base_chunker_json, hand_name_problem
from workbench.ui.explore.view_undo import UndoSource, edit_time, view_undo

if TYPE_CHECKING:
    from workbench.core.retrieve.strategy.presets import Strategy
    from workbench.ui.explore.doc_view import DocumentPane

GRAB = 3  # characters either side of a cut that pick it up
HINT = ("Chunk map: drag a cut to move it, S splits the chunk at the cursor, M merges it with the next, Ctrl+Z "
        "undoes (right-click for more); the edits are kept as a hand-made chunking.")


@dataclass(frozen=True)
class Undo:
    """How to take one edit back: the chunking's name and the edits made here (removed again, whatever was
    edited meanwhile elsewhere)."""

    name: str
    added: tuple[CutEdit, ...]
    at: float = field(default_factory=edit_time)


def ask_name(parent: QWidget, offered: str) -> str | None:
    """Ask once for the name of the hand-made chunking the edits go to (None: cancelled)."""
    text, ok = QInputDialog.getText(parent, "Keep the edited cuts", "Name of the hand-made chunking (its chunker "
                                    "is edited:NAME, usable in strategies, eval and the lab):", text=offered)
    name = text.strip()
    return name if ok and name else None


class CutEditor(QObject):
    """Edits the cuts of the chunk map ``pane`` shows; ``edited(side, chunker)`` after each kept edit."""

    edited = Signal(str, str)  # side ("A"/"B"), chunker ("edited:NAME"): the side should run with it
    message = Signal(str)  # why an edit was refused, or what was done

    def __init__(self, pane: DocumentPane, strategy_of: Callable[[str], Strategy],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pane = pane
        self.view = pane.view
        self.ws = pane.ws
        self.strategy_of = strategy_of  # the strategy of side "A" / "B"
        self.ask: Callable[[str], str | None] = lambda offered: ask_name(self.view, offered)
        self.undo_stack: list[Undo] = []
        self._drag: tuple[int, int] | None = None  # (doc_id, cut) picked up by a press
        self.view.viewport().installEventFilter(self)
        self.view.menu_extras.append(self._extend_menu)
        pane.colour.activated.connect(self._mode_changed)
        view_undo(self.view).add(UndoSource(lambda: self.undo_stack[-1].at if self.undo_stack else None, self.undo))
        for keys, act in (("S", self.split_at_cursor), ("M", self.merge_at_cursor)):
            shortcut = QShortcut(QKeySequence(keys), self.view)
            shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
            shortcut.activated.connect(act)

    def _mode_changed(self, _index: int) -> None:
        """Say how the cuts are edited when a chunk map is picked (by hand: not again when new results refill
        the picker)."""
        if self.side() is not None:
            self.message.emit(HINT)

    # ----- where ----------------------------------------------------------------------------
    def side(self) -> str | None:
        """The side whose chunk map is drawn (edits are offered only then)."""
        return self.pane.chunk_map_side()

    def chunk_spans(self, doc_id: int) -> list[Span]:
        """The chunks the view draws for ``doc_id`` (the shown side's chunk set)."""
        rt = self.view.runtime
        return [rt.span(r) for r in range(*rt.doc_rows(doc_id))] if rt is not None else []

    def cut_near(self, doc_id: int, offset: int) -> int | None:
        """The cut (a chunk's start, not the first's) within ``GRAB`` characters of ``offset``, or None (a
        bisection over the set's sorted starts: asked on every mouse move)."""
        rt = self.view.runtime
        if rt is None:
            return None
        first, end = rt.doc_rows(doc_id)
        starts = rt.table.starts[first + 1:end]
        i = int(np.searchsorted(starts, offset))
        near = [int(starts[k]) for k in (i - 1, i) if 0 <= k < len(starts) and abs(int(starts[k]) - offset) <= GRAB]
        return min(near, key=lambda c: abs(c - offset)) if near else None

    def chunk_at(self, doc_id: int, offset: int) -> Span | None:
        """The chunk holding ``offset`` (the last one, where chunks overlap), or None."""
        held = [s for s in self.chunk_spans(doc_id) if s.start <= offset < s.end]
        return held[-1] if held else None

    def cursor_offset(self) -> tuple[int, int] | None:
        """``(doc_id, offset)`` of the text cursor."""
        where = self.view.pmap.locate(self.view.textCursor().position())
        return (where[0], where[1]) if where is not None else None

    # ----- edits ----------------------------------------------------------------------------
    def split(self, doc_id: int, offset: int) -> bool:
        """Cut the chunk at ``offset`` in two there."""
        return self._apply(doc_id, "split", offset)

    def merge(self, doc_id: int, cut: int) -> bool:
        """Remove the cut at ``cut``."""
        return self._apply(doc_id, "merge", cut)

    def move(self, doc_id: int, cut: int, to: int) -> bool:
        """Move the cut at ``cut`` to ``to``."""
        return self._apply(doc_id, "move", cut, to)

    def merge_next(self, doc_id: int, offset: int) -> bool:
        """Merge the chunk at ``offset`` with the one after it."""
        chunk = self.chunk_at(doc_id, offset)
        after = [s.start for s in self.chunk_spans(doc_id) if chunk is not None and s.start > chunk.start]
        if not after:
            self.message.emit("No chunk after this one to merge with.")
            return False
        return self.merge(doc_id, after[0])

    def merge_previous(self, doc_id: int, offset: int) -> bool:
        """Merge the chunk at ``offset`` with the one before it."""
        chunk = self.chunk_at(doc_id, offset)
        spans = self.chunk_spans(doc_id)
        if chunk is None or not spans or chunk.start == spans[0].start:
            self.message.emit("No chunk before this one to merge with.")
            return False
        return self.merge(doc_id, chunk.start)

    def split_at_cursor(self) -> None:
        """S: split the chunk at the text cursor."""
        where = self.cursor_offset()
        if where is not None and self.side() is not None:
            self.split(*where)

    def merge_at_cursor(self) -> None:
        """M: merge the chunk at the text cursor with the next."""
        where = self.cursor_offset()
        if where is not None and self.side() is not None:
            self.merge_next(*where)

    def undo(self) -> bool:
        """Ctrl+Z: take the last edit made here back (the chunking's edits as they were before it)."""
        if not self.undo_stack:
            self.message.emit("Nothing to undo in the chunk map.")
            return False
        undo = self.undo_stack.pop()
        try:
            now = self.ws.cuts.take_back(undo.name, undo.added)
        except EditRefused as exc:
            self.message.emit(f"Not undone: {exc}")
            return False
        self.message.emit(f"Undone: edited:{now.name} has {len(now.edits)} edit(s) again.")
        self._rerun(now.name)
        return True

    def _chunking(self, side: str) -> HandChunking | None:
        """The chunking the side's edits go to: its own, or a new one named once (None: cancelled)."""
        strategy = self.strategy_of(side)
        config = strategy.chunk
        name = chunker_name(config)
        if name.startswith(HAND_PREFIX):
            hand = self.ws.cuts.get(name[len(HAND_PREFIX):])
            if hand is not None:
                return hand
        base = base_chunker_json(config)  # EditRefused for a base it cannot have
        offered = f"edited-{strategy.name if strategy.name != 'custom' else name}"
        while self.ws.cuts.get(offered) is not None:
            offered += "-2"
        chosen = self.ask(offered)
        if chosen is None:
            return None
        if (problem := hand_name_problem(chosen)) is not None:
            raise EditRefused(problem)
        existing = self.ws.cuts.get(chosen)
        if existing is not None and existing.base_chunker != base:
            raise EditRefused(f"edited:{chosen} starts from another chunker; choose another name")
        return existing or HandChunking(chosen, strategy.name, base)

    def _apply(self, doc_id: int, op: str, at: int, to: int = 0) -> bool:
        side = self.side()
        if side is None:
            self.message.emit("Edit cuts in a chunk map: colour the document by 'chunks of A' or 'chunks of B'.")
            return False
        try:
            hand = self._chunking(side)
            if hand is None:
                return False
            doc = self.ws.corpus.document(doc_id)
            edit = CutEdit(op, doc_id, doc.path, text_sha(doc.text), at, to)
            change = self.ws.cuts.edit(hand.name, [edit], start=hand)
        except (EditRefused, ChunkerError) as exc:
            self.message.emit(f"Not changed: {exc}")
            return False
        updated = change.after
        self.undo_stack.append(Undo(hand.name, (edit,)))
        self.message.emit(f"edited:{hand.name}: {edit.describe()} ({len(updated.edits)} edit(s)); side {side} "
                          "runs with it.")
        self.edited.emit(side, HAND_PREFIX + hand.name)
        return True

    def _rerun(self, name: str) -> None:
        side = self.side()
        if side is not None:
            self.edited.emit(side, HAND_PREFIX + name)

    # ----- mouse and menu -------------------------------------------------------------------
    def _offset_at(self, point: QPoint) -> tuple[int, int] | None:
        where = self.view.locate(point)
        return (where[0], where[1]) if where is not None else None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """A press on a cut picks it up; the release moves it there (the text is not selected meanwhile); the
        pointer turns into a splitter over a cut."""
        if not isinstance(event, QMouseEvent):
            return False
        if self.side() is None:
            viewport = self.view.viewport()
            if event.type() == QEvent.Type.MouseMove and viewport.cursor().shape() == Qt.CursorShape.SplitHCursor:
                viewport.setCursor(Qt.CursorShape.IBeamCursor)  # left over from a chunk map
            return False
        if event.type() == QEvent.Type.MouseButtonPress and event.button() == Qt.MouseButton.LeftButton:
            where = self._offset_at(event.position().toPoint())
            cut = self.cut_near(*where) if where is not None else None
            if where is not None and cut is not None:
                self._drag = (where[0], cut)
                QApplication.setOverrideCursor(Qt.CursorShape.SplitHCursor)
                return True
        elif event.type() == QEvent.Type.MouseButtonRelease and self._drag is not None:
            doc_id, cut = self._drag
            self._drag = None
            QApplication.restoreOverrideCursor()
            where = self._offset_at(event.position().toPoint())
            if where is not None and where[0] == doc_id and abs(where[1] - cut) > GRAB:
                self.move(doc_id, cut, where[1])
            return True
        elif event.type() == QEvent.Type.MouseMove:
            if self._drag is not None:
                return True
            if event.buttons() == Qt.MouseButton.NoButton:  # hovering: a cut can be picked up here
                where = self._offset_at(event.position().toPoint())
                on_cut = where is not None and self.cut_near(*where) is not None
                self.view.viewport().setCursor(Qt.CursorShape.SplitHCursor if on_cut else Qt.CursorShape.IBeamCursor)
        return False

    def _extend_menu(self, menu: QMenu, point: QPoint) -> None:
        """The chunk map's edits in the document view's context menu."""
        if self.side() is None:
            return
        where = self._offset_at(point)
        menu.addSeparator()
        for label, act in (("Split chunk here\tS", self.split), ("Merge with next chunk\tM", self.merge_next),
                           ("Merge with previous chunk", self.merge_previous)):
            action = menu.addAction(label)
            action.setEnabled(where is not None)
            if where is not None:
                doc_id, offset = where
                action.triggered.connect(lambda _=False, a=act, d=doc_id, o=offset: a(d, o))
        undo = menu.addAction("Undo cut edit\tCtrl+Z")
        undo.setEnabled(bool(self.undo_stack))
        undo.triggered.connect(self.undo)
