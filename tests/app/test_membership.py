"""The membership split as a project setting, and the membership tests run with the
probes on the sample project. The "tuned" fake knows the passages of the documents it
was trained on (the 1868-1891 reports) and nothing else; the base knows none."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from gtreview.app.membership import (
    MembershipSplitError,
    mark_membership_split,
    resolve_membership_split,
    stored_membership_split,
)
from gtreview.app.probes import run_memorisation_probes
from gtreview.app.sample_project import ensure_sample_project
from gtreview.inference.backend import TokenScores
from gtreview.runs.membership import MembershipSplit
from gtreview.store.corpus_repo import load_documents
from gtreview.store.db import reading
from gtreview.store.project import Project
from gtreview.store.settings_repo import MEMBERSHIP_SPLIT, get_setting
from tests.app.test_probes import WordModel

TRAINED = ["reports/1868*", "reports/1874*", "reports/1883*", "reports/1891*"]
HELD_OUT = ["19*"]


class TrainedOn(WordModel):
    """A WordModel whose log-probs also come with moments, as the local engine gives."""

    def score_texts(self, texts: Sequence[str], *, prefix_tokens: int = 0) -> list[TokenScores]:
        out = []
        for s in super().score_texts(texts, prefix_tokens=prefix_tokens):
            n = len(s.logprobs)
            noise = random.Random(len(s.text_tokens)).uniform(0.0, 0.2)
            out.append(
                TokenScores(
                    text_tokens=s.text_tokens,
                    start=s.start,
                    logprobs=tuple(x - 0.5 * (i % 3) for i, x in enumerate(s.logprobs)),
                    expected_logprobs=(-2.5 - noise,) * n,
                    logprob_variances=(1.0,) * n,
                )
            )
        return out


def fakes(project: Project) -> dict[str, Callable[[], WordModel]]:
    with reading(project.engine) as session:
        documents = load_documents(session)
    trained = [p.text for d in documents if d.name.startswith(("reports/18",)) for p in d.passages]
    return {"base": lambda: TrainedOn(trained, recites=False), "tuned": lambda: TrainedOn(trained, recites=True)}


@pytest.fixture()
def sample(tmp_path: Path):  # type: ignore[no-untyped-def]
    project = ensure_sample_project(tmp_path / "sample")
    yield project
    project.close()


def test_the_split_is_checked_then_kept_in_the_project(sample: Project) -> None:
    assert stored_membership_split(sample.engine) is None
    split = mark_membership_split(sample.engine, TRAINED, HELD_OUT)
    assert stored_membership_split(sample.engine) == split == MembershipSplit(members=TRAINED, held_out=HELD_OUT)
    members, held_out = resolve_membership_split(sample.engine, split)
    assert len(members) == 4 and all(name.startswith("reports/19") for name in held_out) and len(held_out) == 3


def test_a_bad_split_is_one_line_and_the_kept_one_stays(sample: Project) -> None:
    mark_membership_split(sample.engine, TRAINED, HELD_OUT)
    with pytest.raises(MembershipSplitError, match="--members 'nowhere/\\*' matches no corpus document"):
        mark_membership_split(sample.engine, ["nowhere/*"], HELD_OUT)
    with pytest.raises(MembershipSplitError, match="needs both sides"):
        mark_membership_split(sample.engine, TRAINED, [" "])
    with pytest.raises(MembershipSplitError, match="marked both as a training document and as held out"):
        mark_membership_split(sample.engine, ["reports/*"], HELD_OUT)
    with reading(sample.engine) as session:
        assert get_setting(session, MEMBERSHIP_SPLIT) == {"members": TRAINED, "held_out": HELD_OUT}


def test_membership_aucs_come_with_the_probes(sample: Project) -> None:
    split = MembershipSplit(members=TRAINED, held_out=HELD_OUT)
    outcome = run_memorisation_probes(sample.engine, fakes(sample), passages=10, seed=2, split=split)
    report = outcome.membership
    assert report is not None and (report.n_members, report.n_held_out) == (10, 10)
    with reading(sample.engine) as session:
        assert len(report.member_documents) >= 2 and set(report.held_out_documents) <= {
            d.name for d in load_documents(session) if d.name.startswith("reports/19")
        }
    base, tuned = report.models
    tuned_auc = {a.signal: a for a in tuned.aucs}
    assert tuned_auc["loss"].result.auc == pytest.approx(1.0)
    assert tuned_auc["reference"].reading.startswith("Reference ratio (fine-tune minus base loss) separates training")
    assert tuned_auc["min_k_plus"].result.auc is not None  # the moments came through
    assert all("separates" not in a.reading for a in base.aucs)
    assert report.readings[-1].startswith("tuned tells its training documents from held-out ones")
    without = run_memorisation_probes(sample.engine, fakes(sample), passages=4, seed=2)
    assert without.membership is None


def test_a_side_without_passages_is_refused_before_any_model_loads(sample: Project) -> None:
    def never() -> WordModel:
        raise AssertionError("no model may load")

    split = MembershipSplit(members=TRAINED, held_out=["tables/*"])  # tables have no 30-word passages
    with pytest.raises(MembershipSplitError, match=r"the held-out documents \(tables/assays.csv, "):
        run_memorisation_probes(sample.engine, {"base": never, "tuned": never}, passages=4, split=split)


def test_membership_is_kept_with_the_pass(sample: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    from gtreview.inference.backend import Sampling
    from gtreview.runs.execute import run_pass
    from gtreview.runs.plan import ModelEntry, PassConfig
    from gtreview.runs.record import read_run_config
    from gtreview.store import sets
    from tests.report.test_run_report import scripted

    monkeypatch.setattr("gtreview.runs.execute.spec_identity", lambda spec: {"spec": spec})
    with reading(sample.engine) as session:
        rubric = sets.export_rubric(session, 1)
    config = PassConfig(
        name="probed",
        models=[ModelEntry(label="base", spec="base"), ModelEntry(label="tuned", spec="tuned")],
        judge="judge",
        sampling=Sampling(seed=5, max_tokens=32),
        drift_every=0,
    )
    opener = scripted({q.id: q for q in rubric.questions})
    run_id = run_pass(sample.engine, config, rubric.questions, rubric_hash="h", open_backend=opener, set_id=1).run_id
    split = MembershipSplit(members=TRAINED, held_out=HELD_OUT)
    outcome = run_memorisation_probes(sample.engine, fakes(sample), passages=6, seed=1, run_id=run_id, split=split)
    with reading(sample.engine) as session:
        stored = read_run_config(session, run_id).probes
    assert stored is not None and outcome.membership is not None
    assert stored["membership"] == outcome.membership.model_dump(mode="json")
