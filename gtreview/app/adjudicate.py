"""Adjudication by item key: the intents the queue's buttons and ``gtreview adjudicate`` share.

Each function loads what it needs, records one append-only decision through
``gtreview.app.adjudication`` and says what changed, so a caller refreshes just that.
"""

from __future__ import annotations

from pydantic import BaseModel
from sqlalchemy import Engine

from gtreview.app.adjudication import (
    AdjudicationError,
    QueueItem,
    QueueReason,
    adjudication_queue,
    confirm,
    override_judgement,
    override_pair,
    revert,
)
from gtreview.results.loader import RunResults, load_run_results
from gtreview.store import adjudication_repo


class Decision(BaseModel):
    """What one expert action changed: this item of this run."""

    run_id: int
    key: str
    decision_id: int
    action: str  # confirm | override | revert
    qid: str
    model: str


def queue_of_run(engine: Engine, run_id: int, *, results: RunResults | None = None) -> list[QueueItem]:
    results = results or load_run_results(engine, run_id)
    return adjudication_queue(engine, results, set_id=results.set_id)


def _item(engine: Engine, results: RunResults, key: str) -> QueueItem:
    for item in adjudication_queue(engine, results, set_id=results.set_id):
        if item.key == key:
            return item
    # Any judged answer or pair can be settled by key, not only queued ones.
    sample = next((s for s in results.samples if key and s.judgement_key == key), None)
    pair = next((p for p in results.pairs if p.key == key), None)
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
    question = next((q for q in results.questions if q.id == qid), None)
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
) -> Decision:
    """An answer's gate and awards (the program settles the total), or a pair's verdict."""
    results = results or load_run_results(engine, run_id)
    item = _item(engine, results, key)
    if item.target == "pair":
        if label is None:
            raise AdjudicationError(f"{key} is a pair: give its verdict (A>>B, A>B, A=B, B>A or B>>A)")
        decision_id = override_pair(engine, results, key, actor=actor, label=label, reason=reason)
    elif item.target == "judgement":
        if gate_passed is None:
            raise AdjudicationError(f"{key} is an answer's judgement: say whether the gate passed")
        _check_named_awards(results, item.qid, gate_passed, awards or {})
        decision_id = override_judgement(
            engine, results, key, actor=actor, gate_passed=gate_passed, awards=awards or {}, reason=reason
        )
    else:
        raise AdjudicationError(f"{key} is a calibration miss: confirm it or recalibrate; it has no score to override")
    return Decision(run_id=run_id, key=key, decision_id=decision_id, action="override", qid=item.qid, model=item.model)


def confirm_item(
    engine: Engine, run_id: int, key: str, *, actor: str, reason: str = "", results: RunResults | None = None
) -> Decision:
    results = results or load_run_results(engine, run_id)
    item = _item(engine, results, key)
    decision_id = confirm(engine, run_id, item.target, key, actor=actor, reason=reason)
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
) -> Decision:
    """Undo a decision on the item: the one named, else the one in force."""
    results = results or load_run_results(engine, run_id)
    item = _item(engine, results, key)
    if decision_id is None:
        current = adjudication_repo.effective(engine, run_id).get(key)
        if current is None or current.id is None:
            raise AdjudicationError(f"{key} has no decision in force to revert")
        decision_id = current.id
    elif not any(d.id == decision_id for d in adjudication_repo.adjudications(engine, run_id, key)):
        raise AdjudicationError(f"decision {decision_id} is not about {key}")
    new_id = revert(engine, run_id, decision_id, actor=actor, reason=reason)
    return Decision(run_id=run_id, key=key, decision_id=new_id, action="revert", qid=item.qid, model=item.model)


__all__ = ["Decision", "confirm_item", "override_item", "queue_of_run", "revert_item"]
