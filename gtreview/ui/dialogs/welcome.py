"""First run: open the sample project, create a new project, or open one."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QDialog, QFileDialog, QLabel, QListWidget, QPushButton, QVBoxLayout, QWidget

from gtreview import __version__


class WelcomeDialog(QDialog):
    """``choice`` is ("sample", None), ("new", folder) or ("open", folder) once accepted."""

    def __init__(self, recent: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Welcome to gtreview")
        self.choice: tuple[str, Path | None] | None = None
        intro = QLabel(
            f"<h2>gtreview {__version__}</h2>"
            "<p>Review source-grounded geology benchmarks beside their sources, run local base and "
            "fine-tuned models, judge them, and publish signed sets and reports.</p>"
        )
        intro.setWordWrap(True)
        self.sample_button = QPushButton("&Open the sample project (Mount Wirrim goldfield)")
        self.new_button = QPushButton("&New project…")
        self.open_button = QPushButton("Open a &project folder…")
        self.recent = QListWidget()
        self.recent.addItems(recent)
        self.recent.itemActivated.connect(lambda item: self._choose("open", Path(item.text())))
        self.sample_button.clicked.connect(lambda: self._choose("sample", None))
        self.new_button.clicked.connect(lambda: self._pick("new"))
        self.open_button.clicked.connect(lambda: self._pick("open"))
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        for button in (self.sample_button, self.new_button, self.open_button):
            layout.addWidget(button)
        if recent:
            layout.addWidget(QLabel("Recent projects (Enter to open):"))
            layout.addWidget(self.recent)
        self.sample_button.setDefault(True)

    def _pick(self, kind: str) -> None:
        title = "Choose an empty folder for the new project" if kind == "new" else "Open a project folder"
        folder = QFileDialog.getExistingDirectory(self, title)
        if folder:
            self._choose(kind, Path(folder))

    def _choose(self, kind: str, folder: Path | None) -> None:
        self.choice = (kind, folder)
        self.accept()
