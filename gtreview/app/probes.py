"""Memorisation probes of local models over the project's corpus, kept with a pass.

The probes (:mod:`gtreview.runs.probes`) ask whether a fine-tune knows the corpus
passages by heart; here they are run as a user asks for them: models checked before
any loads, passages sampled from the project, and, when a pass is named, grouped by
the benchmark sections whose questions cite their documents and stored in the pass's
run record, so its results view and report show them beside the scores.

With the analyst's membership split (:mod:`gtreview.app.membership`), the same model
turns also score passages of the trained-on and held-out documents, and each membership
signal's AUC on the split is reported (:mod:`gtreview.runs.membership`).

Log-likelihoods need the logits of every position, which only a local model gives
(in a worker process, as every local model runs); a server or API model is refused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel
from sqlalchemy import Engine

from gtreview.app.judge_gate import judge_gate
from gtreview.core.errors import UserError
from gtreview.core.stats import Difference
from gtreview.corpus.locators import CorpusIndex
from gtreview.inference.backend import TokenScores
from gtreview.inference.specs import BackendOpenError, ModelSpecError, local_files, parse_model_spec
from gtreview.inference.worker import WorkerDied
from gtreview.inputs import MAX_DATA_FILE_BYTES, InputReadError, read_limited
from gtreview.results.analysis import analyse
from gtreview.results.loader import RunResults, load_run_results
from gtreview.runs.membership import (
    MembershipReport,
    MembershipSplit,
    SplitPassage,
    membership_report,
    split_passages,
)
from gtreview.runs.probe_reading import Reading, reading, told_apart
from gtreview.runs.probes import (
    MIN_WORDS,
    EngineFactory,
    FamiliarityReport,
    ProbeEngine,
    RecallReport,
    engine_factory,
    run_probes_by_group,
    sample_passage_records,
)
from gtreview.runs.record import update_run_config
from gtreview.store import db
from gtreview.store.corpus_repo import load_documents

LOCAL_KINDS = ("llama", "hf")


class ProbeSetupError(UserError):
    """Probes that cannot run as asked (a model that is not local, too few passages)."""


class ProbeFailed(UserError):
    """The probes stopped: a model worker died, or a model could not score the text."""


class SectionProbes(BaseModel):
    """The probes restricted to the passages of the documents one benchmark section cites."""

    familiarity: FamiliarityReport
    recall: RecallReport


class ProbeOutcome(BaseModel):
    """Both probes, the plain reading per fine-tune and, with a pass, what was kept with it."""

    familiarity: FamiliarityReport
    recall: RecallReport
    readings: list[Reading]
    sections: dict[str, SectionProbes]
    run_id: int | None = None  # the pass the probes were stored with
    membership: MembershipReport | None = None  # with a membership split: each signal's AUC on it


def probe_models(models: Sequence[tuple[str, str]]) -> dict[str, EngineFactory]:
    """(label, spec) pairs to engine factories, the first the base.

    Every spec is checked, and its files found (an hf: file downloaded), before any
    model is loaded, so a typo in the last one fails at once.
    """
    factories: dict[str, EngineFactory] = {}
    for label, spec in models:
        if label in factories:
            raise ProbeSetupError(f"--model label {label!r} given twice")
        try:
            parsed = parse_model_spec(spec)
            if parsed.kind not in LOCAL_KINDS:
                raise ProbeSetupError(
                    f"{label}: probes need per-token log-likelihoods, which only local llama: or hf: models give here"
                )
            local_files(parsed)
        except (ModelSpecError, BackendOpenError) as exc:
            raise ProbeSetupError(f"{label}: {exc}") from None
        factories[label] = engine_factory(parsed)  # a worker process per model, in its turn
    if len(factories) < 2:
        raise ProbeSetupError("name a base and at least one fine-tune: --model base=SPEC --model lora=SPEC")
    return factories


def read_controls(path: Path) -> list[str]:
    """Held-out control text: paragraphs separated by blank lines, whitespace folded."""
    try:
        text = read_limited(path, MAX_DATA_FILE_BYTES).decode("utf-8")
    except InputReadError as exc:
        raise ProbeSetupError(str(exc)) from None
    except UnicodeDecodeError:
        raise ProbeSetupError(f"{path}: not UTF-8 text") from None
    paragraphs = [" ".join(p.split()) for p in text.split("\n\n") if p.strip()]
    if not paragraphs:
        raise ProbeSetupError(f"{path} holds no text to use as controls")
    return paragraphs


def section_groups(results: RunResults, index: CorpusIndex, passage_documents: Sequence[str]) -> dict[str, list[int]]:
    """The passages (by position) of the documents each benchmark section's questions cite."""
    cited: dict[str, set[str]] = {}
    for question in results.questions:
        section = question.section or "(none)"
        for evidence in question.evidence:
            document = index.match(evidence.source or "")
            if document is not None:
                cited.setdefault(section, set()).add(document.name)
    return {
        section: [i for i, name in enumerate(passage_documents) if name in names]
        for section, names in sorted(cited.items())
    }


def _run_results(engine: Engine, run_id: int) -> RunResults:
    try:
        return load_run_results(engine, run_id)
    except (KeyError, ValueError) as exc:  # a run whose stored record cannot be read
        raise ProbeSetupError(str(exc).strip("'\"")) from None


def _store_with_run(
    engine: Engine,
    results: RunResults,
    familiarity: FamiliarityReport,
    recall: RecallReport,
    sections: Mapping[str, SectionProbes],
    membership: MembershipReport | None,
) -> dict[str, dict[str, Difference]] | None:
    """Keep the probes in the pass's record; return its score differences per component
    kind, which the reading sets the probes against, when its judge is gated (else None)."""
    probes = {
        "familiarity": familiarity.model_dump(mode="json"),
        "recall": recall.model_dump(mode="json"),
        "sections": {name: section.model_dump(mode="json") for name, section in sections.items()},
    }
    if membership is not None:
        probes["membership"] = membership.model_dump(mode="json")
    with db.unit_of_work(engine) as tx:
        update_run_config(tx, results.run_id, probes=probes)
    if not judge_gate(engine, results.run_id, results=results).gated:
        return None  # a judge that may be noise: its reasoning points decide nothing
    analysis = analyse(results, n_boot=500, n_perm=2000)
    return {f.label: f.kind_differences for f in analysis.finetunes}


def _membership_passages(engine: Engine, split: MembershipSplit, per_side: int, seed: int) -> list[SplitPassage]:
    """The split's passages, up to ``per_side`` from each side; refused when a side has none."""
    from gtreview.app.membership import MembershipSplitError, resolve_membership_split

    members, held_out = resolve_membership_split(engine, split)
    with db.reading(engine) as session:
        documents = load_documents(session)
    passages = split_passages(documents, members, held_out, per_side, seed=seed)
    for side, names in (("member", members), ("held-out", held_out)):
        if not any(p.side == side for p in passages):
            raise MembershipSplitError(
                f"the {side} documents ({', '.join(names)}) have no passages of {MIN_WORDS}+ words to score"
            )
    return passages


def run_memorisation_probes(
    engine: Engine,
    models: Mapping[str, EngineFactory],
    *,
    passages: int = 32,
    seed: int = 0,
    controls: Sequence[str] | None = None,
    run_id: int | None = None,
    split: MembershipSplit | None = None,
) -> ProbeOutcome:
    """Sample ``passages`` corpus passages, run both probes on every model in turn and
    read them; with ``run_id``, per benchmark section too, and keep them with that pass.
    With a membership ``split``, up to ``passages`` passages of each of its sides are
    scored by every model while it is open, and each signal's AUC on the split reported.

    The pass and the split are read before any model loads, so a wrong run id or a
    glob that matches nothing costs nothing.
    """
    with db.reading(engine) as session:
        documents = load_documents(session)
    records = sample_passage_records(documents, passages, seed=seed)
    texts = [text for _, text in records]
    if len(texts) < 2:
        raise ProbeSetupError(
            f"the project corpus has {len(texts)} passages of {MIN_WORDS}+ words; import reports first"
        )
    results = _run_results(engine, run_id) if run_id is not None else None
    groups = (
        section_groups(results, CorpusIndex(documents), [name for name, _ in records]) if results is not None else {}
    )
    split_records = _membership_passages(engine, split, passages, seed) if split is not None else []
    split_scores: dict[str, list[TokenScores]] = {}

    def score_split(label: str, model: ProbeEngine) -> None:
        split_scores[label] = model.score_texts([p.text for p in split_records])

    try:
        familiarity, recall, by_section = run_probes_by_group(
            models, texts, groups, controls=controls, seed=seed, visit=score_split if split_records else None
        )
    except (ValueError, WorkerDied) as exc:
        raise ProbeFailed(str(exc)) from None
    membership = membership_report(list(models), split_records, split_scores, seed=seed) if split_records else None
    sections = {name: SectionProbes(familiarity=fam, recall=rec) for name, (fam, rec) in by_section.items()}
    pointwise = (
        _store_with_run(engine, results, familiarity, recall, sections, membership) if results is not None else None
    )
    return ProbeOutcome(
        familiarity=familiarity,
        recall=recall,
        readings=reading(familiarity, recall, pointwise, told_apart(membership) if membership is not None else None),
        sections=sections,
        run_id=run_id,
        membership=membership,
    )
