"""Known answers: a fine-tune whose truth is known must be read as what it is.

The tiny random llama's output layer is fine-tuned in seconds on the membership split's
member passages (``tests/known_answers.py``): a model that recites those passages and
learned nothing else, by construction. The probes, as ``gtreview probe --members ...
--held-out ...`` runs them (each model in a worker process), must read it as reciting;
the base under another name (it was trained on nothing) and the same fine-tune made on
the held-out passages instead (its "members" are the other side) must not be. So the
reading's rules cannot drift from the truth unnoticed.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from gtreview.app.membership import MembershipSplit, resolve_membership_split
from gtreview.app.probes import ProbeOutcome, probe_models, run_memorisation_probes
from gtreview.app.sample_project import ensure_sample_project
from gtreview.runs.membership import split_passages
from gtreview.store import db
from gtreview.store.corpus_repo import load_documents
from tests.known_answers import write_base, write_memoriser

PER_SIDE = 6
SPLIT = MembershipSplit(members=["reports/1868*", "reports/1874*"], held_out=["reports/1903*", "reports/1912*"])
OUTSIDE = MembershipSplit(members=["reports/1883*", "reports/1891*"], held_out=["reports/1903*"])
SETTINGS = "ctx=2048&seq=4&threads=2"


@dataclass
class Fixtures:
    outcome: ProbeOutcome
    losses: dict[str, list[float]]


@pytest.fixture(scope="module")
def known(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fixtures]:
    root = tmp_path_factory.mktemp("known-answers")
    project = ensure_sample_project(root / "sample")
    try:
        members, held_out = resolve_membership_split(project.engine, SPLIT)
        with db.reading(project.engine) as session:
            passages = split_passages(load_documents(session), members, held_out, PER_SIDE, seed=0)
        base = write_base(root / "base.gguf")
        null = shutil.copyfile(base, root / "null.gguf")  # the base under another name: trained on nothing
        texts = {side: [p.text for p in passages if p.side == side] for side in ("member", "held-out")}
        memoriser, member_losses = write_memoriser(root / "memoriser.gguf", base, texts["member"])
        other, other_losses = write_memoriser(root / "held-out-tuned.gguf", base, texts["held-out"])
        # Fine-tuned as much, on reports of neither side: it changed, but not towards either.
        outside = resolve_membership_split(project.engine, OUTSIDE)[0]
        with db.reading(project.engine) as session:
            unrelated_texts = [p.text for p in split_passages(load_documents(session), outside, held_out, PER_SIDE)]
        unrelated, _ = write_memoriser(root / "unrelated.gguf", base, unrelated_texts[:PER_SIDE])
        models = probe_models(
            [
                ("base", f"llama:{base}?{SETTINGS}"),
                ("memoriser", f"llama:{memoriser}?{SETTINGS}"),
                ("null", f"llama:{null}?{SETTINGS}"),
                ("held-out-tuned", f"llama:{other}?{SETTINGS}"),
                ("unrelated", f"llama:{unrelated}?{SETTINGS}"),
            ]
        )
        outcome = run_memorisation_probes(project.engine, models, passages=PER_SIDE, seed=0, split=SPLIT)
        yield Fixtures(outcome, {"memoriser": member_losses, "held-out-tuned": other_losses})
    finally:
        project.close()


def membership_line(outcome: ProbeOutcome, label: str) -> str:
    assert outcome.membership is not None
    return next(line for line in outcome.membership.readings if line.startswith(f"{label} "))


def reference_auc(outcome: ProbeOutcome, label: str) -> tuple[float, float, float]:
    assert outcome.membership is not None
    model = next(m for m in outcome.membership.models if m.label == label)
    result = next(a.result for a in model.aucs if a.signal == "reference")
    assert result.auc is not None and result.ci is not None
    return result.auc, result.ci.low, result.ci.high


def test_the_memoriser_learned_its_passages(known: Fixtures) -> None:
    before, after = known.losses["memoriser"]
    assert after < before / 2  # the head was fine-tuned: the truth of the fixture holds


def test_a_memoriser_is_read_as_telling_its_training_passages_apart(known: Fixtures) -> None:
    line = membership_line(known.outcome, "memoriser")
    assert line.startswith("memoriser tells its training documents from held-out ones")
    _auc, low, _high = reference_auc(known.outcome, "memoriser")
    assert low > 0.5
    reading = next(r for r in known.outcome.readings if r.label == "memoriser")
    assert reading.recites_more


def test_the_base_under_another_name_is_read_as_reciting_nothing(known: Fixtures) -> None:
    line = membership_line(known.outcome, "null")
    assert line.startswith("null does not tell its training documents from held-out ones")
    assert reference_auc(known.outcome, "null")[0] == pytest.approx(0.5)  # the same model: no difference at all
    reading = next(r for r in known.outcome.readings if r.label == "null")
    assert not reading.recites_more


def test_a_fine_tune_on_the_other_side_is_not_read_as_reciting_the_members(known: Fixtures) -> None:
    line = membership_line(known.outcome, "held-out-tuned")
    assert line.startswith("held-out-tuned does not tell its training documents from held-out ones")
    _auc, _low, high = reference_auc(known.outcome, "held-out-tuned")
    assert high < 0.5  # it points the other way: the held-out passages are the ones it knows


def test_a_fine_tune_on_text_of_neither_side_is_not_read_as_reciting_either(known: Fixtures) -> None:
    line = membership_line(known.outcome, "unrelated")
    assert line.startswith("unrelated does not tell its training documents from held-out ones")
    _auc, low, high = reference_auc(known.outcome, "unrelated")
    assert low < 0.5 < high  # a changed model, and an interval that straddles chance
