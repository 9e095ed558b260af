"""A verdict no longer than the grader needs (judge_pointwise_v3).

A component's award comes first and its reason is bounded by it: short where the award
is full or zero, longer where it is partial. The previous layout (v2: a 100-character
reason before every award) can still be asked for, and both read to the same record.
"""

import json

from gtreview.core.grading import score_verdict
from gtreview.core.rubric import Question
from gtreview.judging.contract import parse_verdict_reply
from gtreview.judging.pointwise import JudgeSettings, JudgeTask, judge_answers
from gtreview.judging.prompts import load_template
from gtreview.judging.schemas import BOUNDS, VerdictBounds, verdict_schema
from tests.judging.scripted import ScriptedBackend, verdict_json
from tests.rubric_factory import question

Q1 = Question.model_validate(question("A1"))  # C1 gate (3), C2 (3), C3 (4)
V3 = BOUNDS["judge_pointwise_v3"]


def _components(schema: dict) -> dict:  # type: ignore[type-arg]
    return schema["properties"]["components"]["properties"]  # type: ignore[no-any-return]


def test_a_components_reason_is_bounded_by_its_award_and_written_after_it() -> None:
    settled, partial = _components(verdict_schema(Q1, V3))["C3"]["anyOf"]
    assert list(settled["properties"]) == ["awarded", "reason"]  # the award decides the bound
    assert settled["properties"]["awarded"] == {"enum": [0, 4]}
    assert partial["properties"]["awarded"] == {"enum": [1, 2, 3]}
    assert settled["properties"]["reason"]["maxLength"] == V3.settled_reason
    assert partial["properties"]["reason"]["maxLength"] == V3.reason
    assert V3.settled_reason < V3.reason < BOUNDS["judge_pointwise_v2"].reason


def test_a_component_with_no_partial_award_has_one_short_shape() -> None:
    binary = Q1.model_copy(update={"components": [c.model_copy(update={"points": 1}) for c in Q1.components]})
    shape = _components(verdict_schema(binary, V3))["C2"]
    assert shape["properties"]["awarded"] == {"enum": [0, 1]}
    assert shape["properties"]["reason"]["maxLength"] == V3.settled_reason


def test_the_v2_layout_is_kept_for_its_template() -> None:
    shape = _components(verdict_schema(Q1, BOUNDS["judge_pointwise_v2"]))["C3"]
    assert list(shape["properties"]) == ["reason", "awarded"]
    assert shape["properties"]["reason"]["maxLength"] == 100
    assert verdict_schema(Q1, VerdictBounds.uniform(100)) == verdict_schema(Q1, BOUNDS["judge_pointwise_v2"])


def test_the_other_strings_are_shorter_than_in_v2() -> None:
    v2, v3 = verdict_schema(Q1, BOUNDS["judge_pointwise_v2"]), verdict_schema(Q1)
    for key in ("gate_reason", "adjudication_note"):
        assert v3["properties"][key]["maxLength"] < v2["properties"][key]["maxLength"]
    assert v3["properties"]["demonstrated_but_unscored"]["maxItems"] == 1
    assert v2["properties"]["demonstrated_but_unscored"]["maxItems"] == 2


def test_judging_asks_v3_by_default_and_records_the_template_it_used() -> None:
    backend = ScriptedBackend(lambda r: verdict_json(Q1, True, {"C2": 3, "C3": 2}))
    task = JudgeTask(key="k", question=Q1, answer="The reef pinches out.")
    (new,) = judge_answers(backend, [task])
    (old,) = judge_answers(backend, [task], settings=JudgeSettings(template="judge_pointwise_v2"))
    v3_request, v2_request = backend.requests
    assert v3_request.json_schema == verdict_schema(Q1, V3)
    assert v2_request.json_schema == verdict_schema(Q1, BOUNDS["judge_pointwise_v2"])
    assert v3_request.messages[0].content == load_template("judge_pointwise_v3").text
    assert v2_request.messages[0].content == load_template("judge_pointwise_v2").text
    assert (new.prompt_template, new.prompt_sha256) == (
        "judge_pointwise_v3",
        load_template("judge_pointwise_v3").sha256,
    )
    assert (old.prompt_template, old.prompt_sha256) == (
        "judge_pointwise_v2",
        load_template("judge_pointwise_v2").sha256,
    )
    assert new.record is not None and old.record is not None and new.total == old.total == 8


def test_an_award_first_reply_scores_as_the_same_reason_first_one() -> None:
    awards = {"C1": 3, "C2": 1, "C3": 4}
    reasons = {"C1": "meets it", "C2": "names the fault, not the offset", "C3": "full"}
    award_first = {c: {"awarded": awards[c], "reason": reasons[c]} for c in awards}
    reason_first = {c: {"reason": reasons[c], "awarded": awards[c]} for c in awards}
    base = json.loads(verdict_json(Q1, True, {}))
    records = []
    for components in (award_first, reason_first):
        reply = json.dumps({**base, "components": components, "contradicted": ["C2"]})
        records.append(score_verdict(Q1, parse_verdict_reply(Q1, reply), grader_id="j", fixture_id=None))
    first, second = (r.model_dump(exclude={"scored_at"}) for r in records)
    assert first == second
    assert [c.reason for c in records[0].components] == list(reasons.values())
