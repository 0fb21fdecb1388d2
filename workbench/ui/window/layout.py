"""Laptop-first window layout: an initial geometry that fits the screen, a window that never grows past its
screen's available area whatever is shown or loaded (``keep_on_screen``, after every layout change), default
splitter sizes that give the passages most of the height, and splitter sizes remembered per screen size.

The geometry rules are plain functions of rectangles (``fit_rect``, ``fitted_frame``) so they can be tested
with any "screen".
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QRect, QSettings, QSize
from PySide6.QtGui import QGuiApplication, QScreen
from PySide6.QtWidgets import QMainWindow, QSplitter, QWidget

from workbench.ui.explore.heights import document_want

FIT_FRACTION = 0.9  # of the available screen area, when the stored geometry does not fit
LIBRARY_WIDTH = 360  # the library panel's default width when it is shown (about its minimum)
WIDE_ENOUGH_FOR_LIBRARY = 1500  # below this window width the library starts collapsed to its strip


def fit_rect(stored: QRect | None, available: QRect, fraction: float = FIT_FRACTION) -> QRect:
    """``stored`` when it lies wholly inside ``available``; else ``fraction`` of ``available``, centred."""
    if stored is not None and stored.isValid() and available.contains(stored):
        return QRect(stored)
    width = max(1, int(available.width() * fraction))
    height = max(1, int(available.height() * fraction))
    rect = QRect(0, 0, width, height)
    rect.moveCenter(available.center())
    return rect


def available_rect(window: QWidget) -> QRect:
    """The available area (without task bars and docks) of the screen ``window`` is on, else the primary."""
    screen: QScreen | None = window.screen() or QGuiApplication.primaryScreen()
    return screen.availableGeometry() if screen is not None else QRect(0, 0, 1366, 768)


def screen_key(available: QRect) -> str:
    """The settings key part naming a screen size, e.g. ``1366x728``."""
    return f"{available.width()}x{available.height()}"


def place_window(window: QMainWindow, settings: QSettings, available: QRect | None = None) -> QRect:
    """Restore the stored rectangle when it still fits ``available`` (default: the window's screen); otherwise
    open at ``FIT_FRACTION`` of the available area, centred. Returns the rectangle chosen."""
    available = available if available is not None else available_rect(window)
    stored = settings.value("window/rect")
    target = fit_rect(stored if isinstance(stored, QRect) else None, available)
    window.setGeometry(target)
    return target


def save_splitters(settings: QSettings, splitters: dict[str, QSplitter], key: str) -> None:
    """Remember the sizes of ``splitters`` for the screen size ``key``."""
    for name, splitter in splitters.items():
        settings.setValue(f"splitters/{key}/{name}", splitter.saveState())


def restore_splitters(settings: QSettings, splitters: dict[str, QSplitter], key: str) -> set[str]:
    """Restore the sizes stored for the screen size ``key``; returns the names restored."""
    done = set()
    for name, splitter in splitters.items():
        value = settings.value(f"splitters/{key}/{name}")
        if isinstance(value, QByteArray) and not value.isEmpty() and splitter.restoreState(value):
            done.add(name)
    return done


def default_results_sizes(height: int) -> list[int]:
    """Passages versus document view for a results column ``height`` pixels high."""
    doc = document_want(height)
    return [max(1, height - doc), doc]


def library_starts_shown(window_width: int) -> bool:
    """Whether the library panel starts open (wide windows) or collapsed to its strip (laptops)."""
    return window_width >= WIDE_ENOUGH_FOR_LIBRARY


def too_wide(window: QWidget, available: QRect) -> bool:
    """True when ``window`` (its frame included) needs more width than ``available`` has."""
    frame_extra = max(0, window.frameGeometry().width() - window.geometry().width())
    return window.minimumSizeHint().width() + frame_extra > available.width()


def fitted_frame(frame: QRect, available: QRect) -> QRect:
    """The rule every window geometry obeys: ``frame`` shrunk to at most ``available``'s size and moved the
    least distance that puts it inside ``available`` (``frame`` itself when it lies inside)."""
    if available.contains(frame):
        return QRect(frame)
    width, height = min(frame.width(), available.width()), min(frame.height(), available.height())
    x = min(max(frame.x(), available.left()), available.right() + 1 - width)
    y = min(max(frame.y(), available.top()), available.bottom() + 1 - height)
    return QRect(x, y, width, height)


def move_inside(window: QWidget, available: QRect) -> None:
    """Shrink and move ``window`` so that its frame lies inside ``available`` (no change when it does)."""
    frame = window.frameGeometry()
    target = fitted_frame(frame, available)
    if target == frame:
        return
    extra_w = max(0, frame.width() - window.geometry().width())
    extra_h = max(0, frame.height() - window.geometry().height())
    window.resize(target.width() - extra_w, target.height() - extra_h)
    window.move(target.x(), target.y())


def keep_on_screen(window: QWidget) -> None:
    """Cap ``window`` at its screen's available size (its frame included) and keep its frame inside that
    area: what a panel shows or loads never widens the window past the screen (its layout then shares the
    room out instead)."""
    if not window.isWindow():
        return
    available = available_rect(window)
    frame, inner = window.frameGeometry(), window.geometry()
    extra_w, extra_h = max(0, frame.width() - inner.width()), max(0, frame.height() - inner.height())
    cap = QSize(max(1, available.width() - extra_w), max(1, available.height() - extra_h))
    if window.maximumSize() != cap:
        window.setMaximumSize(cap)
    move_inside(window, available)
