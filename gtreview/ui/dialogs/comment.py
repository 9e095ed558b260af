"""The comment asked for by a review action (request changes, retire, sign off, a reason):
typed with the keyboard, accepted with Ctrl+Return."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget


class CommentEdit(QPlainTextEdit):
    """A text box that hands Ctrl+Return to its dialog instead of making a new line."""

    submitted = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and (
            event.modifiers() & Qt.KeyboardModifier.ControlModifier
        ):
            self.submitted.emit()
            return
        super().keyPressEvent(event)


class CommentDialog(QDialog):
    """Enter makes a new line (comments have paragraphs), Tab moves on to the buttons,
    Ctrl+Return accepts and Escape cancels."""

    def __init__(
        self,
        title: str,
        prompt: str,
        parent: QWidget | None = None,
        *,
        required: bool = True,
        hint: str | None = None,
    ) -> None:
        super().__init__(parent)
        self.required = required  # a reason the action needs: OK waits for some text, so none is lost to a refusal
        self.setWindowTitle(title)
        label = QLabel(prompt)
        label.setWordWrap(True)
        self.text = CommentEdit()
        self.text.setTabChangesFocus(True)
        self.text.submitted.connect(self._submit)
        label.setBuddy(self.text)
        keys = QLabel(hint or (("Type a reason; " if required else "") + "Ctrl+Return to accept, Escape to cancel"))
        keys.setEnabled(False)  # drawn as secondary text
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._submit)
        buttons.rejected.connect(self.reject)
        self.ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.text.textChanged.connect(self._enable_ok)
        self._enable_ok()
        layout = QVBoxLayout(self)
        layout.addWidget(label)
        layout.addWidget(self.text)
        layout.addWidget(keys)
        layout.addWidget(buttons)
        self.resize(520, 260)
        self.text.setFocus()

    def comment(self) -> str:
        return self.text.toPlainText()

    def _enable_ok(self) -> None:
        self.ok.setEnabled(not self.required or bool(self.comment().strip()))

    def _submit(self) -> None:
        if self.ok.isEnabled():
            self.accept()


def ask_comment(parent: QWidget, title: str, prompt: str, *, required: bool = True) -> str | None:
    """The comment typed, or None when the dialog was cancelled."""
    dialog = CommentDialog(title, prompt, parent, required=required)
    return dialog.comment() if dialog.exec() == QDialog.DialogCode.Accepted else None
