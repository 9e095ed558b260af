"""A release: the sign-off it was made from, each bundle published from it (its folder,
signer, key fingerprint, time and question count), and a Verify that says VALID or
INVALID with its reasons, as ``gtreview release verify`` does."""

from __future__ import annotations

from html import escape
from pathlib import Path

from PySide6.QtCore import Signal, SignalInstance
from PySide6.QtWidgets import QComboBox, QFormLayout, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from gtreview.app.releases import PublishedRelease, SignoffRelease, VerifyReport
from gtreview.core.wording import plural
from gtreview.ui.widgets.html import HtmlBrowser, style

NO_BUNDLE_HTML = (
    "<p>No bundle has been published from this sign-off in this project yet. "
    "<b>File &gt; Publish signed release…</b> writes one (of the open set's latest sign-off), "
    "and so does <code>gtreview release create</code>.</p>"
)


class ReleaseView(QWidget):
    verify_requested = Signal(object)  # the bundle's folder
    open_requested = Signal(object)  # the bundle's folder

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.release: SignoffRelease | None = None
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.bundles = QComboBox()
        self.bundles.setToolTip("The bundles published from this sign-off, newest first")
        self.bundles.currentIndexChanged.connect(lambda _index: self._show_bundle())
        self.detail = HtmlBrowser()
        self.verify_button = QPushButton("&Verify")
        self.verify_button.setToolTip(
            "Check the bundle's signature, every file's hash and who signed it "
            "(as gtreview release verify does; the project's trusted keys count)"
        )
        self.verify_button.clicked.connect(lambda: self._ask(self.verify_requested))
        self.open_button = QPushButton("Open &folder")
        self.open_button.setToolTip("Open the bundle's folder in the file manager")
        self.open_button.clicked.connect(lambda: self._ask(self.open_requested))
        self.verdict = HtmlBrowser()
        self.verdict.setAccessibleName("Verification")
        choose = QFormLayout()
        choose.addRow("&Bundle:", self.bundles)
        buttons = QHBoxLayout()
        buttons.addWidget(self.verify_button)
        buttons.addWidget(self.open_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addLayout(choose)
        layout.addWidget(self.detail, 3)
        layout.addLayout(buttons)
        layout.addWidget(self.verdict, 2)

    def show_release(self, release: SignoffRelease) -> None:
        """The sign-off and its bundles; the newest bundle is shown, not yet verified."""
        self.release = release
        signoff = release.signoff
        self.title.setText(
            f"<h2>{escape(release.set_name)} — sign-off #{signoff.number}</h2>"
            f"<p>Signed off by {escape(signoff.reviewer)} on {signoff.signed_at:%Y-%m-%d %H:%M}, "
            f"{signoff.question_count} questions"
            + (f": “{escape(signoff.comment)}”" if signoff.comment else "")
            + "</p>"
        )
        self.bundles.blockSignals(True)
        self.bundles.clear()
        for bundle in release.bundles:
            self.bundles.addItem(f"{bundle.folder} ({bundle.created_at})")
        self.bundles.blockSignals(False)
        self.bundles.setEnabled(len(release.bundles) > 1)
        self._show_bundle()

    def bundle(self) -> PublishedRelease | None:
        """The bundle chosen."""
        if self.release is None or not self.release.bundles:
            return None
        return self.release.bundles[max(self.bundles.currentIndex(), 0)]

    def _show_bundle(self) -> None:
        bundle = self.bundle()
        self.verify_button.setEnabled(bundle is not None)
        self.open_button.setEnabled(bundle is not None)
        self.verdict.clear()
        if self.release is None:
            return
        if bundle is None:
            self.detail.setHtml(style() + NO_BUNDLE_HTML + _signoff_rows(self.release))
            return
        rows = [
            ("Folder", str(bundle.folder)),
            ("Made from", f"{bundle.set_name} (set {bundle.set_id}), sign-off #{bundle.signoff_number}"),
            ("Signed by", bundle.signer),
            ("Key fingerprint", bundle.fingerprint),
            ("Published", bundle.created_at),
            ("Questions", str(bundle.question_count)),
            ("Content hash", bundle.content_hash),
        ]
        self.detail.setHtml(style() + _table(rows) + "<p class='meta'>Verify checks the folder as it is now.</p>")

    def show_verifying(self, folder: Path) -> None:
        self.verify_button.setEnabled(False)
        self.verdict.setHtml(style() + f"<p class='meta'>Verifying {escape(str(folder))}…</p>")

    def show_report(self, folder: Path, report: VerifyReport) -> None:
        """VALID or INVALID and why, for the bundle still chosen (a late answer for another is dropped)."""
        bundle = self.bundle()
        if bundle is None or bundle.folder != folder:
            return
        self.verify_button.setEnabled(True)
        self.verdict.setHtml(style() + verdict_html(report))

    def show_failure(self, folder: Path, message: str) -> None:
        bundle = self.bundle()
        if bundle is not None and bundle.folder == folder:
            self.verify_button.setEnabled(True)
            self.verdict.setHtml(style() + f"<p class='err'>Could not verify: {escape(message)}</p>")

    def _ask(self, signal: SignalInstance) -> None:
        bundle = self.bundle()
        if bundle is not None:
            signal.emit(bundle.folder)


def verdict_html(report: VerifyReport) -> str:
    """The verdict first, then each reason on its own line (the CLI's lines)."""
    if report.ok:
        who = f"signed by {report.signer} ({report.fingerprint})"
        if report.trusted_as:
            who += f", a key trusted as {report.trusted_as}"
        head = f"<h3>VALID</h3><p>{escape(who)}; {escape(report.set_name or '')}, sign-off {report.signoff_number}</p>"
    elif not report.readable:
        head = "<h3><span class='err'>INVALID</span></h3><p>The bundle cannot be read:</p>"
    else:
        head = f"<h3><span class='err'>INVALID ({plural(len(report.problems), 'problem')})</span></h3>"
    reasons = "".join(f"<li class='err'>{escape(p.one_line())}</li>" for p in report.problems)
    notes = "".join(f"<li>note: {escape(w)}</li>" for w in report.warnings)
    return head + (f"<ul>{reasons}{notes}</ul>" if reasons or notes else "")


def _table(rows: list[tuple[str, str]]) -> str:
    cells = "".join(f"<tr><th>{escape(name)}</th><td>{escape(value)}</td></tr>" for name, value in rows)
    return f"<table>{cells}</table>"


def _signoff_rows(release: SignoffRelease) -> str:
    signoff = release.signoff
    return _table(
        [
            ("Set", f"{release.set_name} (set {release.set_id})"),
            ("Sign-off", f"#{signoff.number} by {signoff.reviewer}, {signoff.signed_at:%Y-%m-%d %H:%M}"),
            ("Questions", str(signoff.question_count)),
            ("Content hash", signoff.content_hash),
        ]
    )
