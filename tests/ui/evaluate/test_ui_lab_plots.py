"""The lab's plots on a laptop: the wheel scrolls the page and zooms only with Ctrl, a zoomed plot shows
*Reset zoom* which gives back the drawn ranges, the IoU axis fits its values (recall keeps 0–100), and the
exported images are what the lab shows (the trade-off plot and, with budgets, the curves)."""

from __future__ import annotations

from ui_support import run_lab, sample_set

pytest_plugins = ["ui_support"]


def _wheel(widget, modifiers):
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    centre = QPointF(widget.rect().center())
    event = QWheelEvent(centre, QPointF(widget.mapToGlobal(centre.toPoint())), QPoint(0, 0), QPoint(0, 120),
                        Qt.MouseButton.NoButton, modifiers, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget.viewport(), event)
    QApplication.processEvents()


def test_the_wheel_zooms_only_with_ctrl_and_reset_gives_back_the_drawn_ranges(qtbot, make_window, hash_ws,
                                                                               tmp_path):
    from PySide6.QtCore import Qt

    window = make_window(hash_ws)
    window.set_mode("evaluate")
    view = window.eval_view
    assert view.load_question_set(sample_set(tmp_path))
    view.set_checked(["plain", "neighbours"])
    view.budgets.setText("150,300")
    run_lab(qtbot, view)
    plot = view.plot
    view.plot_tabs.setCurrentWidget(plot)  # a run with budgets opens on its curves
    drawn = plot.recall_plot.vb.viewRange()
    _wheel(plot.view, Qt.KeyboardModifier.NoModifier)
    assert plot.recall_plot.vb.viewRange() == drawn and not plot.reset.isVisible(), "a plain wheel does not zoom"
    _wheel(plot.view, Qt.KeyboardModifier.ControlModifier)
    assert plot.recall_plot.vb.viewRange() != drawn or plot.iou_plot.vb.viewRange() != drawn
    assert plot.reset.isVisible()
    plot.reset.click()
    assert plot.recall_plot.vb.viewRange() == drawn and not plot.reset.isVisible()

    top = plot.ranges()["iou"][3]
    best = max(100 * float(row["iou"] or 0.0) for row in plot.rows)
    assert best <= top <= max(best * 1.2, 1.0), f"IoU axis to {top} for values up to {best:.1f}"
    assert plot.ranges()["recall"][2:] == (0.0, 100.0)

    from PySide6.QtGui import QImage

    def image(source) -> QImage:
        return (QImage(str(source)) if not hasattr(source, "grab") else source.grab().toImage()).convertToFormat(
            QImage.Format.Format_RGB32)

    qtbot.wait(20)  # the layout settles after the reset button hid
    files = view.export_to(tmp_path / "export")
    assert image(files["plot_png"]) == image(plot.view), "the trade-off plot as shown"
    assert image(files["curves_png"]) == image(view.curve_plot), "the curves as shown"
