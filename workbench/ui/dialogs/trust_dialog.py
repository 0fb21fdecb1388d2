"""The window's trust step: data named code (a custom chunker or a model folder); may it run?"""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget

from workbench.core.consent import trust


def ask_to_trust(parent: QWidget | None, target: str, what: str) -> bool:
    """Ask whether ``target`` may run in this session (``what`` names it for people); on yes, allow it
    (``workbench.core.consent.trust``) and return True. Nothing is remembered after the app closes."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle("Run code named by data?")
    box.setText(f"This strategy names {what}.")
    box.setInformativeText(
        "It was read from data (a run record, saved settings or a strategy file), not chosen by you, and "
        "running it executes Python code. Allow it for this session only if you trust where the data came "
        "from.")
    allow = box.addButton("Allow for this session", QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    if box.clickedButton() is allow:
        trust(target)
        return True
    return False
