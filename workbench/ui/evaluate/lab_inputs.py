"""The evaluation lab's inputs: the question set (a folder, or a bundled one from the *Bundled* menu), the
strategies to run, a sweep, budgets and a question limit; Run and Cancel with the progress bar; the recorded
runs and Export. A plain widget: the lab (``EvalView``) connects its buttons."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QStyle,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from workbench.core.evaluate.bundled import bundled_sets
from workbench.core.retrieve.strategy.presets import PRESETS, Strategy
from workbench.ui.widgets.elided_combo import ElidedComboBox

BUDGETS_TIP = ("Run every configuration at each context budget (tokens) and draw recall against mean context "
               "tokens, one curve per strategy")


class LabInputs(QWidget):
    """The lab's controls (see the module docstring); ``checked_strategies`` / ``set_checked`` read and set
    the strategy list."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.open_button = QPushButton("Question set…")
        self.bundled_button = QToolButton()
        self.bundled_button.setText("Bundled")
        self.bundled_button.setToolTip("Question sets shipped with the workbench (no file dialog)")
        self.bundled_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.bundled_menu = QMenu(self.bundled_button)
        self.bundled_menu.setToolTipsVisible(True)
        self.bundled_button.setMenu(self.bundled_menu)
        self.reviewed_only = QCheckBox("Reviewed only")
        self.reviewed_only.setToolTip("A set stored in the data folder: leave out the drafts nobody reviewed")
        self.set_label = QLabel("no question set loaded")
        self.set_label.setWordWrap(True)
        self.limit = QSpinBox()
        self.limit.setRange(0, 100000)
        self.limit.setSpecialValueText("all questions")
        self.limit.setToolTip("How many questions of the set to run (all questions: every one)")
        self.strategies = QListWidget()
        self.set_saved({})
        self.set_checked(["plain"])
        # the strategies flow in columns, left to right, in three rows: the lab's plots keep the height
        self.strategies.setFlow(QListView.Flow.TopToBottom)
        self.strategies.setWrapping(True)
        self.strategies.setResizeMode(QListView.ResizeMode.Adjust)
        self.strategies.setSpacing(1)
        rows = 3
        self.strategies.setFixedHeight(rows * (self.strategies.fontMetrics().height() + 4) + 2
                                       * self.strategies.frameWidth() + self.strategies.style().pixelMetric(
                                           QStyle.PixelMetric.PM_ScrollBarExtent) + 4)
        self.grid = QLineEdit(placeholderText="sweep, e.g. window=0,1,2 chunk_size=100,200")
        self.grid.setToolTip("Every checked strategy at every combination of these values")
        self.budgets = QLineEdit(placeholderText="none, e.g. 250,500,1000,1500,2000")
        self.budgets.setToolTip(BUDGETS_TIP)
        self.run_button, self.cancel_button = QPushButton("Run"), QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.progress = QProgressBar()
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.runs = ElidedComboBox()
        self.runs.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.runs.setMinimumContentsLength(24)
        self.open_run_button = QPushButton("Open run")
        self.export_button = QPushButton("Export…")
        self.export_button.setEnabled(False)
        self._layout()

    def _layout(self) -> None:
        controls = QGridLayout()
        opener = QHBoxLayout()
        opener.addWidget(self.open_button)
        opener.addWidget(self.bundled_button)
        opener.addWidget(self.reviewed_only)
        controls.addLayout(opener, 0, 0)
        controls.addWidget(self.set_label, 0, 1, 1, 3)
        controls.addWidget(QLabel("Strategies"), 1, 0)
        controls.addWidget(self.strategies, 1, 1, 1, 3)
        sweep_label = QLabel("Sweep")
        sweep_label.setBuddy(self.grid)
        controls.addWidget(sweep_label, 2, 0)
        sweep_row = QHBoxLayout()
        sweep_row.addWidget(self.grid, 3)
        budgets_label = QLabel("Budgets")
        budgets_label.setBuddy(self.budgets)
        budgets_label.setToolTip(BUDGETS_TIP)
        sweep_row.addWidget(budgets_label)
        sweep_row.addWidget(self.budgets, 2)
        controls.addLayout(sweep_row, 2, 1)
        controls.addWidget(self.limit, 2, 2)
        buttons = QHBoxLayout()
        for w in (self.run_button, self.cancel_button, self.progress, self.runs, self.open_run_button,
                  self.export_button):
            buttons.addWidget(w)
        controls.setVerticalSpacing(3)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(3)
        lay.addLayout(controls)
        lay.addLayout(buttons)
        lay.addWidget(self.status)

    def set_saved(self, saved: dict[str, Strategy]) -> None:
        """List the presets, then the strategies saved in the data folder (the advisor's picks), each checkable;
        the checked ones stay checked."""
        checked = self.checked_strategies()
        self.strategies.clear()
        for name, strategy in {**PRESETS, **saved}.items():
            item = QListWidgetItem(name)
            item.setToolTip(("saved: " if name in saved and name not in PRESETS else "") + strategy.describe())
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Unchecked)
            self.strategies.addItem(item)
        self.set_checked(checked)

    def checked_strategies(self) -> list[str]:
        """Names of the checked strategies (presets and saved ones)."""
        items = (self.strategies.item(i) for i in range(self.strategies.count()))
        return [it.text() for it in items if it.checkState() == Qt.CheckState.Checked]

    def set_checked(self, names: list[str]) -> None:
        """Check exactly these strategies."""
        for i in range(self.strategies.count()):
            it = self.strategies.item(i)
            it.setCheckState(Qt.CheckState.Checked if it.text() in names else Qt.CheckState.Unchecked)


def fill_bundled_menu(menu: QMenu, load: Callable[[Path], object]) -> None:
    """List the bundled question sets (whatever ``bundled_sets()`` finds now) in ``menu``; choosing one
    calls ``load(path)``."""
    menu.clear()
    for bundled in bundled_sets():
        action = menu.addAction(f"{bundled.name}  ({bundled.questions} questions, {len(bundled.corpora)} corpora)")
        action.setToolTip(f"{bundled.title} · licence: {bundled.licence}")
        action.setData(str(bundled.path))
        action.triggered.connect(lambda _checked=False, path=bundled.path: load(path))
    if menu.isEmpty():
        action = menu.addAction("no bundled question sets found")
        action.setEnabled(False)
