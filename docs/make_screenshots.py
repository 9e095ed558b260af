"""Screenshots of gtreview's main views on the sample project, for the docs.

Runs offscreen on a fresh copy of the sample project and writes PNGs to
docs/screenshots/. Re-run after changing the UI:

    .venv/bin/python docs/make_screenshots.py
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from gtreview.services import workflow
from gtreview.services.sample_project import ensure_sample_project
from gtreview.ui.main_window import MainWindow

OUT = Path(__file__).resolve().parent / "screenshots"


def main() -> None:
    app = QApplication.instance() or QApplication(sys.argv)
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        project = ensure_sample_project(Path(tmp) / "sample")
        settings = QSettings(str(Path(tmp) / "settings.ini"), QSettings.Format.IniFormat)
        settings.setValue("reviewer/name", "Dr E. Marlowe")
        window = MainWindow(project, settings)
        window.resize(1600, 1000)
        window.show()
        set_id = window.set_id
        assert set_id is not None
        for qid in ("A1", "A2"):
            workflow.approve(project.engine, set_id, qid, reviewer="Dr E. Marlowe", comment="checked against sources")
        window.open_set(set_id)
        window.question_list.select("C6")
        app.processEvents()
        shots = {"review": 0, "edit": 1, "calibration": 2}
        for name, tab in shots.items():
            window.tabs.setCurrentIndex(tab)
            app.processEvents()
            window.grab().save(str(OUT / f"{name}.png"))
        window.editor.title_edit.setText("Which water level controlled oxidation at the Garibaldi?")
        window.editor._commit(next(b for b in window.editor._bindings if b.path == ("title",)))
        window.tabs.setCurrentIndex(3)
        app.processEvents()
        window.grab().save(str(OUT / "history.png"))
        window.source_pane.evidence_list.setCurrentRow(1)
        window.tabs.setCurrentIndex(0)
        app.processEvents()
        window.source_pane.grab().save(str(OUT / "sources.png"))
        window.close()
        project.close()
    print("\n".join(str(p) for p in sorted(OUT.glob("*.png"))))


if __name__ == "__main__":
    main()
