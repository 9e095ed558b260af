"""Does the judge reproduce the rubric's calibration fixtures? And does it keep doing so?

Tolerance (interop README): the gate disposition exactly; determinate fixtures' totals
exactly; fixtures marked judgmental (``"judgmental": true``) within 1 point. During a
scoring run, a few standardisation fixtures are re-scored at the start and after
every N responses; a changed gate disposition or a tolerance breach is drift and
stops the run.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from pydantic import BaseModel, Field

from gtreview.core.calibration import FixtureRole, fixture_role
from gtreview.core.errors import UserError
from gtreview.core.rubric import CalibrationFixture, Question, VariantRule
from gtreview.core.wording import plural
from gtreview.inference.backend import CompletionBackend, unreachable
from gtreview.judging.pointwise import (
    Judgement,
    JudgementStatus,
    JudgeSettings,
    JudgeTask,
    Progress,
    judge_answers,
)

JUDGMENTAL_TOLERANCE = 1


def is_judgmental(fixture: CalibrationFixture) -> bool:
    extra = fixture.model_extra or {}
    return extra.get("judgmental") is True or str(extra.get("determinacy", "")).lower() == "judgmental"


class FixtureCheck(BaseModel):
    question_id: str
    fixture_id: str
    role: FixtureRole
    judgmental: bool
    expected_gate_passed: bool
    expected_total: int | float
    expected_awards: dict[str, int | float]
    judged_gate_passed: bool | None = None
    judged_total: int | None = None
    judged_awards: dict[str, int] = Field(default_factory=dict)
    reproduced: bool
    reason: str = ""


class QuestionCalibration(BaseModel):
    question_id: str
    fixtures: list[FixtureCheck]

    @property
    def reproduced(self) -> bool:
        return bool(self.fixtures) and all(f.reproduced for f in self.fixtures)


class CalibrationReport(BaseModel):
    judge: str
    prompt_sha256: str
    questions: list[QuestionCalibration]

    @property
    def reproduced(self) -> bool:
        return all(q.reproduced for q in self.questions)

    @property
    def fixture_count(self) -> int:
        return sum(len(q.fixtures) for q in self.questions)

    @property
    def reproduced_count(self) -> int:
        return sum(1 for q in self.questions for f in q.fixtures if f.reproduced)


def check_fixture(question: Question, fixture: CalibrationFixture, judgement: Judgement) -> FixtureCheck:
    judgmental = is_judgmental(fixture)
    base = FixtureCheck(
        question_id=question.id,
        fixture_id=fixture.fixture_id,
        role=fixture_role(question, fixture),
        judgmental=judgmental,
        expected_gate_passed=fixture.expected_gate_passed,
        expected_total=fixture.expected_total,
        expected_awards={a.id: a.awarded for a in fixture.expected_component_awards},
        reproduced=False,
    )
    record = judgement.record
    if judgement.status is JudgementStatus.UNSCORED or record is None:
        base.reason = f"unscored: {judgement.unscored_reason}"
        return base
    base.judged_gate_passed = record.gate_passed
    base.judged_total = record.total
    base.judged_awards = {c.id: c.awarded for c in record.components}
    tolerance = JUDGMENTAL_TOLERANCE if judgmental else 0
    if record.gate_passed != fixture.expected_gate_passed:
        base.reason = f"gate {'passed' if record.gate_passed else 'failed'}, expected {'pass' if fixture.expected_gate_passed else 'fail'}"
    elif abs(record.total - fixture.expected_total) > tolerance:
        base.reason = f"total {record.total}, expected {fixture.expected_total}" + (" ± 1" if judgmental else "")
    else:
        base.reproduced = True
    return base


FixtureHeard = Callable[[FixtureCheck, int, int], None]  # a fixture's check, fixtures checked, fixtures in all


def calibrate(
    backend: CompletionBackend,
    questions: Sequence[Question],
    *,
    settings: JudgeSettings | None = None,
    global_variants: list[VariantRule] | None = None,
    on_fixture: FixtureHeard | None = None,
    cancel: threading.Event | None = None,
) -> CalibrationReport:
    """Score every fixture of ``questions`` and compare with what the rubric expects.

    ``on_fixture(check, done, total)`` hears each fixture as its verdict is final (the
    judge reads them all at once, so they end in any order); a set ``cancel`` stops at
    the next verdict with ``JudgingCancelled`` (a ``Cancelled``)."""
    pairs = [(q, f) for q in questions for f in q.calibration]
    by_key = {f"{q.id}/{f.fixture_id}": (q, f) for q, f in pairs}
    heard = 0

    def judged(judgement: Judgement) -> None:
        nonlocal heard
        heard += 1
        if on_fixture is not None:
            question, fixture = by_key[judgement.key]
            on_fixture(check_fixture(question, fixture, judgement), heard, len(pairs))

    judgements = _judge_fixtures(backend, pairs, settings, global_variants, on_judgement=judged, cancel=cancel)
    by_question: dict[str, list[FixtureCheck]] = {q.id: [] for q in questions}
    for (question, fixture), judgement in zip(pairs, judgements, strict=True):
        by_question[question.id].append(check_fixture(question, fixture, judgement))
    sha = judgements[0].prompt_sha256 if judgements else ""
    return CalibrationReport(
        judge=backend.spec,
        prompt_sha256=sha,
        questions=[QuestionCalibration(question_id=qid, fixtures=checks) for qid, checks in by_question.items()],
    )


def _judge_fixtures(
    backend: CompletionBackend,
    pairs: Sequence[tuple[Question, CalibrationFixture]],
    settings: JudgeSettings | None,
    global_variants: list[VariantRule] | None,
    progress: Progress | None = None,
    on_judgement: Callable[[Judgement], None] | None = None,
    cancel: threading.Event | None = None,
) -> list[Judgement]:
    tasks = [
        JudgeTask(key=f"{q.id}/{f.fixture_id}", question=q, answer=f.response_text or "", fixture_id=f.fixture_id)
        for q, f in pairs
    ]
    return judge_answers(
        backend,
        tasks,
        settings=settings,
        global_variants=global_variants,
        progress=progress,
        on_judgement=on_judgement,
        cancel=cancel,
    )


def standardisation_fixtures(
    questions: Sequence[Question], limit: int = 6
) -> list[tuple[Question, CalibrationFixture]]:
    """A small, varied set to watch for drift: near misses, minimum passes and strong
    responses taken in turn from different questions."""
    by_role: dict[FixtureRole, list[tuple[Question, CalibrationFixture]]] = {}
    for question in questions:
        for fixture in question.calibration:
            by_role.setdefault(fixture_role(question, fixture), []).append((question, fixture))
    chosen: list[tuple[Question, CalibrationFixture]] = []
    roles = [FixtureRole.NEAR_MISS, FixtureRole.MINIMUM_PASS, FixtureRole.STRONG]
    while len(chosen) < limit and any(by_role.get(r) for r in roles):
        for role in roles:
            if by_role.get(role) and len(chosen) < limit:
                chosen.append(by_role[role].pop(0))
    return chosen


DRIFT_NAMED = 3  # fixtures a drift message names; it counts the rest, so the line stays one line


def _listed(items: list[str], separator: str) -> str:
    """The first few items and how many more there are, so a count and its list agree."""
    shown = separator.join(items[:DRIFT_NAMED])
    rest = len(items) - DRIFT_NAMED
    return f"{shown}{separator}and {rest} more" if rest > 0 else shown


class DriftError(UserError, RuntimeError):
    """The judge stopped reproducing the standardisation fixtures; the run must stop."""


class DriftMonitor:
    """Re-scores the standardisation fixtures at the start and every ``every`` responses.

    ``backend`` may be replaced between checks (a pass checks the judge before any
    generation, closes it while the models answer, and opens it again to judge);
    ``progress(done, total, tokens)`` is told of each fixture verdict of a check.
    """

    def __init__(
        self,
        backend: CompletionBackend,
        fixtures: list[tuple[Question, CalibrationFixture]],
        *,
        every: int = 50,
        settings: JudgeSettings | None = None,
        global_variants: list[VariantRule] | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.backend, self.fixtures, self.every = backend, fixtures, every
        self.settings, self.global_variants = settings, global_variants
        self.progress = progress
        self.baseline: dict[str, bool | None] = {}
        self.checks = 0
        self._next = every

    def _run(self, when: str) -> list[FixtureCheck]:
        judgements = _judge_fixtures(self.backend, self.fixtures, self.settings, self.global_variants, self.progress)
        missed = [j for j in judgements if j.unreachable]
        if missed:  # no verdict to check: the judge is down, not drifting
            raise unreachable(
                self.backend.spec, len(missed), len(judgements), "fixture verdicts", missed[0].unscored_reason
            )
        self.checks += 1
        checks = [check_fixture(q, f, j) for (q, f), j in zip(self.fixtures, judgements, strict=True)]
        failed = [c for c in checks if not c.reproduced]
        changed = [
            c for c in checks if c.fixture_id in self.baseline and self.baseline[c.fixture_id] != c.judged_gate_passed
        ]
        if changed:
            names = _listed([c.fixture_id for c in changed], ", ")
            raise DriftError(f"judge drift {when}: the gate disposition of {names} changed")
        if failed:
            detail = _listed([f"{c.fixture_id}: {c.reason}" for c in failed], "; ")
            raise DriftError(
                f"judge drift {when}: {plural(len(failed), 'standardisation fixture')} not reproduced ({detail})"
            )
        return checks

    def start(self) -> list[FixtureCheck]:
        checks = self._run("at the start of the run")
        self.baseline = {c.fixture_id: c.judged_gate_passed for c in checks}
        return checks

    def after(self, responses_done: int) -> list[FixtureCheck] | None:
        """Call after each batch; re-checks once ``every`` more responses are done."""
        if not self.fixtures or self.every <= 0 or responses_done < self._next:
            return None
        self._next = (responses_done // self.every + 1) * self.every
        return self._run(f"after {responses_done} responses")
