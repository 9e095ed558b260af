"""Groundtruth harness files, written for tests from the format facts in the interop README.

Nothing here is the harness's code: each function lays an entry out the way the README
says ``main.py`` writes it (keys in its order, verdict tokens without brackets, the
swapped order's score already negated, ``avg_score`` a float, null scores for an
unknown verdict or an unscored side), and ``write`` dumps it as the harness does
(``indent=2``, non-ASCII kept, no final newline; CRLF when written on Windows).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TOKEN_SCORES = {"A>>B": 2, "A>B": 1, "A=B": 0, "B>A": -1, "B>>A": -2}
MAXIMA = {
    "A1": {"C1": 3, "C2": 3, "C3": 4},
    "B2": {"C1": 3, "C2": 3, "C3": 4},
    "C3": {"C1": 4, "C2": 3, "C3": 3},
}  # the Yudnamutana sample rubric's components


def write(path: Path, data: Any, *, crlf: bool = False) -> Path:
    text = json.dumps(data, indent=2, ensure_ascii=False)
    path.write_bytes((text.replace("\n", "\r\n") if crlf else text).encode("utf-8"))
    return path


def answer(qid: str, question: str, raw: str, clean: str | None = None) -> dict[str, Any]:
    """An answers-file entry (``--output F``): successes only."""
    return {"id": qid, "question": question, "answer_b": raw, "answer_b_clean": raw if clean is None else clean}


def legacy_answer(qid: str, question: str, text: str) -> dict[str, Any]:
    """An answers-file entry of an older harness: ``answer``, no clean text."""
    return {"id": qid, "question": question, "answer": text}


def failure(qid: str, question: str, raw: str, clean: str, error: str, raw_output: str = "") -> dict[str, Any]:
    """An ``F.stem + ".errors.json"`` entry: the raw reply, what cleaning left, why (api mode: no event stream)."""
    return {
        "id": qid,
        "question": question,
        "answer_b": raw,
        "answer_b_clean": clean,
        "error": error,
        "raw_output": raw_output,
    }


def graded(
    qid: str, gate: bool, awards: dict[str, int], *, total: int | None = None, flag: bool = False
) -> dict[str, Any]:
    """A judge's contract-valid score as the harness stores it (``score_x`` keys without the prefix);
    a passed gate's C1 is full unless ``awards`` says otherwise."""
    awards = ({"C1": MAXIMA[qid]["C1"]} if gate else {}) | awards
    components = [
        {"id": cid, "awarded": awards.get(cid, 0), "maximum": maximum, "reason": f"{cid} reason"}
        for cid, maximum in MAXIMA[qid].items()
    ]
    stated = (sum(awards.values()) if gate else 0) if total is None else total
    return {
        "": stated,
        "_reason": '```json\n{"gate_passed": ...}\n```',
        "_gate_passed": gate,
        "_components": components,
        "_adjudication_required": flag,
        "_adjudication_note": None,
    }


UNSCORED = {
    "": None,
    "_reason": "no JSON object found",
    "_gate_passed": None,
    "_components": None,
    "_adjudication_required": None,
    "_adjudication_note": None,
}


def verdicts(normal: str | None, swapped: str | None, *, brackets: bool = False) -> dict[str, Any]:
    """The pairwise keys: each order's first token, the swapped score negated, the mean a float;
    an order without a token makes the verdict ``unknown`` and every score null."""

    def shown(token: str | None) -> str:
        if token is None:
            return "unknown"
        return f"[[{token}]]" if brackets else token

    texts = (f"Reasoning. [[{normal}]]" if normal else "no verdict", f"Other order. [[{swapped}]]" if swapped else "")
    reason = f"--- RUN NORMAL ---\n{texts[0]}\n\n--- RUN SWAPPED ---\n{texts[1]}"
    if normal is None or swapped is None:
        return {
            "verdict": "unknown",
            "verdict_normal": shown(normal),
            "verdict_normal_score": None,
            "verdict_swapped": shown(swapped),
            "verdict_swapped_score": None,
            "avg_score": None,
            "reason": reason,
        }
    first, second = TOKEN_SCORES[normal], -TOKEN_SCORES[swapped]
    mean = (first + second) / 2
    label = (
        "A>>B"
        if mean >= 1.5
        else "A>B"
        if mean >= 0.5
        else "B>>A"
        if mean <= -1.5
        else "B>A"
        if mean <= -0.5
        else "A=B"
    )
    return {
        "verdict": shown(label) if brackets else label,
        "verdict_normal": shown(normal),
        "verdict_normal_score": first,
        "verdict_swapped": shown(swapped),
        "verdict_swapped_score": second,
        "avg_score": mean,
        "reason": reason,
    }


def score_entry(
    qid: str,
    question: str,
    *,
    a: tuple[str, dict[str, Any]] | None = None,
    b: tuple[str, dict[str, Any]] | None = None,
    pair: dict[str, Any] | None = None,
    sources: tuple[str, str] = ("output/answers-base.json", "output/answers-lora.json"),
) -> dict[str, Any]:
    """A ``--score`` entry in the harness's key order. ``a``/``b``: (answer text, score keys);
    a side given as (text, {}) carries its answer but no score (``--score-mode pairwise``);
    ``a=None`` is ``--score F`` (pointwise, one file). ``pair=None``: no pairwise keys."""
    entry: dict[str, Any] = {"id": qid, "question": question}
    for side, given, source in (("a", a, sources[0]), ("b", b, sources[1])):
        if given is not None:
            entry[f"answer_{side}"] = given[0]
            entry[f"answer_{side}_clean"] = given[0].strip()
            entry[f"source_answer_{side}"] = source
    if pair is not None:
        entry.update(pair)
    for side, given in (("a", a), ("b", b)):
        if given is not None:
            for suffix, value in given[1].items():
                entry[f"score_{side}{suffix}"] = value
    return entry
