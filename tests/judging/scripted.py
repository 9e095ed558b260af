"""A scripted judge backend, for tests only: replies come from a function of the request."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from gtreview.core.rubric import CalibrationFixture, Question
from gtreview.inference.backend import CompletionRequest, CompletionResult

Reply = str | CompletionResult
_ANSWER = re.compile(r"ANSWER TO GRADE \(between the markers\):\n<<<\n(.*)\n>>>", re.S)


def answer_of(request: CompletionRequest) -> str:
    match = _ANSWER.search(request.messages[1].content)
    return match.group(1) if match else ""


def verdict_json(question: Question, gate: bool, awards: dict[str, int], **extra: Any) -> str:
    return json.dumps(
        {
            "gate_passed": gate,
            "gate_reason": "because",
            "components": {
                c.id: {
                    "awarded": awards.get(c.id, 0),
                    "reason": "r",
                    "contradiction": False,
                    "do_not_credit_hit": False,
                }
                for c in question.components
            },
            "do_not_credit_hits": [],
            "accepted_variant_used": "",
            "demonstrated_but_unscored": [],
            "adjudication_required": False,
            "adjudication_note": "",
            **extra,
        }
    )


def fixture_reply(question: Question, fixture: CalibrationFixture) -> str:
    return verdict_json(
        question, fixture.expected_gate_passed, {a.id: int(a.awarded) for a in fixture.expected_component_awards}
    )


class ScriptedBackend:
    def __init__(self, respond: Callable[[CompletionRequest], Reply], spec: str = "scripted:judge") -> None:
        self.spec = spec
        self.respond = respond
        self.batches: list[list[CompletionRequest]] = []

    @property
    def requests(self) -> list[CompletionRequest]:
        return [r for batch in self.batches for r in batch]

    def describe(self) -> dict[str, Any]:
        return {"spec": self.spec, "kind": "scripted"}

    def complete_batch(self, requests: Sequence[CompletionRequest]) -> list[CompletionResult]:
        self.batches.append(list(requests))
        out = []
        for request in requests:
            reply = self.respond(request)
            out.append(reply if isinstance(reply, CompletionResult) else CompletionResult(text=reply))
        return out

    def close(self) -> None:
        pass
