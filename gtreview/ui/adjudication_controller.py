"""Wires the adjudication queue and blind grading views to the use cases, through ops.

A decision (confirm, override, revert) is one ``CollectionOp``: in the worker it records
the decision (``gtreview.app.adjudicate``, against the decision in force the expert was
shown: one changed since, from another window or the command line, is refused) and
reads the queue and the item again, and the GUI only puts them in place, with the same
item selected. Nothing is reloaded or re-analysed on the GUI thread; the results view
hears of the change from the hub. Every outcome is a notice (``ops.notify``).

The queue is read again against the results loaded when it was opened: which items are
in it depends on the judge's own verdicts, which no decision changes; whether each is
settled, and the decision in force, come from the decisions, read fresh (also each time
an item is selected or clicked again, and when the queue is opened again).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from html import escape

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QInputDialog, QWidget
from sqlalchemy import Engine

from gtreview.app import adjudicate
from gtreview.app import adjudication as adj
from gtreview.app.adjudication import marking_block
from gtreview.app.projects import Project
from gtreview.app.results import reportable_runs
from gtreview.core.errors import UserError
from gtreview.core.rubric import Question
from gtreview.corpus.locators import CorpusIndex
from gtreview.results.loader import RunResults, load_run_results
from gtreview.ui.ops import CollectionOp, LatestQuery, OpChanges, OpResult, failure_kind, failure_message, notify
from gtreview.ui.project_index import SharedIndex
from gtreview.ui.widgets.adjudication_view import AdjudicationView, item_html
from gtreview.ui.widgets.grading_view import GradingView


class NoPass(UserError):
    pass


@dataclass(frozen=True)
class _Opened:
    results: RunResults
    items: list[adj.QueueItem]


@dataclass(frozen=True)
class _Shown:
    view: adjudicate.ItemView
    html: str
    question: Question | None


@dataclass(frozen=True)
class _Decided:
    items: list[adj.QueueItem]
    shown: _Shown


class AdjudicationController(QObject):
    def __init__(
        self, project: Project, index: SharedIndex, reviewer: Callable[[], str], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.project, self.index, self.reviewer = project, index, reviewer
        self.queue_view = AdjudicationView()
        self.grading_view = GradingView()
        self.results: RunResults | None = None
        self.set_id: int | None = None
        self.grading_run_id: int | None = None
        self.deciding = False
        self.ask_text: Callable[[str, str], str | None] = lambda title, prompt: _ask(parent, title, prompt)
        self._queue = LatestQuery(self)
        self._grading = LatestQuery(self)
        self._item = LatestQuery(self)
        self.queue_view.item_selected.connect(self._show_item)
        self.queue_view.confirm_requested.connect(self._confirm)
        self.queue_view.override_requested.connect(self._override)
        self.queue_view.revert_requested.connect(self._revert)
        self.grading_view.save_requested.connect(self._save_grade)

    # -- opening ---------------------------------------------------------------------
    def open_queue(self, run_id: int | None, set_id: int | None, opened: Callable[[], None] | None = None) -> None:
        """Read the queue of ``run_id`` (None: the newest pass) in a worker, then show it
        (the selected item read again: its decisions may have changed elsewhere)."""
        engine = self.project.engine

        def read() -> _Opened:
            results = load_run_results(engine, _run_or_latest(engine, run_id))
            return _Opened(results, adj.adjudication_queue(engine, results, set_id=set_id))

        def show(loaded: _Opened) -> None:
            self.results, self.set_id = loaded.results, set_id
            self.queue_view.show_queue(loaded.results, loaded.items)
            if opened is not None:
                opened()

        self._queue.run(read, show, self._failed)

    def open_grading(self, run_id: int | None, size: int = 20, opened: Callable[[], None] | None = None) -> None:
        engine, grader = self.project.engine, self.reviewer()

        def read() -> tuple[int, list[adj.GradingItem]]:
            chosen = _run_or_latest(engine, run_id)
            return chosen, adj.grading_sample(engine, chosen, grader=grader, size=size)

        def show(loaded: tuple[int, list[adj.GradingItem]]) -> None:
            self.grading_run_id = loaded[0]
            self.grading_view.start(loaded[1])
            if opened is not None:
                opened()

        self._grading.run(read, show, self._failed)

    def _read_item(self, results: RunResults, item: adj.QueueItem) -> _Shown:
        """In a worker: the item as it is now, and its detail."""
        question = next((q for q in results.every_question() if q.id == item.qid), None)
        marking = marking_block(question, results.global_variants) if question else ""
        view = adjudicate.item_view(self.project.engine, results, item)
        return _Shown(view, item_html(results, view, marking, _sources_html(question, self.index.get())), question)

    def _show_item(self, item: adj.QueueItem) -> None:
        results = self.results
        if results is None:
            return

        def show(shown: _Shown) -> None:
            if self.results is results:
                self._put(shown)

        self._item.run(lambda: self._read_item(results, item), show, self._failed)

    def _put(self, shown: _Shown) -> None:
        current = self.queue_view.current()
        if current is not None and current.key == shown.view.item.key:
            self.queue_view.show_item(shown.view, shown.html, shown.question)
        else:
            self.queue_view.model.update_item(shown.view.item)

    # -- decisions -------------------------------------------------------------------
    def _decide(
        self, item: adj.QueueItem, record: Callable[[RunResults, int | None], adjudicate.Decision], message: str
    ) -> None:
        results, set_id, engine = self.results, self.set_id, self.project.engine
        if results is None:
            return
        if self.deciding:
            notify(self, "Still recording the previous decision…", "warning")
            return
        shown = self.queue_view.shown
        if shown is None or shown.item.key != item.key:
            notify(self, f"{adjudicate.item_label(item)}: wait until the item is shown, then decide.", "warning")
            return
        expected = shown.decision_id  # what the expert saw in force

        def decide() -> OpResult[_Decided]:
            decision = record(results, expected)
            items = adj.adjudication_queue(engine, results, set_id=set_id)
            return OpResult(_Decided(items, self._read_item(results, item)), decision.changes)

        def done(outcome: OpResult[_Decided]) -> None:
            self._deciding(False)
            if self.results is results:
                self.queue_view.show_queue(results, outcome.value.items, announce=False)  # the place is kept
                self._put(outcome.value.shown)
            notify(self, message, "success")

        def failed(error: BaseException) -> None:
            self._deciding(False)
            notify(self, f"Not recorded: {failure_message(error)}", failure_kind(error))
            if isinstance(error, adjudicate.StaleItem):
                self._show_item(item)  # as it is now

        self._deciding(True)
        CollectionOp(self, decide).success(done).failure(failed).run_in_background(initiator=self)

    def _deciding(self, deciding: bool) -> None:
        self.deciding = deciding
        self.queue_view.set_deciding(deciding)

    def _confirm(self, item: adj.QueueItem) -> None:
        engine, actor, reason = self.project.engine, self.reviewer(), self.queue_view.form.reason.text()

        def record(results: RunResults, expected: int | None) -> adjudicate.Decision:
            return adjudicate.confirm_item(
                engine, results.run_id, item.key, actor=actor, reason=reason, results=results, expected=expected
            )

        self._decide(item, record, f"{adjudicate.item_label(item)}: judge confirmed.")

    def _override(self, item: adj.QueueItem) -> None:
        engine, actor = self.project.engine, self.reviewer()
        if item.target == "pair":
            reason = self.ask_text("Override the pair", "Why does the verdict change?")
            if reason is None:
                return
            label = self.queue_view.pair_label.currentText()

            def record(results: RunResults, expected: int | None) -> adjudicate.Decision:
                return adjudicate.override_item(
                    engine,
                    results.run_id,
                    item.key,
                    actor=actor,
                    reason=reason,
                    label=label,
                    results=results,
                    expected=expected,
                )

        else:
            gate, awards = self.queue_view.form.values()
            why = self.queue_view.form.reason.text()

            def record(results: RunResults, expected: int | None) -> adjudicate.Decision:
                return adjudicate.override_item(
                    engine,
                    results.run_id,
                    item.key,
                    actor=actor,
                    reason=why,
                    gate_passed=gate,
                    awards=awards,
                    results=results,
                    expected=expected,
                    from_form=True,
                )

        self._decide(item, record, f"{adjudicate.item_label(item)}: override recorded; every figure now uses it.")

    def _revert(self, item: adj.QueueItem, decision_id: int) -> None:
        reason = self.ask_text("Revert", f"Why revert decision #{decision_id}?")
        if reason is None:
            return
        engine, actor = self.project.engine, self.reviewer()

        def record(results: RunResults, expected: int | None) -> adjudicate.Decision:
            return adjudicate.revert_item(
                engine,
                results.run_id,
                item.key,
                actor=actor,
                reason=reason,
                decision_id=decision_id,
                results=results,
                expected=expected,
            )

        self._decide(item, record, f"Decision #{decision_id} reverted.")

    def _save_grade(self, item: adj.GradingItem, gate: bool, awards: dict[str, int], comment: str) -> None:
        run_id, engine, grader = self.grading_run_id, self.project.engine, self.reviewer()
        if run_id is None:
            return
        position, total = self.grading_view.position + 1, len(self.grading_view.items)

        def save() -> OpResult[int]:
            return adj.save_grade(engine, run_id, item, grader=grader, gate_passed=gate, awards=awards, comment=comment)

        def failed(error: BaseException) -> None:
            self.grading_view.not_saved(item)  # kept as typed; Back reaches it
            notify(self, f"Grade not saved: {failure_message(error)}", failure_kind(error))

        CollectionOp(self, save).success(
            lambda _changes: notify(self, f"Grade saved ({position} of {total}).", "success")
        ).failure(failed).run_in_background(initiator=self)

    # -- changes made elsewhere --------------------------------------------------------
    def on_changes(self, changes: OpChanges, initiator: object = None) -> None:
        results = self.results
        if initiator is self or results is None:
            return
        if results.run_id in changes.adjudications or results.run_id in changes.runs:
            self.open_queue(results.run_id, self.set_id)

    def _failed(self, error: BaseException) -> None:
        notify(self, failure_message(error), failure_kind(error))


def _run_or_latest(engine: Engine, run_id: int | None) -> int:
    if run_id is not None:
        return run_id
    runs = reportable_runs(engine)
    if not runs:
        raise NoPass("No pass yet: run one first (Run > Run a pass).")
    return runs[-1][0]


def _sources_html(question: Question | None, index: CorpusIndex) -> str:
    sources = ""
    for evidence in question.evidence if question is not None else []:
        resolution = index.resolve(evidence.source or "", evidence.locator or "")
        text = (
            " ".join([s.text for s in resolution.spans] + [", ".join(c.values) for c in resolution.cells])
            or resolution.reason
        )
        sources += f"<p><b>{escape(evidence.claim or '')}</b><br><i>{escape(text[:600])}</i></p>"
    return sources


def _ask(parent: QWidget | None, title: str, prompt: str) -> str | None:
    text, ok = QInputDialog.getText(parent, title, prompt)
    return text if ok and text.strip() else None
