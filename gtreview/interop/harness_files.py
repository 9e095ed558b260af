"""Reading and writing the Groundtruth harness's answer and score files.

Answer files are a JSON array of ``{id, question, answer_b, answer_b_clean}`` (older
files: ``answer``). The harness keeps only the digits of question ids, so an answer
whose id is ``1`` belongs to question ``A1`` when that is the only question with
those digits.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from gtreview.core.errors import UserError
from gtreview.core.rubric import Question


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


def read_json_array(path: Path) -> list[Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise HarnessFileError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise HarnessFileError(f"{path}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise HarnessFileError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, list):
        raise HarnessFileError(f"{path}: expected a JSON array of entries")
    return data


def read_answers(path: Path) -> list[HarnessAnswer]:
    answers = []
    for position, entry in enumerate(read_json_array(path)):
        if not isinstance(entry, dict) or "id" not in entry:
            raise HarnessFileError(f"{path}: entry {position} has no id")
        raw = entry.get("answer_b", entry.get("answer", ""))
        clean = entry.get("answer_b_clean", "")
        answers.append(
            HarnessAnswer(
                id=str(entry["id"]),
                question_text=str(entry.get("question", "")),
                raw=raw if isinstance(raw, str) else "",
                clean=clean if isinstance(clean, str) else "",
            )
        )
    return answers


def question_for(answer_id: str, questions: dict[str, Question]) -> Question | None:
    """The question an answer id refers to: exact id, else the unique digits-only match."""
    if answer_id in questions:
        return questions[answer_id]
    digits = re.sub(r"\D", "", answer_id)
    matches = [q for qid, q in questions.items() if digits and re.sub(r"\D", "", qid) == digits]
    return matches[0] if len(matches) == 1 else None
