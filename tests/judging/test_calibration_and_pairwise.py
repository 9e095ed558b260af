import re
from pathlib import Path

import pytest

from gtreview.core.pairwise import PairLabel
from gtreview.core.rubric import Question, Rubric, rubric_from_json_text
from gtreview.inference.backend import CompletionRequest
from gtreview.judging.calibration import DriftError, DriftMonitor, calibrate, standardisation_fixtures
from gtreview.judging.pairwise import PairTask, compare_answers
from tests.judging.scripted import ScriptedBackend, answer_of, fixture_reply, verdict_json
from tests.rubric_factory import question


@pytest.fixture(scope="module")
def interop(interop_dir: Path) -> Rubric:
    return rubric_from_json_text(
        (interop_dir / "rubrics" / "Yudnamutana_QA_grading_key.json").read_text(encoding="utf-8")
    )


def faithful(rubric: Rubric):  # type: ignore[no-untyped-def]
    """A judge that gives every fixture exactly its expected awards."""
    by_text = {f.response_text: (q, f) for q in rubric.questions for f in q.calibration}

    def respond(request: CompletionRequest) -> str:
        q, f = by_text[answer_of(request)]
        return fixture_reply(q, f)

    return respond


def test_a_faithful_judge_reproduces_every_interop_fixture(interop: Rubric) -> None:
    report = calibrate(ScriptedBackend(faithful(interop)), interop.questions, global_variants=interop.global_variants)
    assert report.reproduced and report.fixture_count == 9 == report.reproduced_count
    assert [q.question_id for q in report.questions] == ["A1", "B2", "C3"]
    roles = [f.role.value for f in report.questions[0].fixtures]
    assert roles == ["near miss", "minimum pass", "strong"]


def test_misses_are_reported_per_fixture(interop: Rubric) -> None:
    base = faithful(interop)

    def off_by_one(request: CompletionRequest) -> str:
        reply = base(request)
        if answer_of(request).startswith("The recurrence indicates"):
            q = interop.questions[0]
            return verdict_json(q, True, {"C1": 3, "C2": 3, "C3": 3})  # 9 instead of 10
        if answer_of(request).startswith("The Wywyana Formation appears"):
            q = interop.questions[0]
            return verdict_json(q, True, {"C1": 3})  # the near miss passes the gate
        return reply

    report = calibrate(ScriptedBackend(off_by_one), interop.questions)
    a1 = report.questions[0]
    assert not a1.reproduced and report.questions[1].reproduced
    reasons = {f.fixture_id: f.reason for f in a1.fixtures if not f.reproduced}
    assert reasons == {"A1-F1": "gate passed, expected fail", "A1-F3": "total 9, expected 10"}


def test_judgmental_fixtures_allow_one_point() -> None:
    data = question("A1")
    data["calibration"][2]["judgmental"] = True
    q = Question.model_validate(data)

    def respond(request: CompletionRequest) -> str:
        if "F3" in answer_of(request):
            return verdict_json(q, True, {"C2": 3, "C3": 3})
        return fixture_reply(q, next(f for f in q.calibration if f.response_text == answer_of(request)))

    report = calibrate(ScriptedBackend(respond), [q])
    strong = report.questions[0].fixtures[2]
    assert strong.judgmental and strong.judged_total == 9 and strong.reproduced


def test_drift_stops_the_run(interop: Rubric) -> None:
    fixtures = standardisation_fixtures(interop.questions, limit=3)
    assert [f.fixture_id for _, f in fixtures] == ["A1-F1", "A1-F2", "A1-F3"]
    state = {"drifted": False}
    base = faithful(interop)

    def respond(request: CompletionRequest) -> str:
        if state["drifted"] and answer_of(request).startswith("The Wywyana Formation appears"):
            return verdict_json(interop.questions[0], True, {})
        return base(request)

    backend = ScriptedBackend(respond)
    monitor = DriftMonitor(backend, fixtures, every=50)
    monitor.start()
    assert monitor.after(20) is None and monitor.checks == 1
    assert monitor.after(50) is not None and monitor.checks == 2
    state["drifted"] = True
    assert monitor.after(99) is None
    with pytest.raises(DriftError, match="gate disposition of A1-F1 changed"):
        monitor.after(104)


def test_drift_at_the_start_when_the_judge_cannot_reproduce(interop: Rubric) -> None:
    monitor = DriftMonitor(
        ScriptedBackend(lambda r: verdict_json(interop.questions[0], True, {})),
        standardisation_fixtures(interop.questions),
    )
    with pytest.raises(DriftError, match="at the start"):
        monitor.start()


Q = Question.model_validate(question("A1"))


def test_pairs_run_in_both_orders_and_reconcile() -> None:
    def respond(request: CompletionRequest) -> str:
        text = request.messages[1].content
        a_first = text.index("ANSWER A:\n<<<\ngood") if "ANSWER A:\n<<<\ngood" in text else -1
        return '{"reason": "r", "verdict": "[[A>B]]"}' if a_first >= 0 else '{"reason": "r", "verdict": "[[B>>A]]"}'

    backend = ScriptedBackend(respond)
    (pair,) = compare_answers(backend, [PairTask(key="p", question=Q, answer_a="good answer", answer_b="weak answer")])
    assert len(backend.requests) == 2
    assert backend.requests[0].json_schema is not None
    assert pair.outcome.verdict_normal == "[[A>B]]" and pair.outcome.verdict_swapped == "[[B>>A]]"
    assert pair.outcome.average == 1.5 and pair.outcome.label is PairLabel.A_MUCH_BETTER
    assert not pair.outcome.inconsistent and pair.reason_normal == "r"


def test_unparseable_reply_makes_the_pair_unknown_and_free_text_parses() -> None:
    replies = iter(["I cannot decide.", "[[A=B]]", "Clearly [[A>B]]", "Clearly [[A>B]]"])
    backend = ScriptedBackend(lambda r: next(replies))
    tasks = [PairTask(key=k, question=Q, answer_a="x", answer_b="y") for k in ("p1", "p2")]
    first, second = compare_answers(backend, tasks)
    assert first.outcome.label is PairLabel.UNKNOWN
    assert second.outcome.label is PairLabel.TIE and second.outcome.inconsistent  # position bias


def test_empty_answers_decide_without_a_call() -> None:
    backend = ScriptedBackend(lambda r: pytest.fail("no call expected"))
    a, b, both = compare_answers(
        backend,
        [
            PairTask(key="a", question=Q, answer_a="", answer_b="y"),
            PairTask(key="b", question=Q, answer_a="x", answer_b=" "),
            PairTask(key="c", question=Q, answer_a="", answer_b=""),
        ],
    )
    assert a.outcome.label is PairLabel.B_MUCH_BETTER and b.outcome.label is PairLabel.A_MUCH_BETTER
    assert both.outcome.label is PairLabel.TIE and not both.outcome.inconsistent


def test_the_drift_message_names_as_many_fixtures_as_it_counts(interop: Rubric) -> None:
    fixtures = standardisation_fixtures(interop.questions)
    assert len(fixtures) == 6
    monitor = DriftMonitor(ScriptedBackend(lambda r: verdict_json(interop.questions[0], True, {})), fixtures)
    with pytest.raises(DriftError) as info:
        monitor.start()
    match = re.fullmatch(
        r"judge drift at the start of the run: (\d+) standardisation fixtures? not reproduced \((.*)\)",
        str(info.value),
    )
    assert match is not None, str(info.value)
    count, detail = int(match[1]), match[2]
    named = [part for part in detail.split("; ") if not part.startswith("and ")]
    more = re.search(r"; and (\d+) more$", detail)
    assert count > 3 and len(named) + (int(more[1]) if more else 0) == count
    assert all(part.split(":")[0] in {f.fixture_id for _, f in fixtures} for part in named)
