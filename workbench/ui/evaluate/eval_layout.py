"""The widgets and layout of the evaluation lab (``EvalView``), built once by ``setup_layout(view)`` in the
manner of a Qt Designer ``setupUi``: inputs and buttons on top, the summary table and the trade-off plot
side by side (the plot's second tab: the recall-per-context-token curves of a run with budgets), the selected
configuration's questions below; all of it in the *Sweep* tab, beside the *Advise* tab (``AdviseView``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from workbench.core.evaluate.bundled import bundled_sets
from workbench.core.retrieve.strategies import PRESETS, Strategy
from workbench.ui.evaluate.advise_view import AdviseView
from workbench.ui.evaluate.baseline_panel import BaselinePanel
from workbench.ui.evaluate.curve_panel import CurvePanel
from workbench.ui.evaluate.eval_tables import QUESTION_COLUMNS, SUMMARY_COLUMNS, make_table
from workbench.ui.evaluate.flip_browser import FlipBrowser
from workbench.ui.evaluate.tradeoff_plot import TradeoffPlot

if TYPE_CHECKING:
    from workbench.ui.evaluate.eval_view import EvalView


def setup_layout(view: EvalView) -> None:
    """Create ``view``'s widgets (as its attributes), lay them out and connect them to its slots."""
    view.open_button = QPushButton("Question set…")
    view.bundled_button = QToolButton()
    view.bundled_button.setText("Bundled")
    view.bundled_button.setToolTip("Question sets shipped with the workbench (no file dialog)")
    view.bundled_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
    view.bundled_menu = QMenu(view.bundled_button)
    view.bundled_menu.setToolTipsVisible(True)
    view.bundled_menu.aboutToShow.connect(view.fill_bundled_menu)
    view.bundled_button.setMenu(view.bundled_menu)
    view.fill_bundled_menu()
    view.set_label = QLabel("no question set loaded")
    view.limit = QSpinBox(minimum=0, maximum=100000, specialValueText="all questions")
    view.strategies = QListWidget()
    fill_strategy_list(view.strategies, view.ws.saved_strategies())
    view.strategies.item(0).setCheckState(Qt.Checked)  # plain
    view.strategies.setMaximumHeight(120)
    view.grid = QLineEdit(placeholderText="sweep, e.g. window=0,1,2 chunk_size=100,200")
    view.budgets = QLineEdit(placeholderText="none, e.g. 250,500,1000,1500,2000")
    view.budgets.setToolTip("Run every configuration at each context budget (tokens) and draw recall against "
                            "mean context tokens, one curve per strategy (as workbench eval --budgets)")
    view.run_button, view.cancel_button = QPushButton("Run"), QPushButton("Cancel")
    view.cancel_button.setEnabled(False)
    view.progress = QProgressBar()
    view.status = QLabel("")
    view.runs = QComboBox()
    view.open_run_button = QPushButton("Open run")
    view.export_button = QPushButton("Export…")
    view.export_button.setEnabled(False)

    controls = QGridLayout()
    opener = QHBoxLayout()
    opener.addWidget(view.open_button)
    opener.addWidget(view.bundled_button)
    controls.addLayout(opener, 0, 0)
    controls.addWidget(view.set_label, 0, 1, 1, 3)
    controls.addWidget(QLabel("Strategies"), 1, 0)
    controls.addWidget(view.strategies, 1, 1, 1, 3)
    controls.addWidget(QLabel("Sweep"), 2, 0)
    sweep_row = QHBoxLayout()
    sweep_row.addWidget(view.grid, 3)
    sweep_row.addWidget(QLabel("Budgets"))
    sweep_row.addWidget(view.budgets, 2)
    controls.addLayout(sweep_row, 2, 1)
    controls.addWidget(view.limit, 2, 2)
    buttons = QHBoxLayout()
    for w in (view.run_button, view.cancel_button, view.progress, view.runs, view.open_run_button,
              view.export_button):
        buttons.addWidget(w)

    view.summary = make_table(SUMMARY_COLUMNS)
    view.plot = TradeoffPlot()
    view.recall_plot, view.iou_plot = view.plot.recall_plot, view.plot.iou_plot
    view.compare_to = QComboBox()
    view.questions = make_table(QUESTION_COLUMNS)
    view.questions.setSortingEnabled(True)
    header = view.questions.horizontalHeader()
    header.setStretchLastSection(False)
    header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)  # the question text gets the room
    lower = QWidget()
    lower_layout = QVBoxLayout(lower)
    row = QHBoxLayout()
    row.addWidget(QLabel("Questions of the selected configuration; compare with"))
    row.addWidget(view.compare_to, 1)
    lower_layout.addLayout(row)
    lower_layout.addWidget(view.questions)
    split = QSplitter(Qt.Vertical)
    top = view.top_split = QSplitter(Qt.Horizontal)
    top.addWidget(view.summary)
    view.curves = CurvePanel()
    view.curve_plot = view.curves.plot
    view.plot_tabs = QTabWidget()
    view.plot_tabs.addTab(view.plot, "Trade-off")
    view.plot_tabs.addTab(view.curves, "Curves by budget")
    top.addWidget(view.plot_tabs)
    split.addWidget(top)
    view.flip_browser = FlipBrowser(view.reference_spans)
    view.lower_tabs = QTabWidget()
    view.lower_tabs.addTab(lower, "Questions")
    view.lower_tabs.addTab(view.flip_browser, "Flips A ↔ B")
    view.baseline_panel = BaselinePanel()
    view.lower_tabs.addTab(view.baseline_panel, "Against a baseline")
    split.addWidget(view.lower_tabs)

    sweep_page = QWidget()  # the lab's first tab; the advisor is the second
    layout = QVBoxLayout(sweep_page)
    layout.addLayout(controls)
    layout.addLayout(buttons)
    layout.addWidget(view.status)
    layout.addWidget(split, 1)
    view.advise = AdviseView(view.ws, view.jobs, lambda: view.qset, view.reference_spans)
    view.lab_tabs = QTabWidget()
    view.lab_tabs.addTab(sweep_page, "Sweep")
    view.lab_tabs.addTab(view.advise, "Advise")
    outer = QVBoxLayout(view)
    outer.setContentsMargins(0, 0, 0, 0)
    outer.addWidget(view.lab_tabs)

    view.open_button.clicked.connect(view._choose_set)
    view.run_button.clicked.connect(view._run_clicked)
    view.cancel_button.clicked.connect(view.cancel)
    view.open_run_button.clicked.connect(lambda: view.open_run(view.runs.currentData()))
    view.export_button.clicked.connect(view._choose_export)
    view.summary.itemSelectionChanged.connect(view._show_questions)
    view.compare_to.currentIndexChanged.connect(view._show_questions)
    view.questions.itemActivated.connect(view._activate)
    view.flip_browser.questionActivated.connect(view.questionActivated)
    view.summary.itemActivated.connect(view._configuration_activated)
    view.plot.pointClicked.connect(view.open_configuration)
    view.curve_plot.pointClicked.connect(view.select_configuration)
    view.refresh_runs()


def fill_strategy_list(strategies: QListWidget, saved: dict[str, Strategy]) -> None:
    """The presets, then the strategies saved in the data folder, each checkable (all unchecked)."""
    strategies.clear()
    for name, strategy in {**PRESETS, **saved}.items():
        item = QListWidgetItem(name)
        item.setToolTip(("saved: " if name in saved else "") + strategy.describe())
        item.setFlags(item.flags() | Qt.ItemIsUserCheckable)
        item.setCheckState(Qt.Unchecked)
        strategies.addItem(item)


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
        menu.addAction("no bundled question sets found").setEnabled(False)
