"""Reading the Groundtruth harness's answer, errors and score files as it writes them.

Answer files (``main.py --output F``) are a JSON array of ``{id, question, answer_b,
answer_b_clean}`` (older files: ``answer``), successes only; failures go to
``F.stem + ".errors.json"`` with ``error`` and ``raw_output`` (the opencode event
stream, empty in api mode) added, ``answer_b`` being the raw reply. Score files
(``--score A B``) carry one entry per question of file B: both answers, the two order
verdicts as bare tokens (``"A>B"``; older files ``"[[A>B]]"``), and ``score_a*`` /
``score_b*``; ``--score F`` writes only the ``_b`` side, ``--score-mode pairwise``
no ``score_*`` at all. The harness keeps only the digits of question ids, so an id
``1`` belongs to question ``A1`` when that is the only question with those digits.

Everything is checked here before anything is stored: a value of the wrong type is
one line naming the file, the entry and the key.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from gtreview.core.errors import UserError
from gtreview.core.jsonformat import loads_json
from gtreview.core.rubric import Question
from gtreview.inputs import MAX_DATA_FILE_BYTES, InputReadError, read_limited

SIDES = ("a", "b")
VERDICT_KEYS = (
    "verdict",
    "verdict_normal",
    "verdict_normal_score",
    "verdict_swapped",
    "verdict_swapped_score",
    "avg_score",
)
SIDE_KEYS = ("", "_reason", "_gate_passed", "_components", "_adjudication_required", "_adjudication_note")


class HarnessFileError(UserError, ValueError):
    """A harness file that cannot be read (one line)."""


class HarnessAnswer(BaseModel):
    id: str
    question_text: str = ""
    raw: str = ""
    clean: str = ""

    @property
    def text(self) -> str:
        """What gets judged: the cleaned answer when the file has one."""
        return self.clean if self.clean or not self.raw else self.raw


class HarnessFailure(HarnessAnswer):
    """A failed generation from an errors file: the raw reply, what cleaning left, why."""

    error: str = ""
    event_stream: str = ""


class ScoreSide(BaseModel):
    """One side (``a`` or ``b``) of a score entry, as written; ``None`` where a key is absent."""

    side: str
    answer_raw: str | None = None
    answer_clean: str | None = None
    source: str | None = None
    scored: bool = False  # the entry has this side's score keys (pointwise asked for)
    score: int | float | None = None
    reason: str = ""
    gate_passed: Any = None
    components: Any = None
    adjudication_required: bool = False
    adjudication_note: str | None = None

    @property
    def has_answer(self) -> bool:
        return self.answer_raw is not None or self.answer_clean is not None

    @property
    def judged_text(self) -> str:
        """The text the harness's judge saw: the cleaned answer (``clean_answer`` of the raw one)."""
        return self.answer_clean if self.answer_clean is not None else (self.answer_raw or "")

    @property
    def empty(self) -> bool:
        """An answer the file holds and that is blank once cleaned (the harness judges it anyway)."""
        return self.has_answer and not self.judged_text.strip()

    def file_fields(self) -> dict[str, Any]:
        """The side's ``score_*`` keys, as the file wrote them (kept with the judgement)."""
        prefix = f"score_{self.side}"
        return {
            prefix: self.score,
            f"{prefix}_gate_passed": self.gate_passed,
            f"{prefix}_components": self.components,
            f"{prefix}_adjudication_required": self.adjudication_required,
            f"{prefix}_adjudication_note": self.adjudication_note,
        }


class ScoreEntry(BaseModel):
    position: int
    id: str
    question: str = ""
    sides: dict[str, ScoreSide] = Field(default_factory=dict)
    pairwise: bool = False  # the entry has verdict keys (pairwise asked for)
    verdicts: dict[str, Any] = Field(default_factory=dict)  # the VERDICT_KEYS present, as written
    reason: str = ""

    def order_texts(self) -> tuple[str, str]:
        """The judge's two texts, from ``reason`` (``--- RUN NORMAL --- ... --- RUN SWAPPED ---``)."""
        normal, _, swapped = self.reason.partition("--- RUN SWAPPED ---")
        return normal.replace("--- RUN NORMAL ---", "", 1), swapped


def _load(path: Path) -> Any:
    try:
        raw = read_limited(path, MAX_DATA_FILE_BYTES)
    except InputReadError as exc:
        raise HarnessFileError(str(exc)) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise HarnessFileError(f"{path}: not UTF-8 text") from None
    try:
        return loads_json(text)
    except json.JSONDecodeError as exc:
        raise HarnessFileError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None


def read_json_array(path: Path) -> list[Any]:
    data = _load(path)
    if not isinstance(data, list):
        raise HarnessFileError(f"{path}: expected a JSON array of entries")
    return data


def _entry_id(path: Path, position: int, entry: Any) -> str:
    if not isinstance(entry, dict):
        raise HarnessFileError(f"{path}: entry {position} is not a JSON object")
    value = entry.get("id")
    if isinstance(value, bool) or not isinstance(value, str | int) or not str(value).strip():
        raise HarnessFileError(f"{path}: entry {position} has no id")
    return str(value).strip()


def _text(path: Path, where: str, entry: dict[str, Any], key: str) -> str | None:
    """A text value: absent or null is None; anything else but a string is refused."""
    value = entry.get(key)
    if value is None or isinstance(value, str):
        return value
    raise HarnessFileError(f"{path}: {where}: {key} is {json.dumps(value)[:40]}, not text")


def _answer_fields(path: Path, position: int, entry: Any) -> tuple[str, dict[str, str]]:
    """Where an answers or errors entry is (for messages), and its common fields, checked."""
    answer_id = _entry_id(path, position, entry)
    where = f"entry {position} ({answer_id})"
    raw = _text(path, where, entry, "answer_b") if "answer_b" in entry else _text(path, where, entry, "answer")
    fields = {
        "id": answer_id,
        "question_text": _text(path, where, entry, "question") or "",
        "raw": raw or "",
        "clean": _text(path, where, entry, "answer_b_clean") or "",
    }
    return where, fields


def read_answers(path: Path) -> list[HarnessAnswer]:
    answers = []
    for position, entry in enumerate(read_json_array(path)):
        _, fields = _answer_fields(path, position, entry)
        answers.append(HarnessAnswer(**fields))
    return answers


def failures_path(answers: Path) -> Path | None:
    """The harness writes failed generations beside the answers, as ``<stem>.errors.json``."""
    for candidate in (answers.with_name(answers.stem + ".errors.json"), Path(f"{answers}.errors.json")):
        if candidate.is_file():
            return candidate
    return None


def read_failures(path: Path) -> list[HarnessFailure]:
    failures = []
    for position, entry in enumerate(read_json_array(path)):
        where, fields = _answer_fields(path, position, entry)
        error, stream = _text(path, where, entry, "error"), _text(path, where, entry, "raw_output")
        failures.append(HarnessFailure(**fields, error=error or "", event_stream=stream or ""))
    return failures


def _number(path: Path, where: str, entry: dict[str, Any], key: str) -> int | float | None:
    value = entry.get(key)
    if value is None or (isinstance(value, int | float) and not isinstance(value, bool)):
        return value
    raise HarnessFileError(f"{path}: {where}: {key} is {json.dumps(value)[:40]}, not a number or null")


def _side(path: Path, where: str, entry: dict[str, Any], side: str) -> ScoreSide | None:
    prefix = f"score_{side}"
    scored = any(prefix + suffix in entry for suffix in SIDE_KEYS)
    answered = any(f"answer_{side}{suffix}" in entry for suffix in ("", "_clean"))
    if not scored and not answered:
        return None
    flag = entry.get(f"{prefix}_adjudication_required")
    if flag is not None and not isinstance(flag, bool):
        raise HarnessFileError(f"{path}: {where}: {prefix}_adjudication_required is {json.dumps(flag)}, not true/false")
    components = entry.get(f"{prefix}_components")
    if components is not None and not isinstance(components, list):
        raise HarnessFileError(f"{path}: {where}: {prefix}_components is not a list")
    return ScoreSide(
        side=side,
        answer_raw=_text(path, where, entry, f"answer_{side}"),
        answer_clean=_text(path, where, entry, f"answer_{side}_clean"),
        source=_text(path, where, entry, f"source_answer_{side}"),
        scored=scored,
        score=_number(path, where, entry, prefix),
        reason=_text(path, where, entry, f"{prefix}_reason") or "",
        gate_passed=entry.get(f"{prefix}_gate_passed"),
        components=components,
        adjudication_required=bool(flag),
        adjudication_note=_text(path, where, entry, f"{prefix}_adjudication_note"),
    )


def read_score_entries(path: Path) -> list[ScoreEntry]:
    """Every entry of a harness score file, typed; pointwise-only and pairwise-only files included."""
    entries = []
    for position, entry in enumerate(read_json_array(path)):
        entry_id = _entry_id(path, position, entry)
        where = f"entry {position} ({entry_id})"
        sides = {side: found for side in SIDES if (found := _side(path, where, entry, side)) is not None}
        for key in ("verdict_normal_score", "verdict_swapped_score", "avg_score"):
            _number(path, where, entry, key)
        for key in ("verdict", "verdict_normal", "verdict_swapped"):
            _text(path, where, entry, key)
        entries.append(
            ScoreEntry(
                position=position,
                id=entry_id,
                question=_text(path, where, entry, "question") or "",
                sides=sides,
                pairwise=any(key in entry for key in VERDICT_KEYS),
                verdicts={key: entry[key] for key in VERDICT_KEYS if key in entry},
                reason=_text(path, where, entry, "reason") or "",
            )
        )
    return entries


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def question_for(answer_id: str, questions: dict[str, Question]) -> Question | None:
    """The question an answer id refers to: exact id, else the unique digits-only match."""
    if answer_id in questions:
        return questions[answer_id]
    digits = _digits(answer_id)
    matches = [q for qid, q in questions.items() if digits and _digits(qid) == digits]
    return matches[0] if len(matches) == 1 else None


class RubricRegistryEntry(BaseModel):
    key: str
    file: str = ""
    label: str = ""


def read_rubric_registry(path: Path) -> list[RubricRegistryEntry]:
    """The harness's ``configs/rubrics.json``: ``[{key, label, file, project_dir}]``."""
    entries = []
    for position, entry in enumerate(read_json_array(path)):
        if not isinstance(entry, dict) or not isinstance(entry.get("key"), str) or not entry["key"].strip():
            raise HarnessFileError(f"{path}: entry {position} has no key")
        file = entry.get("file")
        entries.append(RubricRegistryEntry(key=entry["key"].strip(), file=file if isinstance(file, str) else ""))
    return entries


def registry_key(entries: list[RubricRegistryEntry], rubric_file: str) -> str | None:
    """The key under which the registry lists a rubric file (matched by file name)."""
    name = Path(rubric_file.replace("\\", "/")).name
    found = [e.key for e in entries if e.file and Path(e.file.replace("\\", "/")).name == name]
    return found[0] if len(found) == 1 else None
