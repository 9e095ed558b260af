"""Adjudication by item key: the intents the queue's buttons and ``gtreview adjudicate`` share.

Each function loads what it needs, records one append-only decision through
``gtreview.app.adjudication`` and says what changed (``Decision.changes``), so a caller
refreshes just that. The freshness check and the decision are one transaction.

A decision can name the decision it was made against (``expected``: the one in force
when the item was shown, None for none): if another decision has been recorded or
reverted since (another window, the command line), it is refused as ``StaleItem``
rather than recorded over what the expert never saw.

``sample_number`` and ``item_label`` are how the app and the command line name an item:
samples count from 1 wherever the user reads them (the data keep ``sample_index``).
"""

from __future__ import annotations

from typing import Final

from pydantic import BaseModel, Field
from sqlalchemy import Engine
from sqlmodel import Session

from gtreview.app.adjudication import (
    AdjudicationError,
    HistoryStep,
    QueueItem,
    QueueReason,
    adjudication_queue,
    confirm,
    history,
    override_judgement,
    override_pair,
    revert,
)
from gtreview.core import numbering
from gtreview.core.changes import OpChanges
from gtreview.results.loader import RunResults, load_run_results
from gtreview.store import adjudication_repo, tables
from gtreview.store.db import reading, unit_of_work

ANY: Final = -1  # ``expected``: do not check what is in force (the command line names items by key)


class StaleItem(AdjudicationError):
    """The item's decision changed after it was shown: nothing recorded."""


def sample_number(sample_index: int) -> str:
    """A sample as the user reads it: counted from 1 ("" for an item of no sample)."""
    return "" if sample_index < 0 else str(numbering.sample_number(sample_index))


def item_label(item: QueueItem) -> str:
    """One item as the app's queue and ``gtreview adjudicate list`` name it."""
    number = sample_number(item.sample_index)
    return f"{item.qid} · {item.model}" + (f" · sample {number}" if number else "")


class Marks(BaseModel):
    """A gate and awards: the judge's verdict, or the expert's decision."""

    gate_passed: bool | None = None
    awards: dict[str, int] = Field(default_factory=dict)
    total: float | None = None


class ItemView(BaseModel):
    """What the queue shows of one item, read fresh: why it is there, the judge's verdict,
    the decision in force now (the basis of the next one) and the history."""

    item: QueueItem  # ``settled`` as it is now
    label: str
    why: list[str]  # the judge's note, the gate's reason, why it is unscored or inconsistent
    judge: Marks
    decision_id: int | None  # the decision in force, None for none
    decision: str  # that decision in words ("" for none)
    form: Marks  # what the override form starts from: the decision in force, else the judge's
    form_origin: str  # which of the two, in words
    history: list[HistoryStep]


def _in_force(session: Session, run_id: int, key: str) -> tables.Adjudication | None:
    return adjudication_repo.effective(session, run_id).get(key)


def _decision_text(decision: tables.Adjudication) -> str:
    if decision.action == "confirm":
        said = f"judge confirmed by {decision.actor}"
    elif decision.target == "pair":
        said = f"overridden by {decision.actor}: {decision.label}"
    else:
        awards = "".join(f", {c} {v}" for c, v in adjudication_repo.awards_of(decision).items())
        gate = "passed" if decision.gate_passed else "failed"
        said = f"overridden by {decision.actor}: gate {gate}{awards}, total {decision.total}"
    return f"#{decision.id} {said}" + (f" ({decision.reason})" if decision.reason else "")


def item_view(engine: Engine, results: RunResults, item: QueueItem) -> ItemView:
    """The item as it is now (``results`` may be older: the decisions are read fresh)."""
    with reading(engine) as session:
        current = _in_force(session, results.run_id, item.key)
    why: list[str] = []
    origin = ""
    judge = Marks()
    form = Marks()
    if item.target == "judgement":
        sample = next((s for s in results.every_sample() if s.judgement_key == item.key), None)
        if sample is not None:
            overridden = sample.adjudicated  # at load time: the judge's marks are kept beside it
            judge = Marks(
                gate_passed=sample.judge_gate_passed if overridden else sample.gate_passed,
                awards=dict(sample.judge_awards if overridden else sample.awards),
                total=sample.judge_total if overridden else sample.total,
            )
            if sample.adjudication_required:
                why.append(f"The judge asked for an expert: {sample.adjudication_note or '(no note given)'}")
            if sample.unscored_reason:
                why.append(f"Unscored: {sample.unscored_reason}")
            if sample.gate_reason:
                gate = "passed" if judge.gate_passed else "failed"
                why.append(f"Gate {gate}: {sample.gate_reason}")
        form = judge
        origin = "the judge's verdict"
        if current is not None and current.action == "override":
            origin = f"override #{current.id} by {current.actor}, in force"
            form = Marks(
                gate_passed=bool(current.gate_passed),
                awards=adjudication_repo.awards_of(current),
                total=current.total,
            )
    elif item.target == "pair":
        pair = next((p for p in results.every_pair() if p.key == item.key), None)
        if pair is not None:
            label = pair.judge_label if pair.adjudicated else pair.label
            inconsistent = pair.judge_inconsistent if pair.adjudicated else pair.inconsistent
            if label == "unknown":
                why.append("The judge could not say which answer is better.")
            if inconsistent:
                why.append("The judge's verdict changed when the answers were swapped.")
    elif item.target == "fixture":
        why.append(f"The judge did not reproduce calibration fixture {item.key.rsplit(':', 1)[-1]}.")
    return ItemView(
        item=item.model_copy(update={"settled": current is not None}),
        label=item_label(item),
        why=why,
        judge=judge,
        decision_id=None if current is None else current.id,
        decision="" if current is None else _decision_text(current),
        form=form,
        form_origin=origin,
        history=history(engine, results.run_id, item.key),
    )


def _check_fresh(session: Session, run_id: int, key: str, expected: int | None) -> None:
    """Refuse a decision made against a decision no longer in force (or against none)."""
    if expected == ANY:
        return
    current = _in_force(session, run_id, key)
    now = None if current is None else current.id
    if now != expected:
        what = "no decision is in force now" if current is None else f"decision {_decision_text(current)} is in force"
        raise StaleItem(f"the item changed since it was shown ({what}); it is shown again as it is now")


class Decision(BaseModel):
    """What one expert action changed: this item of this run."""

    run_id: int
    key: str
    decision_id: int
    action: str  # confirm | override | revert
    qid: str
    model: str

    @property
    def changes(self) -> OpChanges:
        return OpChanges(adjudications=frozenset({self.run_id}))


def queue_of_run(engine: Engine, run_id: int, *, results: RunResults | None = None) -> list[QueueItem]:
    results = results or load_run_results(engine, run_id)
    return adjudication_queue(engine, results, set_id=results.set_id)


def _item(engine: Engine, results: RunResults, key: str) -> QueueItem:
    for item in adjudication_queue(engine, results, set_id=results.set_id):
        if item.key == key:
            return item
    # Any judged answer or pair can be settled by key, not only queued ones.
    sample = next((s for s in results.every_sample() if key and s.judgement_key == key), None)
    pair = next((p for p in results.every_pair() if p.key == key), None)
    found = (
        ("judgement", sample.qid, sample.model, sample.sample_index)
        if sample is not None
        else ("pair", pair.qid, pair.finetune, pair.sample_index)
        if pair is not None
        else None
    )
    if found is not None:
        target, qid, model, sample_index = found
        return QueueItem(
            reason=QueueReason.CHOSEN,
            target=target,
            key=key,
            qid=qid,
            model=model,
            sample_index=sample_index,
            settled=False,
        )
    raise AdjudicationError(f"run {results.run_id} has no judgement or pair {key}")


def _check_named_awards(results: RunResults, qid: str, gate_passed: bool, awards: dict[str, int]) -> None:
    """Awards named one by one (the command line) must agree with the gate: the rules zero
    everything on a failed gate and give the gate its full points, so a value that says
    otherwise is a contradiction to resolve, never one to drop silently. (The app's form
    shows the settled total as the expert types, so it needs no such check.)"""
    if not gate_passed and any(awards.values()):
        awarded = ", ".join(f"{c}={v}" for c, v in awards.items() if v)
        raise AdjudicationError(f"the gate failed, so every component scores 0; remove {awarded}")
    question = next((q for q in results.every_question() if q.id == qid), None)
    for component in question.components if question is not None else []:
        given = awards.get(component.id)
        if component.is_gate and given is not None and given != int(component.points):
            raise AdjudicationError(
                f"{component.id} is the gate: it earns all {component.points} points when the gate passes, not {given}"
            )


def override_item(
    engine: Engine,
    run_id: int,
    key: str,
    *,
    actor: str,
    reason: str,
    gate_passed: bool | None = None,
    awards: dict[str, int] | None = None,
    label: str | None = None,
    results: RunResults | None = None,
    expected: int | None = ANY,
    from_form: bool = False,
) -> Decision:
    """An answer's gate and awards (the program settles the total), or a pair's verdict.
    ``from_form``: the awards come from the app's form, which shows the settled total as
    the expert types, so they are settled by the rules rather than checked one by one."""
    results = results or load_run_results(engine, run_id)
    item = _item(engine, results, key)
    with unit_of_work(engine) as tx:  # a refusal raised in it writes nothing
        _check_fresh(tx, run_id, key, expected)
        if item.target == "pair":
            if label is None:
                raise AdjudicationError(f"{key} is a pair: give its verdict (A>>B, A>B, A=B, B>A or B>>A)")
            decision_id = override_pair(tx, results, key, actor=actor, label=label, reason=reason)
        elif item.target == "judgement":
            if gate_passed is None:
                raise AdjudicationError(f"{key} is an answer's judgement: say whether the gate passed")
            if not from_form:
                _check_named_awards(results, item.qid, gate_passed, awards or {})
            decision_id = override_judgement(
                tx, results, key, actor=actor, gate_passed=gate_passed, awards=awards or {}, reason=reason
            )
        else:
            raise AdjudicationError(
                f"{key} is a calibration miss: confirm it or recalibrate; it has no score to override"
            )
    return Decision(run_id=run_id, key=key, decision_id=decision_id, action="override", qid=item.qid, model=item.model)


def confirm_item(
    engine: Engine,
    run_id: int,
    key: str,
    *,
    actor: str,
    reason: str = "",
    results: RunResults | None = None,
    expected: int | None = ANY,
) -> Decision:
    results = results or load_run_results(engine, run_id)
    item = _item(engine, results, key)
    with unit_of_work(engine) as tx:
        _check_fresh(tx, run_id, key, expected)
        decision_id = confirm(tx, run_id, item.target, key, actor=actor, reason=reason)
    return Decision(run_id=run_id, key=key, decision_id=decision_id, action="confirm", qid=item.qid, model=item.model)


def revert_item(
    engine: Engine,
    run_id: int,
    key: str,
    *,
    actor: str,
    reason: str,
    decision_id: int | None = None,
    results: RunResults | None = None,
    expected: int | None = ANY,
) -> Decision:
    """Undo a decision on the item: the one named, else the one in force."""
    results = results or load_run_results(engine, run_id)
    item = _item(engine, results, key)
    with unit_of_work(engine) as tx:
        _check_fresh(tx, run_id, key, expected)
        if decision_id is None:
            current = adjudication_repo.effective(tx, run_id).get(key)
            if current is None or current.id is None:
                raise AdjudicationError(f"{key} has no decision in force to revert")
            decision_id = current.id
        elif not any(d.id == decision_id for d in adjudication_repo.adjudications(tx, run_id, key)):
            raise AdjudicationError(f"decision {decision_id} is not about {key}")
        new_id = revert(tx, run_id, decision_id, actor=actor, reason=reason)
    return Decision(run_id=run_id, key=key, decision_id=new_id, action="revert", qid=item.qid, model=item.model)


__all__ = [
    "ANY",
    "Decision",
    "ItemView",
    "Marks",
    "StaleItem",
    "confirm_item",
    "item_label",
    "item_view",
    "override_item",
    "queue_of_run",
    "revert_item",
    "sample_number",
]
