"""Wires the adjudication queue and blind grading views to the services."""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QInputDialog, QWidget

from gtreview.corpus.locators import CorpusIndex
from gtreview.judging.marking import marking_block
from gtreview.results.loader import RunResults, load_run_results
from gtreview.app import adjudication as adj
from gtreview.store.project import Project
from gtreview.ui.widgets.adjudication_view import AdjudicationView, item_html
from gtreview.ui.widgets.grading_view import GradingView


class AdjudicationController(QObject):
    message = Signal(str)
    changed = Signal(int)  # run id whose figures changed

    def __init__(
        self, project: Project, index: CorpusIndex, reviewer: Callable[[], str], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.project, self.index, self.reviewer = project, index, reviewer
        self.queue_view = AdjudicationView()
        self.grading_view = GradingView()
        self.results: RunResults | None = None
        self.set_id: int | None = None
        self.ask_text: Callable[[str, str], str | None] = lambda title, prompt: _ask(parent, title, prompt)
        self.queue_view.item_selected.connect(self._show_item)
        self.queue_view.confirm_requested.connect(self._confirm)
        self.queue_view.override_requested.connect(self._override)
        self.queue_view.revert_requested.connect(self._revert)
        self.grading_view.save_requested.connect(self._save_grade)

    def open_queue(self, run_id: int, set_id: int | None) -> None:
        self.set_id = set_id
        self.results = load_run_results(self.project.engine, run_id)
        self.queue_view.show_queue(
            self.results, adj.adjudication_queue(self.project.engine, self.results, set_id=set_id)
        )

    def open_grading(self, run_id: int, size: int = 20) -> None:
        self.results = load_run_results(self.project.engine, run_id)
        self.grading_view.start(adj.grading_sample(self.project.engine, run_id, grader=self.reviewer(), size=size))

    def _show_item(self, item: adj.QueueItem) -> None:
        if self.results is None:
            return
        question = next((q for q in self.results.questions if q.id == item.qid), None)
        marking = marking_block(question, self.results.global_variants) if question else ""
        sources = ""
        if question is not None:
            for evidence in question.evidence:
                resolution = self.index.resolve(evidence.source or "", evidence.locator or "")
                text = (
                    " ".join([s.text for s in resolution.spans] + [", ".join(c.values) for c in resolution.cells])
                    or resolution.reason
                )
                sources += f"<p><b>{escape(evidence.claim or '')}</b><br><i>{escape(text[:600])}</i></p>"
        self.queue_view.show_item(
            item,
            item_html(self.results, item, marking, sources),
            adj.history(self.project.engine, self.results.run_id, item.key),
        )

    def _after(self, message: str) -> None:
        assert self.results is not None
        run_id = self.results.run_id
        self.open_queue(run_id, self.set_id)
        self.message.emit(message)
        self.changed.emit(run_id)

    def _confirm(self, item: adj.QueueItem) -> None:
        assert self.results is not None
        adj.confirm(
            self.project.engine,
            self.results.run_id,
            item.target,
            item.key,
            actor=self.reviewer(),
            reason=self.queue_view.form.reason.text(),
        )
        self._after(f"{item.qid}: judge confirmed.")

    def _override(self, item: adj.QueueItem) -> None:
        assert self.results is not None
        try:
            if item.target == "pair":
                reason = self.ask_text("Override the pair", "Why does the verdict change?")
                if reason is None:
                    return
                adj.override_pair(
                    self.project.engine,
                    self.results,
                    item.key,
                    actor=self.reviewer(),
                    label=self.queue_view.pair_label.currentText(),
                    reason=reason,
                )
            else:
                gate, awards = self.queue_view.form.values()
                adj.override_judgement(
                    self.project.engine,
                    self.results,
                    item.key,
                    actor=self.reviewer(),
                    gate_passed=gate,
                    awards=awards,
                    reason=self.queue_view.form.reason.text(),
                )
        except adj.AdjudicationError as exc:
            self.message.emit(f"Not recorded: {exc}")
            return
        self._after(f"{item.qid}: override recorded; every figure now uses it.")

    def _revert(self, item: adj.QueueItem, decision_id: int) -> None:
        assert self.results is not None
        reason = self.ask_text("Revert", f"Why revert decision #{decision_id}?")
        if reason is None:
            return
        try:
            adj.revert(self.project.engine, self.results.run_id, decision_id, actor=self.reviewer(), reason=reason)
        except adj.AdjudicationError as exc:
            self.message.emit(f"Not recorded: {exc}")
            return
        self._after(f"Decision #{decision_id} reverted.")

    def _save_grade(self, item: adj.GradingItem, gate: bool, awards: dict[str, int], comment: str) -> None:
        assert self.results is not None
        adj.save_grade(
            self.project.engine,
            self.results.run_id,
            item,
            grader=self.reviewer(),
            gate_passed=gate,
            awards=awards,
            comment=comment,
        )
        self.message.emit(f"Grade saved ({self.grading_view.position} of {len(self.grading_view.items)}).")
        self.changed.emit(self.results.run_id)


def _ask(parent: QWidget | None, title: str, prompt: str) -> str | None:
    text, ok = QInputDialog.getText(parent, title, prompt)
    return text if ok and text.strip() else None
