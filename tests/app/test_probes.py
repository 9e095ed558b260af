"""Memorisation probes as a use case (gtreview.app.probes): models checked before any
loads, passages from the project, and the probes kept with a pass by section.

The models are fakes over whole words: the "tuned" one knows the corpus passages by
heart (it scores them higher and continues them exactly), the base does not; the
probes' own arithmetic is tested in tests/runs/test_probes.py on a real tiny model.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from pathlib import Path
from types import SimpleNamespace

import pytest

from gtreview.app.probes import (
    ProbeFailed,
    ProbeSetupError,
    probe_models,
    read_controls,
    run_memorisation_probes,
)
from gtreview.app.sample_project import ensure_sample_project
from gtreview.core.errors import UserError
from gtreview.inference.backend import Sampling, TokenScores
from gtreview.inference.worker import WorkerDied
from gtreview.runs.execute import run_pass
from gtreview.runs.plan import ModelEntry, PassConfig
from gtreview.runs.record import read_run_config
from gtreview.store import sets
from gtreview.store.corpus_repo import load_documents
from gtreview.store.db import reading
from gtreview.store.project import Project
from tests.report.test_run_report import scripted


class WordModel:
    """Tokens are words; a reciter has the corpus passages by heart."""

    def __init__(self, known: Sequence[str], *, recites: bool) -> None:
        self.vocab: dict[str, int] = {}
        self.recites = recites
        self.known = [self.tokens(text) for text in known]

    def tokens(self, text: str) -> tuple[int, ...]:
        return (1, *(self.vocab.setdefault(word, len(self.vocab) + 2) for word in text.split()))

    def score_texts(self, texts: Sequence[str], *, prefix_tokens: int = 0) -> list[TokenScores]:
        scores = []
        for text in texts:
            tokens = self.tokens(text)
            noise = random.Random(text).uniform(0.0, 0.3)
            level = -1.0 if self.recites and tokens in self.known else -3.0
            scores.append(TokenScores(text_tokens=tokens, start=1, logprobs=(level - noise,) * (len(tokens) - 1)))
        return scores

    def greedy_continuations(self, prompts: Sequence[str | Sequence[int]], max_tokens: int) -> list[list[int]]:
        out = []
        for prompt in prompts:
            ids = tuple(prompt) if not isinstance(prompt, str) else self.tokens(prompt)
            match = next((k for k in self.known if self.recites and k[: len(ids)] == ids), None)
            out.append(list(match[len(ids) : len(ids) + max_tokens]) if match else [0] * max_tokens)
        return out

    def close(self) -> None:
        pass


def fakes(project: Project) -> dict[str, Callable[[], WordModel]]:
    with reading(project.engine) as session:
        texts = [p.text for d in load_documents(session) for p in d.passages]
    return {"base": lambda: WordModel(texts, recites=False), "tuned": lambda: WordModel(texts, recites=True)}


@pytest.fixture()
def sample(tmp_path: Path):  # type: ignore[no-untyped-def]
    project = ensure_sample_project(tmp_path / "sample")
    yield project
    project.close()


def test_models_are_checked_before_any_loads(tiny_gguf: Path) -> None:
    local = f"llama:{tiny_gguf}"
    assert list(probe_models([("base", local), ("lora", local)])) == ["base", "lora"]
    with pytest.raises(ProbeSetupError, match="x: probes need per-token log-likelihoods"):
        probe_models([("base", local), ("x", "openai:http://127.0.0.1:1/v1#m")])
    with pytest.raises(ProbeSetupError, match="at least one fine-tune"):
        probe_models([("base", local)])
    with pytest.raises(ProbeSetupError, match="label 'base' given twice"):
        probe_models([("base", local), ("base", local)])
    with pytest.raises(ProbeSetupError, match=r"^lora: ") as info:
        probe_models([("base", local), ("lora", "llama:/nowhere/model.gguf")])
    assert info.value.exit_status == 2


def test_controls_are_paragraphs(tmp_path: Path) -> None:
    path = tmp_path / "held-out.txt"
    path.write_text("One  paragraph\nwrapped.\n\n\nAnother one.\n", encoding="utf-8")
    assert read_controls(path) == ["One paragraph wrapped.", "Another one."]
    path.write_text("\n\n", encoding="utf-8")
    with pytest.raises(ProbeSetupError, match="holds no text"):
        read_controls(path)
    with pytest.raises(ProbeSetupError, match=r"missing\.txt: no such file"):
        read_controls(tmp_path / "missing.txt")


def test_probes_without_a_pass_are_only_read(sample: Project) -> None:
    outcome = run_memorisation_probes(sample.engine, fakes(sample), passages=8, seed=3)
    assert outcome.run_id is None and outcome.sections == {}
    assert outcome.familiarity.n_passages == 8 and [m.label for m in outcome.familiarity.models] == ["base", "tuned"]
    [tuned] = outcome.readings
    assert tuned.label == "tuned" and tuned.recites_more and tuned.reasons_better is None
    assert tuned.text == "recites more"


def test_probes_kept_with_a_pass_by_section(sample: Project, monkeypatch: pytest.MonkeyPatch) -> None:
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
    outcome = run_memorisation_probes(sample.engine, fakes(sample), passages=40, seed=1, run_id=run_id)
    assert outcome.run_id == run_id and outcome.sections
    assert set(outcome.sections) <= {q.section or "(none)" for q in rubric.questions}
    with reading(sample.engine) as session:
        stored = read_run_config(session, run_id).probes
    assert stored is not None and set(stored) == {"familiarity", "recall", "sections"}
    assert stored["familiarity"] == outcome.familiarity.model_dump(mode="json")
    assert set(stored["sections"]) == set(outcome.sections)
    # the pass's judge was never calibrated: its reasoning points may be noise and decide nothing
    assert outcome.readings[0].reasons_better is None
    monkeypatch.setattr("gtreview.app.probes.judge_gate", lambda *args, **kwargs: SimpleNamespace(gated=True))
    gated = run_memorisation_probes(sample.engine, fakes(sample), passages=40, seed=1, run_id=run_id)
    assert gated.readings[0].reasons_better is not None  # a gated judge: read against the pass's scores


def test_refusals_and_failures_are_one_line(sample: Project, tmp_path: Path) -> None:
    from gtreview.store.project import create_project

    empty = create_project(tmp_path / "empty")
    try:
        with pytest.raises(ProbeSetupError, match="the project corpus has 0 passages of 30"):
            run_memorisation_probes(empty.engine, fakes(empty))
    finally:
        empty.close()
    with pytest.raises(UserError, match="no run 99"):
        run_memorisation_probes(sample.engine, fakes(sample), passages=4, run_id=99)

    def dies() -> WordModel:
        raise WorkerDied("model worker died (signal SIGABRT)")

    with pytest.raises(ProbeFailed, match="model worker died"):
        run_memorisation_probes(sample.engine, {"base": dies, "tuned": dies}, passages=4)


def test_controls_that_never_end_or_are_too_big_are_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    with pytest.raises(ProbeSetupError, match=r"/dev/zero: is not a regular file \(a device\)"):
        read_controls(Path("/dev/zero"))  # refused before it is opened: it would never end
    monkeypatch.setattr("gtreview.app.probes.MAX_DATA_FILE_BYTES", 4096)  # not 512 MiB in a test
    big = tmp_path / "controls.txt"
    big.write_text("x" * 5000, encoding="utf-8")
    with pytest.raises(ProbeSetupError, match=r"controls\.txt: refused: larger than the 4,096 bytes limit"):
        read_controls(big)
