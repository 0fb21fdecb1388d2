"""The lab's *Against a baseline* tab: each configuration's recall difference with what its questions detect and
how many questions a chosen difference needs (figures recomputed here from the per-question recall), the claim in
words, and headers that are never clipped on a 1280 × 720 screen."""

from __future__ import annotations

import math

import numpy as np
from ui_support import clipped_texts, on_screen

from workbench.core.evaluate.metrics import QuestionMetrics
from workbench.core.evaluate.sweep import ConfigResult, QuestionResult, SweepConfig
from workbench.core.retrieve.strategy.presets import Strategy

pytest_plugins = ["ui_support"]

Z975, Z80 = 1.959964, 0.841621  # the normal quantiles, written out
N = 40
KEYS = ["plain", "plain window=1 chunk_size=200 overlap=20 top_k=5 · a long configuration key",
        "neighbours window=2"]
SPREADS = [0.0, 0.3, 0.15]  # per configuration: how far its recall wanders from the baseline's


def _row(i: int, recall: float) -> QuestionResult:
    hit = recall > 0
    m = QuestionMetrics(recall, recall / 2, recall / 3, hit, 1.0 if hit else 0.0, 1 if hit else None, 100, 400, 10,
                        10, round(10 * recall))
    return QuestionResult(i, f"q{i}", "c", [], m)


def _results() -> tuple[list[ConfigResult], list[np.ndarray]]:
    rng = np.random.default_rng(39)
    base = rng.uniform(0.2, 0.8, N)
    out, recalls = [], []
    for key, spread in zip(KEYS, SPREADS):
        recall = np.clip(base + 0.03 + rng.normal(0, spread, N), 0, 1) if spread else base
        recalls.append(recall)
        rows = [_row(i, float(r)) for i, r in enumerate(recall)]
        out.append(ConfigResult(SweepConfig(key, Strategy(), "plain"), rows))
    return out, recalls


def _expected(d: np.ndarray, points: float) -> tuple[str, str]:
    sd = float(np.std(d, ddof=1))
    mdd = 100 * (Z975 + Z80) * sd / math.sqrt(len(d) - Z975 ** 2 / 2)
    needed = math.ceil(((Z975 + Z80) * sd / (points / 100)) ** 2 + Z975 ** 2 / 2)
    return f"≥ {mdd:.1f}", f"{needed:,}"


def _cells(table, row: int) -> list[str]:
    return [table.item(row, j).text() for j in range(table.columnCount())]


def test_the_table_gives_each_comparison_what_it_detects_and_what_a_difference_needs(qtbot):
    from workbench.ui.evaluate.baseline_panel import NEEDS_TWO, BaselinePanel

    panel = BaselinePanel()
    qtbot.addWidget(panel)
    results, recalls = _results()
    panel.set_results(results[:1])
    assert panel.table.rowCount() == 0 and panel.text.toPlainText() == NEEDS_TWO and not panel.summary.text()
    panel.set_results(results)
    table = panel.table
    headers = [table.horizontalHeaderItem(j).text() for j in range(table.columnCount())]
    assert headers == ["configuration", "Δ recall", "CI", "p", "detects ≥", "n for 5 pts"]
    assert table.rowCount() == 2
    for row, k in ((0, 1), (1, 2)):
        d = recalls[k] - recalls[0]
        cells = _cells(table, row)
        assert cells[0] == KEYS[k] and table.item(row, 0).toolTip() == KEYS[k]
        assert cells[1] == f"{'+' if d.mean() > 0 else '−'}{100 * abs(d.mean()):.1f}"
        assert cells[4:] == list(_expected(d, 5))
    wide, narrow = (_expected(recalls[k] - recalls[0], 5) for k in (1, 2))
    assert int(wide[1].replace(",", "")) > int(narrow[1].replace(",", "")), "a wider spread needs more questions"
    # two comparisons: the words take the lower middle spread (the narrower one here)
    d = recalls[2] - recalls[0]
    sd = float(np.std(d, ddof=1))
    assert panel.summary.text() == (
        f"Recall, [{KEYS[2]}] against [{KEYS[0]}] (the middle spread of 2 comparisons): these {N} questions detect "
        f"about {100 * (Z975 + Z80) * sd / math.sqrt(N - Z975 ** 2 / 2):.0f} points (80% power, α 0.05); to tell 5 "
        f"points apart you need about {narrow[1]} questions like these.")

    panel.detect.setValue(3)
    assert table.horizontalHeaderItem(5).text() == "n for 3 pts"
    assert _cells(table, 1)[5] == _expected(d, 3)[1]
    assert "to tell 3 points apart you need about " + _expected(d, 3)[1] in panel.summary.text()
    assert "(3 points need about " in panel.text.toPlainText()

    panel.baseline.setCurrentIndex(1)  # another baseline: compared again, the chosen difference kept
    assert _cells(table, 0)[0] == KEYS[0] and table.horizontalHeaderItem(5).text() == "n for 3 pts"


def test_few_questions_say_so_instead_of_a_figure(qtbot):
    from workbench.ui.evaluate.baseline_panel import BaselinePanel

    panel = BaselinePanel()
    qtbot.addWidget(panel)
    results, recalls = _results()
    few = [ConfigResult(r.config, r.rows[:4]) for r in results[:2]]
    panel.set_results(few)
    cells = _cells(panel.table, 0)
    assert cells[4] == "n/a" and "fewer than 6 questions" in panel.table.item(0, 4).toolTip()
    assert cells[5] == _expected((recalls[1] - recalls[0])[:4], 5)[1], "the spread seen still says what 5 points need"
    assert "no difference can reach α 0.05 on fewer than 6 questions" in panel.summary.text()


def test_headers_and_words_are_not_clipped_at_1280_by_720(qtbot, monkeypatch, make_window, hash_ws):
    screen = on_screen(monkeypatch, 1280, 720)
    window = make_window(hash_ws)
    window.setGeometry(screen)
    window.set_mode("evaluate")
    lab = window.eval_view
    results, _ = _results()
    lab.show_results("run-1", results)
    panel = lab.baseline_panel
    lab.lower_tabs.setCurrentWidget(panel)
    qtbot.wait(30)
    assert panel.isVisible() and panel.table.rowCount() == 2
    header = panel.table.horizontalHeader()
    for j in range(panel.table.columnCount()):
        assert header.sectionSize(j) >= header.sectionSizeHint(j), panel.table.horizontalHeaderItem(j).text()
    assert panel.table.columnWidth(0) < panel.table.sizeHintForColumn(0), "the long key elides"
    assert not clipped_texts(panel), clipped_texts(panel)
    assert panel.summary.height() >= panel.summary.heightForWidth(panel.summary.width()), "every line of the words"
