"""*Import questions…* (File menu and the lab's Questions tab): a benchmark of the field, from a file or folder the
person picks, into a new question set stored in the data folder — the importers of ``workbench import-questions``
(``core/evaluate/importers``), run as a job with progress and Cancel. The report says what was imported, what
could not be located (a count and the first few) and what was skipped and why; ``imported(name)`` lets the
Questions tab show the new set selected.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.ui.basics.wording import for_the_window
from workbench.ui.jobs.dialog_job import DialogJob
from workbench.ui.jobs.job_progress import JobProgress
from workbench.ui.jobs.workers import JobRunner

if TYPE_CHECKING:
    from workbench.core.evaluate.importers import ImportReport
    from workbench.core.jobs import CancelToken, ProgressSink
    from workbench.core.workspace import Workspace

# format -> (what the person picks, a file or a folder); see docs/evaluation.md
SOURCES: dict[str, tuple[str, bool]] = {
    "chroma": ("the folder with questions_df.csv / questions.csv and the corpora", True),
    "legalbench-rag": ("the folder with benchmarks/ and corpus/", True),
    "qasper": ("the release JSON (keyed by paper id)", False),
    "ragbench": ("a JSON Lines or Parquet file of one subset", False),
    "hicbench": ("the JSON Lines file (its documents beside it)", False),
    "gutenqa": ("the folder with questions.jsonl and books/ (or documents/)", True),
    "mtcb": ("the folder with questions.jsonl and documents/ (or books/)", True),
    "squad": ("the SQuAD-style JSON", False),
}


class ImportQuestionsDialog(QDialog):
    """Pick a format, a file or folder and a set name; Import runs the importer in the background."""

    imported = Signal(str)  # the new set's name

    def __init__(self, ws: Workspace, runner: JobRunner | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Import questions…")
        self.ws = ws
        self.runner = runner or JobRunner(1, self)
        self.format = QComboBox()
        self.format.addItems(list(SOURCES))
        self.source = QLineEdit()
        self.browse = QPushButton("Choose…")
        self.set_name = QLineEdit()
        self.set_name.setPlaceholderText("the new set's name")
        self.hint = QLabel()
        self.hint.setObjectName("muted")
        self.hint.setWordWrap(True)
        self.start_button = QPushButton("Import")
        self.start_button.setObjectName("primary")
        self.progress = JobProgress()
        self.report = QLabel()
        self.report.setWordWrap(True)
        self.report.setMinimumWidth(420)
        form = QFormLayout()
        form.addRow("Format", self.format)
        row = QHBoxLayout()
        row.addWidget(self.source, 1)
        row.addWidget(self.browse)
        form.addRow("From", row)
        form.addRow("", self.hint)
        form.addRow("Into set", self.set_name)
        self.close_button = QPushButton("Cancel")  # closes the dialog; a running import is cancelled first
        self.close_button.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.close_button)
        buttons.addWidget(self.start_button)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.progress)
        lay.addWidget(self.report)
        lay.addLayout(buttons)
        self.format.currentTextChanged.connect(self._format_changed)
        self.browse.clicked.connect(self._choose)
        self.start_button.clicked.connect(self.start)
        self.set_name.returnPressed.connect(self.start)
        self.task = DialogJob(self.runner, self.progress, self.start_button,
                              lambda text: self.report.setText(for_the_window(text)), self)
        self._format_changed(self.format.currentText())

    def _format_changed(self, fmt: str) -> None:
        self.hint.setText(f"{fmt}: {SOURCES[fmt][0]} (see docs/evaluation.md); nothing is downloaded")

    def _choose(self) -> None:
        what, folder = SOURCES[self.format.currentText()]
        if folder:
            path = QFileDialog.getExistingDirectory(self, f"Import questions: {what}")
        else:
            path, _ = QFileDialog.getOpenFileName(self, f"Import questions: {what}")
        if path:
            self.source.setText(path)
            if not self.set_name.text().strip():
                self.set_name.setText(Path(path).stem)

    @property
    def running(self) -> bool:
        """True while an import runs."""
        return self.task.running

    def start(self) -> bool:
        """Check the inputs (a refusal is said in the report, nothing is written) and start the import."""
        from workbench.core.evaluate.importers import READERS, import_parsed
        from workbench.core.evaluate.stored_sets import check_set_name

        if self.task.running:
            return False
        fmt, name = self.format.currentText(), self.set_name.text().strip()
        source = Path(self.source.text().strip()).expanduser()
        try:
            if not self.source.text().strip() or not source.exists():
                raise ValueError(f"choose the {fmt} {'folder' if SOURCES[fmt][1] else 'file'} to import from")
            check_set_name(name)
            if name in self.ws.questions.names():
                raise ValueError(f"a question set called {name!r} exists already; choose another name")
        except ValueError as exc:
            self.report.setText(for_the_window(str(exc)))
            return False
        ws = self.ws

        def job(progress: ProgressSink, cancel: CancelToken) -> ImportReport:
            return import_parsed(ws, READERS[fmt](source), name, fmt, progress, cancel)

        return self.task.run(job, "import questions", f"Importing {fmt}", self._result, "not imported: ",
                             "cancelled: no question set was written")

    def cancel(self) -> None:
        """Ask the running import to stop."""
        self.task.cancel()

    def _result(self, result: object) -> None:
        report = cast("ImportReport", result)
        self.report.setText(for_the_window("\n".join(report.lines())))
        self.imported.emit(report.set_name)

    def done(self, code: int) -> None:  # QDialog API: closing cancels the import
        self.cancel()
        super().done(code)
