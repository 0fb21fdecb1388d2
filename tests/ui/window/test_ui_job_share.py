"""The progress line of a planned job: one bar for the whole job that never moves back while the phases'
own counts restart, with the phase, its counts and the job's time left."""

from PySide6.QtWidgets import QProgressBar

from workbench.core.jobs import ProgressEvent
from workbench.ui.jobs.job_progress import STEPS, JobProgress, describe, show_share


def _events() -> list[ProgressEvent]:
    return [ProgressEvent("chunking", 5, 10, overall=0.1, job_elapsed=1.0),
            ProgressEvent("embedding", 312, 1415, overall=0.4, job_elapsed=4.0),
            ProgressEvent("embedding", 3, 200, overall=0.4, job_elapsed=5.0),  # a second batch from 0
            ProgressEvent("evaluating", 40, 120, overall=0.9, job_elapsed=18.0)]


def test_the_line_shows_the_phase_and_never_moves_back(qtbot):
    line = JobProgress()
    qtbot.addWidget(line)
    line.start("Re-chunking")
    values = []
    for event in _events():
        line.update_event(event)
        values.append(line.bar.value())
    assert values == sorted(values) and line.bar.maximum() == STEPS
    assert values[1] == values[2] == round(0.4 * STEPS), "a restarting phase count holds the bar"
    assert line.detail.text() == "Scoring questions 40 / 120 · about 2 s left"
    assert describe(_events()[1]) == "Embedding chunks 312 / 1,415 · about 6 s left"
    assert describe(_events()[0]).startswith("Cutting documents 5 / 10")
    line.start("Re-chunking again")
    line.update_event(ProgressEvent("chunking", 1, 10, overall=0.05, job_elapsed=0.1))
    assert line.bar.value() == round(0.05 * STEPS), "a new job starts its bar from 0"


def test_a_plain_bar_shows_the_share_with_its_phase_inside(qtbot):
    bar = QProgressBar()
    qtbot.addWidget(bar)
    bar.setRange(0, 0)
    for event in _events():
        show_share(bar, event)
    assert bar.value() == round(0.9 * STEPS) and bar.format().startswith("Scoring questions 40 / 120")
    show_share(bar, ProgressEvent("estimate", 0, 0, "200 tokens: ~1,240 chunks", overall=0.9, job_elapsed=9.5))
    assert bar.value() == round(0.9 * STEPS), "a notice keeps the share"


def test_the_advisor_bar_says_what_runs_and_the_seconds_left_of_its_limit():
    from workbench.ui.evaluate.advise_view import advice_bar_text

    building = ProgressEvent("advising", 30, 120, "s of the limit; trial 3: embedding fixed 200 40/300")
    assert advice_bar_text(building, 30, 120) == "trial 3: embedding fixed 200 40/300 · 30 of 120 s · at most 90 s left"
    notice = ProgressEvent("advising", 0, 0, "trial 4: recall 81.2 % at 1,000 tokens")
    assert advice_bar_text(notice, 130, 120).endswith("· 130 of 120 s · at most 0 s left")
    assert advice_bar_text(ProgressEvent("advising", 0, 0), 5, 120).startswith("advising · 5 of 120 s")
