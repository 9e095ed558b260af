"""Every rule of a Groundtruth rubric that the harness does not check on load.

Works on the raw JSON object rather than the pydantic model so that a rubric with
wrong types (points of "3", a gate that is a list) still gets precise findings
instead of one opaque parse error. Rules and codes are listed in ``RULES``.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

from gtreview.core.findings import Finding
from gtreview.core.paraphrases import rubric_differs, same_wording
from gtreview.core.rubric import GATE_ID, TOTAL_POINTS, AccessMode
from gtreview.core.validation_rules import RULES as RULES

EVIDENCE_KEYS = ("claim", "source", "locator", "authority", "confidence")
EVIDENCE_OPTIONAL_KEYS = ("notes",)
CONFIDENCE_LEVELS = frozenset({"HIGH", "MEDIUM", "LOW"})
_STRING_FIELDS = ("section", "title", "type", "mode", "difficulty", "principle")
_STRING_LISTS = ("required_concepts", "indicative_terms", "do_not_credit")
_ONE_LINE = ("id", "section", "title", "type", "mode", "difficulty")  # shown and matched as one line
_LINE_BREAK = re.compile(r"[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]")


def is_int(value: Any) -> TypeGuard[int]:
    """JSON integers only: booleans are not points, and 3.0 is not an integer here."""
    return isinstance(value, int) and not isinstance(value, bool)


def _text(value: Any) -> TypeGuard[str]:
    return isinstance(value, str) and bool(value.strip())


class _Sink:
    """Collects findings for one question (or the file) with a fixed question id."""

    def __init__(self, question_id: str | None, out: list[Finding]) -> None:
        self.question_id = question_id
        self.out = out

    def __call__(self, code: str, path: str, message: str) -> None:
        self.out.append(
            Finding(code=code, severity=RULES[code][0], question_id=self.question_id, path=path, message=message)
        )


Emit = Callable[[str, str, str], None]


def validate_rubric(data: dict[str, Any]) -> list[Finding]:
    """All findings for a rubric object (already parsed; see ``parse_rubric_bytes``)."""
    findings: list[Finding] = []
    emit = _Sink(None, findings)
    _check_header(data, emit)
    questions = data.get("questions")
    if not isinstance(questions, list):
        return findings
    index = SetIndex.of(questions)
    for position, question in enumerate(questions):
        path = f"$.questions[{position}]"
        if not isinstance(question, dict):
            emit("question-not-object", path, "This question is not a JSON object.")
            continue
        findings.extend(validate_in_set(questions, position, path, index))
    if isinstance(data.get("benchmark"), dict):
        count = data["benchmark"].get("question_count")
        if is_int(count) and count != len(questions):
            emit(
                "question-count-mismatch",
                "$.benchmark.question_count",
                f"benchmark.question_count is {count} but the file has {len(questions)} questions.",
            )
    return findings


@dataclass(frozen=True)
class SetIndex:
    """What a question's findings need from the rest of its set, read once for the set."""

    ids: tuple[Any, ...]  # each question's id, in set order (None where it has none)
    first: dict[str, int]  # id -> the position that uses it first
    by_digits: dict[str, frozenset[str]]  # the harness's id (digits only) -> the ids that become it
    fixtures_first: dict[str, tuple[int, int]]  # fixture id -> (position, fixture) of its first use
    by_id: dict[str, Any]  # id -> the question (the last one using it)

    @classmethod
    def of(cls, questions: Sequence[Any]) -> SetIndex:
        ids = tuple(q.get("id") if isinstance(q, dict) and _text(q.get("id")) else None for q in questions)
        first: dict[str, int] = {}
        by_digits: dict[str, set[str]] = defaultdict(set)
        fixtures_first: dict[str, tuple[int, int]] = {}
        for position, qid in enumerate(ids):
            if qid is not None:
                first.setdefault(qid, position)
                by_digits[re.sub(r"\D", "", qid)].add(qid)
            for f_index, fid in _fixture_ids(questions[position]):
                fixtures_first.setdefault(fid, (position, f_index))
        by_id = {qid: q for qid, q in zip(ids, questions, strict=True) if qid is not None}
        return cls(ids, first, {d: frozenset(v) for d, v in by_digits.items()}, fixtures_first, by_id)


def validate_in_set(
    questions: Sequence[Any], position: int, path: str = "$", index: SetIndex | None = None
) -> list[Finding]:
    """Every finding of ``questions[position]`` as a question of its set: its own
    (``validate_question``) and those the rest of the set decides (its id as the harness
    keeps it, its fixture ids, what it paraphrases). The file check and the app's editor
    and question list all call this, so they report the same findings. ``index`` is
    ``SetIndex.of(questions)``, made once when every question of a set is checked.

    Of the other questions only the id, ``paraphrase_of``, the fixture ids and, for the
    original this question paraphrases, the whole content are read."""
    index = index or SetIndex.of(questions)
    question = questions[position]
    findings = validate_question(question, path)
    qid = question.get("id")
    emit = _Sink(qid if isinstance(qid, str) and qid else None, findings)
    if _text(qid):
        _check_id(qid, index, position, f"{path}.id", emit)
    for f_index, fid in _fixture_ids(question):
        if index.fixtures_first[fid] != (position, f_index):  # used before: by an earlier question or fixture
            emit(
                "fixture-id-duplicate",
                f"{path}.calibration[{f_index}].fixture_id",
                f"Fixture id {fid} is used more than once.",
            )
    findings.extend(paraphrase_findings(question, index.by_id, path))
    return findings


def validate_question(question: dict[str, Any], path: str = "$") -> list[Finding]:
    """Findings for one question object, as the reviewer's editor shows them live."""
    findings: list[Finding] = []
    qid = question.get("id")
    emit = _Sink(qid if isinstance(qid, str) and qid else None, findings)
    if not _text(qid):
        emit("question-id-missing", f"{path}.id", "The question has no id.")
    if not _text(question.get("question")):
        emit("question-text-empty", f"{path}.question", "The question text is empty.")
    if not _text(question.get("model_answer")):
        emit("model-answer-empty", f"{path}.model_answer", "The question has no model answer.")
    title = question.get("title", "absent")  # a file without titles is not asked for them; a blank one is
    if title is None or (isinstance(title, str) and not title.strip()):
        emit("title-empty", f"{path}.title", "The question has no title.")
    for key in _ONE_LINE:
        if isinstance(question.get(key), str) and _LINE_BREAK.search(question[key]):
            emit("line-break", f"{path}.{key}", f"The {key} runs over more than one line; it is one line.")
    for key in _STRING_FIELDS:
        if key in question and question[key] is not None and not isinstance(question[key], str):
            emit("field-type", f"{path}.{key}", f"{key} should be a string.")
    for key in _STRING_LISTS:
        _check_string_list(question, key, path, emit)
    if not question.get("required_concepts"):
        emit("required-concepts-empty", f"{path}.required_concepts", "No required concepts are listed.")
    if not question.get("do_not_credit"):
        emit("do-not-credit-empty", f"{path}.do_not_credit", "No do-not-credit items are listed.")
    _check_variant_list(question.get("accepted_variants", []), f"{path}.accepted_variants", emit, allow_strings=True)
    points = _check_components(question, path, emit)
    _check_gate_block(question, path, points, emit)
    _check_evidence(question, path, emit)
    _check_calibration(question, path, points, emit)
    return findings


def paraphrase_findings(
    question: dict[str, Any], questions: Mapping[str, dict[str, Any]], path: str = "$"
) -> list[Finding]:
    """Findings that need the rest of the set: a paraphrase (``paraphrase_of``) must name an
    original of the set (``questions``, by id), reword it, and carry its current rubric."""
    original_id = question.get("paraphrase_of")
    if original_id is None:
        return []
    qid = question.get("id")
    findings: list[Finding] = []
    emit = _Sink(qid if isinstance(qid, str) and qid else None, findings)
    where = f"{path}.paraphrase_of"
    if not isinstance(original_id, str):
        emit("field-type", where, "paraphrase_of should be a question id (a string).")
        return findings
    original = questions.get(original_id)
    if original is None or original_id == qid:
        emit(
            "paraphrase-of-unknown", where, f"paraphrase_of names {original_id!r}, which is not a question of the set."
        )
        return findings
    if original.get("paraphrase_of") is not None:
        emit(
            "paraphrase-of-paraphrase",
            where,
            f"{original_id} is itself a paraphrase (of {original.get('paraphrase_of')}); name the original question.",
        )
        return findings
    wording, original_wording = question.get("question"), original.get("question")
    if isinstance(wording, str) and isinstance(original_wording, str) and same_wording(wording, original_wording):
        emit("paraphrase-same-wording", f"{path}.question", f"The wording is {original_id}'s own; reword it.")
    stale = rubric_differs(question, original)
    if stale:
        fields = ", ".join(key.replace("_", " ") for key in stale)
        emit(
            "paraphrase-rubric-stale",
            path,
            f"The rubric differs from {original_id}'s ({fields}); bring it up to date from {original_id}.",
        )
    return findings


def _check_header(data: dict[str, Any], emit: Emit) -> None:
    benchmark = data.get("benchmark")
    if benchmark is None:
        emit("benchmark-missing", "$.benchmark", "The file has no benchmark object.")
    elif not isinstance(benchmark, dict):
        emit("field-type", "$.benchmark", "benchmark should be an object.")
    mode = data.get("candidate_access_mode")
    if mode is not None and mode not in {m.value for m in AccessMode}:
        emit("access-mode-invalid", "$.candidate_access_mode", f"Unknown access mode {mode!r}.")
    scoring = data.get("scoring_model")
    if scoring is not None and not isinstance(scoring, dict):
        emit("field-type", "$.scoring_model", "scoring_model should be an object.")
    elif isinstance(scoring, dict) and "total_points" in scoring and scoring["total_points"] != TOTAL_POINTS:
        emit(
            "scoring-total-not-10",
            "$.scoring_model.total_points",
            f"total_points is {scoring['total_points']!r}, not 10.",
        )
    authorities = data.get("source_authority", [])
    if not isinstance(authorities, list):
        emit("field-type", "$.source_authority", "source_authority should be a list.")
    else:
        for index, item in enumerate(authorities):
            if not isinstance(item, dict) or not (_text(item.get("source_class")) or _text(item.get("class"))):
                emit(
                    "authority-malformed",
                    f"$.source_authority[{index}]",
                    "This authority has no source_class (or class).",
                )
            elif "rank" in item and not is_int(item["rank"]):
                emit("authority-malformed", f"$.source_authority[{index}].rank", "rank should be a whole number.")
    shapes = _check_variant_list(data.get("global_variants", []), "$.global_variants", emit, allow_strings=False)
    for question in data.get("questions", []) if isinstance(data.get("questions"), list) else []:
        if isinstance(question, dict) and isinstance(question.get("accepted_variants"), list):
            shapes |= {_variant_shape(v) for v in question["accepted_variants"]}
    shapes.discard("")
    if len(shapes) > 1:
        emit("shape-mixed", "$", "The file mixes authoring-skill and shipped-sample variant shapes.")


def _variant_shape(item: Any) -> str:
    if isinstance(item, str):
        return "skill"
    if isinstance(item, dict):
        if "canonical" in item:
            return "sample"
        if "term" in item:
            return "skill"
    return ""


def _check_variant_list(items: Any, path: str, emit: Emit, *, allow_strings: bool) -> set[str]:
    if not isinstance(items, list):
        emit("field-type", path, "This should be a list of variant rules.")
        return set()
    shapes: set[str] = set()
    for index, item in enumerate(items):
        where = f"{path}[{index}]"
        if isinstance(item, str) and allow_strings:
            ok = bool(item.strip())
        elif isinstance(item, dict) and "canonical" in item:
            ok = _text(item.get("canonical")) and isinstance(item.get("accepted_variants"), str)
        elif isinstance(item, dict) and "term" in item:
            variants = item.get("variants")
            ok = _text(item.get("term")) and isinstance(variants, list) and all(isinstance(v, str) for v in variants)
        else:
            ok = False
        if not ok:
            emit(
                "variant-malformed",
                where,
                "This variant rule is neither a string nor a canonical term with its variants.",
            )
        elif path == "$.global_variants":
            shapes.add(_variant_shape(item))
    return shapes


def _check_string_list(question: dict[str, Any], key: str, path: str, emit: Emit) -> None:
    value = question.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        emit("field-type", f"{path}.{key}", f"{key} should be a list of strings.")


def _check_components(question: dict[str, Any], path: str, emit: Emit) -> dict[str, Any]:
    """Check components; return id -> points for the well-formed ones."""
    components = question.get("components")
    points: dict[str, Any] = {}
    if not isinstance(components, list) or not components:
        emit("components-missing", f"{path}.components", "The question has no components.")
        return points
    gates: list[tuple[int, str]] = []
    all_integer = True
    for index, component in enumerate(components):
        where = f"{path}.components[{index}]"
        if not isinstance(component, dict) or not _text(component.get("id")):
            emit("component-malformed", where, "This component is not an object with an id.")
            all_integer = False
            continue
        cid = component["id"]
        if cid in points:
            emit("component-id-duplicate", f"{where}.id", f"Component id {cid} is used more than once.")
        value = component.get("points")
        if not is_int(value):
            emit(
                "points-not-integer",
                f"{where}.points",
                f"{cid} is worth {value!r} points; points must be whole numbers.",
            )
            all_integer = False
        elif value < 1:
            emit(
                "points-not-positive",
                f"{where}.points",
                f"{cid} is worth {value} points; every component is worth at least 1.",
            )
        points.setdefault(cid, value)
        is_gate = component.get("is_gate", False)
        if not isinstance(is_gate, bool):
            emit("field-type", f"{where}.is_gate", "is_gate should be true or false.")
        elif is_gate:
            gates.append((index, cid))
        if not _text(component.get("credit_if")):
            emit("credit-if-empty", f"{where}.credit_if", f"{cid} has no credit_if condition.")
    if all_integer:
        total = sum(int(components[i]["points"]) for i in range(len(components)))
        if total != TOTAL_POINTS:
            emit("points-total", f"{path}.components", f"Component points total {total}, not {TOTAL_POINTS}.")
    if not gates:
        emit("gate-missing", f"{path}.components", "No component is marked is_gate.")
    elif len(gates) > 1:
        ids = ", ".join(cid for _, cid in gates)
        emit(
            "gate-multiple",
            f"{path}.components",
            f"{len(gates)} components are marked as gates ({ids}); exactly one is allowed.",
        )
    else:
        index, cid = gates[0]
        if cid != GATE_ID:
            emit("gate-not-c1", f"{path}.components[{index}].id", f"The gate is {cid}; it must be {GATE_ID}.")
    gate_points = points.get(GATE_ID)
    if is_int(gate_points):
        if not 2 <= gate_points <= 4:
            emit(
                "gate-points-range",
                f"{path}.components",
                f"The gate {GATE_ID} is worth {gate_points} points; it must be worth 2 to 4.",
            )
        above = sum(v for k, v in points.items() if k != GATE_ID and is_int(v))
        if all_integer and above < 6:
            emit(
                "points-above-gate",
                f"{path}.components",
                f"Only {above} points lie above the gate; at least 6 are needed.",
            )
    return points


def _check_gate_block(question: dict[str, Any], path: str, points: dict[str, Any], emit: Emit) -> None:
    gate = question.get("gate")
    where = f"{path}.gate"
    if not isinstance(gate, dict):
        emit("gate-block-missing", where, "The question has no gate object.")
        return
    if gate.get("component_id") != GATE_ID:
        emit(
            "gate-component-id",
            f"{where}.component_id",
            f"gate.component_id is {gate.get('component_id')!r}; it must be {GATE_ID}.",
        )
    gate_points = gate.get("points")
    if not is_int(gate_points):
        emit("points-not-integer", f"{where}.points", f"gate.points is {gate_points!r}; points must be whole numbers.")
    elif GATE_ID in points and is_int(points[GATE_ID]) and gate_points != points[GATE_ID]:
        emit(
            "gate-points-mismatch",
            f"{where}.points",
            f"gate.points is {gate_points} but {GATE_ID} is worth {points[GATE_ID]}.",
        )
    if not _text(gate.get("pass_condition")):
        emit("pass-condition-empty", f"{where}.pass_condition", "The gate has no pass condition.")
    examples = gate.get("fail_examples")
    if not isinstance(examples, list) or not any(_text(e) for e in examples):
        emit("fail-examples-missing", f"{where}.fail_examples", "The gate has no fail examples.")


def _check_evidence(question: dict[str, Any], path: str, emit: Emit) -> None:
    evidence = question.get("evidence", [])
    if not isinstance(evidence, list):
        emit("field-type", f"{path}.evidence", "evidence should be a list.")
        return
    if not evidence:
        emit("evidence-missing", f"{path}.evidence", "The question cites no evidence.")
    for index, item in enumerate(evidence):
        where = f"{path}.evidence[{index}]"
        if not isinstance(item, dict):
            emit("evidence-malformed", where, "This evidence item is not an object.")
            continue
        missing = [key for key in EVIDENCE_KEYS if not _text(item.get(key))]
        if missing:
            emit("evidence-field-missing", where, f"Evidence item lacks {', '.join(missing)}.")
        unknown = [key for key in item if key not in EVIDENCE_KEYS and key not in EVIDENCE_OPTIONAL_KEYS]
        if unknown:
            emit("evidence-unknown-key", where, f"Evidence item has unexpected keys: {', '.join(unknown)}.")
        confidence = item.get("confidence")
        if _text(confidence) and confidence not in CONFIDENCE_LEVELS:
            emit("evidence-confidence", f"{where}.confidence", f"Confidence {confidence!r} is not HIGH, MEDIUM or LOW.")


def _check_calibration(question: dict[str, Any], path: str, points: dict[str, Any], emit: Emit) -> None:
    fixtures = question.get("calibration", [])
    where = f"{path}.calibration"
    if not isinstance(fixtures, list):
        emit("field-type", where, "calibration should be a list.")
        return
    if len(fixtures) < 3:
        emit(
            "calibration-too-few",
            where,
            f"The question has {len(fixtures)} calibration fixtures; at least 3 are needed.",
        )
    gate_points = points.get(GATE_ID)
    kinds: set[str] = set()
    for index, fixture in enumerate(fixtures):
        kind = _check_fixture(fixture, f"{where}[{index}]", points, emit)
        if kind:
            kinds.add(kind)
    if fixtures:
        if "near-miss" not in kinds:
            emit("calibration-no-near-miss", where, "No fixture is a gate-fail near miss (gate failed, total 0).")
        if "minimum" not in kinds and is_int(gate_points):
            emit(
                "calibration-no-minimum-pass",
                where,
                f"No fixture is a minimum pass (gate passed, total exactly {gate_points}).",
            )
        if "strong" not in kinds:
            emit("calibration-no-strong", where, "No fixture is a strong response (total 9 or 10).")


def _check_fixture(fixture: Any, where: str, points: dict[str, Any], emit: Emit) -> str:
    """Check one fixture; return its kind (near-miss, minimum, strong) or ''."""
    if not isinstance(fixture, dict) or not _text(fixture.get("fixture_id")):
        emit("fixture-malformed", where, "This fixture is not an object with a fixture_id.")
        return ""
    fid = fixture["fixture_id"]
    gate_passed = fixture.get("expected_gate_passed")
    if not isinstance(gate_passed, bool):
        emit(
            "fixture-malformed",
            f"{where}.expected_gate_passed",
            f"{fid}: expected_gate_passed should be true or false.",
        )
        return ""
    if not _text(fixture.get("response_text")):
        emit("fixture-response-empty", f"{where}.response_text", f"{fid} has no response text.")
    awards = fixture.get("expected_component_awards")
    if not isinstance(awards, list):
        emit(
            "fixture-malformed",
            f"{where}.expected_component_awards",
            f"{fid}: expected_component_awards should be a list.",
        )
        return ""
    seen: Counter[str] = Counter()
    award_sum = 0
    sum_ok = True
    for index, award in enumerate(awards):
        at = f"{where}.expected_component_awards[{index}]"
        if not isinstance(award, dict) or not _text(award.get("id")):
            emit("fixture-malformed", at, f"{fid}: this award is not an object with a component id.")
            sum_ok = False
            continue
        cid, value = award["id"], award.get("awarded")
        seen[cid] += 1
        if seen[cid] == 2:
            emit("fixture-award-duplicate", at, f"{fid} awards {cid} more than once.")
        if cid not in points:
            emit("fixture-award-unknown", at, f"{fid} awards {cid}, which is not a component of this question.")
        if not is_int(value):
            emit(
                "fixture-award-not-integer",
                f"{at}.awarded",
                f"{fid} awards {value!r} to {cid}; awards are whole numbers.",
            )
            sum_ok = False
            continue
        award_sum += value
        maximum = points.get(cid)
        if value < 0 or (is_int(maximum) and value > maximum):
            emit("fixture-award-range", f"{at}.awarded", f"{fid} awards {value} to {cid}, outside 0..{maximum}.")
        if not gate_passed and value != 0:
            emit("fixture-gate-failed-nonzero", f"{at}.awarded", f"{fid} fails the gate but awards {value} to {cid}.")
        if gate_passed and cid == GATE_ID and is_int(maximum) and value != maximum:
            emit(
                "fixture-gate-partial",
                f"{at}.awarded",
                f"{fid} passes the gate but awards {value} of {maximum} to {GATE_ID}.",
            )
    for cid in points:
        if cid not in seen:
            emit("fixture-award-missing", f"{where}.expected_component_awards", f"{fid} does not award {cid}.")
    total = fixture.get("expected_total")
    if not is_int(total) or not 0 <= total <= TOTAL_POINTS:
        emit(
            "fixture-total-range",
            f"{where}.expected_total",
            f"{fid}: expected_total {total!r} is not a whole number from 0 to 10.",
        )
        return ""
    if sum_ok and award_sum != total:
        emit(
            "fixture-total-mismatch",
            f"{where}.expected_total",
            f"{fid}: awards sum to {award_sum} but expected_total is {total}.",
        )
    if not gate_passed and total == 0:
        return "near-miss"
    if gate_passed and total == points.get(GATE_ID):
        return "minimum"
    if gate_passed and total >= 9:
        return "strong"
    return ""


def _check_id(qid: str, index: SetIndex, position: int, where: str, emit: Emit) -> None:
    """The id against the set's: unique (the later of two is flagged), and still unique
    when the harness keeps only its digits (each of the ids that collide is flagged)."""
    if index.first.get(qid, position) < position:
        emit("question-id-duplicate", where, f"Question id {qid} is used more than once.")
    digits = re.sub(r"\D", "", qid)
    if not digits:
        emit(
            "question-id-no-digits",
            where,
            f"Question id {qid!r} has no digits; the harness would normalise it to an empty id.",
        )
        return
    same = index.by_digits.get(digits, frozenset())
    if len(same) > 1:
        names = ", ".join(sorted(same))
        emit(
            "question-id-digits-collision",
            where,
            f"Ids {names} all become {digits} in the harness, which keeps digits only.",
        )


def _fixture_ids(question: Any) -> list[tuple[int, str]]:
    """(position, id) of each fixture of ``question`` that has an id."""
    fixtures = question.get("calibration") if isinstance(question, dict) else None
    return [
        (f_index, fixture["fixture_id"])
        for f_index, fixture in enumerate(fixtures if isinstance(fixtures, list) else [])
        if isinstance(fixture, dict) and isinstance(fixture.get("fixture_id"), str) and fixture["fixture_id"]
    ]
