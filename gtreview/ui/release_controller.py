"""The release page: a sign-off and its bundles, read in a worker; Verify runs the app
function ``gtreview release verify`` calls (``verify_release_bundle``, trusting the keys
the project trusts, as ``--project`` does) in a worker; Open folder hands the folder to
the desktop's file manager."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QUrl
from PySide6.QtGui import QDesktopServices

from gtreview.app.projects import Project
from gtreview.app.releases import SignoffRelease, VerifyReport, signoff_release, verify_release_bundle
from gtreview.core.wording import plural
from gtreview.ui.ops import LatestQuery, QueryOp, failure_kind, failure_message, notify
from gtreview.ui.widgets.release_view import ReleaseView


class ReleaseController(QObject):
    def __init__(self, project: Project, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.project = project
        self.view = ReleaseView()
        self.signoff_id: int | None = None  # the sign-off shown
        self._read = LatestQuery(self)
        self.view.verify_requested.connect(self.verify)
        self.view.open_requested.connect(self.open_folder)

    def show(self, signoff_id: int, opened: Callable[[], None] | None = None) -> None:
        """Read the sign-off and its bundles in a worker, then show them (and call ``opened``)."""
        engine = self.project.engine

        def put(release: SignoffRelease) -> None:
            self.signoff_id = signoff_id
            self.view.show_release(release)
            if opened is not None:
                opened()

        self._read.run(
            lambda: signoff_release(engine, signoff_id),
            put,
            lambda error: notify(self, f"Cannot show the release: {failure_message(error)}", failure_kind(error)),
        )

    def reload(self) -> None:
        """Read the sign-off shown again (a bundle was published from it)."""
        if self.signoff_id is not None:
            self.show(self.signoff_id)

    def verify(self, folder: Path) -> None:
        project_folder = self.project.folder
        self.view.show_verifying(folder)

        def done(report: VerifyReport) -> None:
            self.view.show_report(folder, report)
            verdict = "valid" if report.ok else f"INVALID ({plural(len(report.problems), 'problem')})"
            notify(self, f"{folder}: {verdict}.", "success" if report.ok else "warning")

        def failed(error: BaseException) -> None:
            self.view.show_failure(folder, failure_message(error))
            notify(self, f"Could not verify {folder}: {failure_message(error)}", failure_kind(error))

        QueryOp(self, op=lambda: verify_release_bundle(folder, project_folder=project_folder), success=done).failure(
            failed
        ).run_in_background()

    def open_folder(self, folder: Path) -> None:
        if not folder.is_dir():
            notify(self, f"{folder} is not there any more (moved or deleted).", "warning")
        elif not QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))):
            notify(self, f"No file manager opened {folder}.", "warning")
