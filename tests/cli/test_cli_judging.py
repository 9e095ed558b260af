"""score, compare and calibrate end to end: the real CLI, the real OpenAI-compatible client,
a loopback judge server."""

import json
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from gtreview.core.rubric import Rubric, rubric_from_json_text
from tests.cli.test_cli_rubric import gtreview
from tests.judging.loopback import judge_server
from tests.judging.scripted import fixture_reply, verdict_json

_ANSWER = re.compile(r"ANSWER TO GRADE \(between the markers\):\n<<<\n(.*)\n>>>", re.S)


@pytest.fixture(scope="module")
def interop(interop_dir: Path) -> tuple[Path, Rubric]:
    path = interop_dir / "rubrics" / "Yudnamutana_QA_grading_key.json"
    return path, rubric_from_json_text(path.read_text(encoding="utf-8"))


def faithful(rubric: Rubric):  # type: ignore[no-untyped-def]
    by_text = {f.response_text: (q, f) for q in rubric.questions for f in q.calibration}

    def respond(messages: list[dict[str, Any]]) -> str:
        match = _ANSWER.search(messages[1]["content"])
        answer = match.group(1) if match else ""
        if answer in by_text:
            return fixture_reply(*by_text[answer])
        question = next(q for q in rubric.questions if f"QUESTION {q.id}:" in messages[1]["content"])
        return verdict_json(question, True, {"C2": 1})  # any other answer: gate + 1

    return respond


def test_calibrate_reproduces_with_a_faithful_judge(interop: tuple[Path, Rubric]) -> None:
    path, rubric = interop
    with judge_server(faithful(rubric)) as url:
        result = gtreview("calibrate", "--rubric", path, "--judge", f"openai:{url}#judge", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["reproduced"] is True and [q["reproduced"] for q in report["questions"]] == [True, True, True]


def test_calibrate_prints_each_fixture_as_it_is_judged(interop: tuple[Path, Rubric]) -> None:
    """A calibration runs for minutes on a local judge: each fixture is said on stderr as
    its verdict is final (the last verdict waits here until an earlier one was printed),
    and stdout keeps the report alone."""
    path, rubric = interop
    fixtures = [f.response_text for q in rubric.questions for f in q.calibration]
    printed = threading.Event()
    waited: list[bool] = []
    answer = faithful(rubric)

    def respond(messages: list[dict[str, Any]]) -> str:
        match = _ANSWER.search(messages[1]["content"])
        if match and match.group(1) == fixtures[-1]:
            waited.append(printed.wait(20))  # held until the CLI has said an earlier fixture
        return answer(messages)

    with judge_server(respond) as url:
        command = [sys.executable, "-m", "gtreview.cli", "calibrate", "--rubric", str(path), "--judge"]
        process = subprocess.Popen(
            [*command, f"openai:{url}#judge"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        assert process.stderr is not None and process.stdout is not None
        lines = []
        for line in process.stderr:
            lines.append(line)
            if re.match(r"\[\d+/\d+\] \S+ \S+: reproduced", line):
                printed.set()
        out = process.stdout.read()
        assert process.wait(60) == 0
    assert waited == [True]
    # said at once, before the judge has loaded and the first verdict (minutes on a local judge)
    questions = sum(bool(q.calibration) for q in rubric.questions)
    assert lines[:2] == [
        f"loading the judge openai:{url}#judge …\n",
        f"judging {len(fixtures)} fixtures of {questions} questions …\n",
    ]
    said = [line for line in lines if re.match(r"\[\d+/\d+\] ", line)]
    assert len(said) == len(fixtures) and said[-1].startswith(f"[{len(fixtures)}/{len(fixtures)}] ")
    assert "[" not in out.splitlines()[0] and out.splitlines()[-1].endswith(
        f"fixtures reproduced by openai:{url}#judge"
    )


def test_calibrate_exits_1_when_not_reproduced(interop: tuple[Path, Rubric]) -> None:
    path, rubric = interop
    with judge_server(lambda messages: verdict_json(rubric.questions[0], True, {})) as url:
        result = gtreview("calibrate", "--rubric", path, "--judge", f"openai:{url}#judge")
    assert result.returncode == 1
    assert "NOT reproduced" in result.stdout


def test_score_with_drift_checks_and_output(tmp_path: Path, interop: tuple[Path, Rubric]) -> None:
    path, rubric = interop
    answers = tmp_path / "answers.json"
    answers.write_text(
        json.dumps(
            [
                {
                    "id": "1",
                    "question": "q",
                    "answer_b": "raw",
                    "answer_b_clean": "The Wywyana is a reactive carbonate host.",
                },
                {"id": "2", "question": "q", "answer_b": "", "answer_b_clean": ""},
            ]
        ),
        encoding="utf-8",
    )
    out = tmp_path / "scores.json"
    with judge_server(faithful(rubric)) as url:
        result = gtreview(
            "score",
            "--rubric",
            path,
            "--answers",
            answers,
            "--judge",
            f"openai:{url}#judge",
            "--drift-every",
            "1",
            "-o",
            out,
            "--json",
        )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)["summary"]
    assert summary == {"answers": 2, "scored": 2, "unscored": 0, "mean_total": 2.0, "gate_pass_rate": 0.5}
    records = json.loads(out.read_text(encoding="utf-8"))
    assert records[0]["question_id"] == "A1" and records[0]["total"] == 4
    assert records[1]["total"] == 0 and records[1]["gate_reason"] == "empty answer"


def test_score_stops_on_drift(tmp_path: Path, interop: tuple[Path, Rubric]) -> None:
    path, rubric = interop
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps([{"id": "1", "question": "q", "answer": "An answer."}]), encoding="utf-8")
    with judge_server(lambda messages: verdict_json(rubric.questions[0], True, {})) as url:
        result = gtreview("score", "--rubric", path, "--answers", answers, "--judge", f"openai:{url}#judge")
    assert result.returncode == 1
    assert "judge drift at the start of the run" in result.stderr


def test_compare_both_orders(tmp_path: Path, interop: tuple[Path, Rubric]) -> None:
    path, _ = interop
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps([{"id": "A1", "answer": "strong answer"}, {"id": "B2", "answer": "x"}]), encoding="utf-8")
    b.write_text(json.dumps([{"id": "A1", "answer": "weak answer"}, {"id": "B2", "answer": "y"}]), encoding="utf-8")

    def respond(messages: list[dict[str, Any]]) -> str:
        text = messages[1]["content"]
        if "strong answer" in text:
            first_is_strong = text.index("strong answer") < text.index("weak answer")
            return json.dumps({"reason": "r", "verdict": "[[A>>B]]" if first_is_strong else "[[B>>A]]"})
        return json.dumps({"reason": "r", "verdict": "[[A>B]]"})  # position bias on B2

    out = tmp_path / "pairs.json"
    with judge_server(respond) as url:
        result = gtreview(
            "compare", "--rubric", path, "--a", a, "--b", b, "--judge", f"openai:{url}#judge", "-o", out, "--json"
        )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)["summary"]
    assert summary == {"pairs": 2, "a_wins": 1, "ties": 1, "b_wins": 0, "unknown": 0, "inconsistent": 1}
    pairs = json.loads(out.read_text(encoding="utf-8"))
    assert pairs[0]["verdict"] == "A>>B" and pairs[0]["avg_score"] == 2.0


def test_bad_judge_spec_is_one_line(interop: tuple[Path, Rubric]) -> None:
    path, _ = interop
    result = gtreview("calibrate", "--rubric", path, "--judge", "nonsense")
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
