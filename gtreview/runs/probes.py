"""Memorisation and familiarity probes: does a LoRA know its training reports by heart?

A fine-tune on a project's reports can score better on questions about them for two
very different reasons: it reasons better with the material, or it has memorised the
text. Benchmark scores cannot tell these apart; these probes look at the model itself:

* **familiarity**: mean per-token log-likelihood of corpus passages under each model,
  and of control text (the same passages with words shuffled within sentences, or
  held-out text the user names). A fine-tune that gains on the passages but not on
  the shuffled controls has learnt the word *order* of the reports, not just their
  vocabulary; differences are paired over passages with a bootstrap interval.
* **verbatim recall**: each model is prompted with the start of a passage and
  continues it greedily; how much of the true continuation comes back (longest common
  run, 4-gram overlap, exact match), against the same on controls.
* **reading**: one plain sentence per fine-tune that puts the recall/likelihood change
  next to the pointwise score change per component kind, when one is given.

The first model is the base; every other one is compared with it. Models are opened
one at a time through factories, so only one is in memory at once; :func:`engine_factory`
opens one through the inference factory, in a worker process, so a native crash while
scoring raises a one-line ``WorkerDied`` here instead of ending the caller.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Literal, TypeVar

import numpy as np

from gtreview.core.corpus import ParsedDocument
from gtreview.core.recall import exact_match, longest_common_token_run, ngram_overlap, shuffle_within_sentences
from gtreview.core.stats import Difference, StatModel, opt, paired_difference_of_means
from gtreview.inference.backend import ScoringBackend
from gtreview.inference.worker import WorkerDied

if TYPE_CHECKING:
    from gtreview.inference.specs import ModelSpec

MIN_WORDS = 30
NGRAM = 4

# What the probes need of a model: raw-text scoring and greedy continuation (the
# factory's worker-process backend and BatchedLlamaEngine both have them).
ProbeEngine = ScoringBackend
EngineFactory = Callable[[], ProbeEngine]
ControlKind = Literal["shuffled", "held-out"]
_T = TypeVar("_T")
_V = TypeVar("_V")


# -- passages ------------------------------------------------------------------


def sample_passages(
    documents: Sequence[ParsedDocument], n: int, *, seed: int = 0, min_words: int = MIN_WORDS
) -> list[str]:
    """Up to ``n`` corpus passages of at least ``min_words`` words, drawn reproducibly.

    Short passages (headings, table captions) say little about memorisation and give
    too few tokens to continue, so they are left out before sampling.
    """
    return [text for _, text in sample_passage_records(documents, n, seed=seed, min_words=min_words)]


def sample_passage_records(
    documents: Sequence[ParsedDocument], n: int, *, seed: int = 0, min_words: int = MIN_WORDS
) -> list[tuple[str, str]]:
    """The same sample as :func:`sample_passages`, each passage with its document's name."""
    pool = [(d.name, p.text) for d in documents for p in d.passages if len(p.text.split()) >= min_words]
    if n >= len(pool):
        return pool
    picked = sorted(random.Random(seed).sample(range(len(pool)), n))
    return [pool[i] for i in picked]


def shuffled_controls(passages: Sequence[str], seed: int) -> list[str]:
    """One shuffled control per passage (paired with it), each with its own seed."""
    return [shuffle_within_sentences(text, seed * 100_003 + i) for i, text in enumerate(passages)]


def engine_factory(spec: str | ModelSpec) -> EngineFactory:
    """Opens the local model ``spec`` names in a worker process when called (the probes
    call each factory once, when that model's turn comes)."""
    from gtreview.inference.factory import open_scoring_backend

    return functools.partial(open_scoring_backend, spec)


def _controls(passages: Sequence[str], controls: Sequence[str] | None, seed: int) -> tuple[list[str], ControlKind]:
    if controls is None:
        return shuffled_controls(passages, seed), "shuffled"
    return list(controls), "held-out"


# Called with each model while it is open, after the probes' own work: more scoring
# (the membership tests) without loading any model twice.
ModelVisitor = Callable[[str, ProbeEngine], None]


def _each_model(
    factories: Mapping[str, EngineFactory], work: Callable[[ProbeEngine], _T], visit: ModelVisitor | None = None
) -> list[_T]:
    if len(factories) < 2:
        raise ValueError("probes compare models: name a base and at least one fine-tune")
    results: list[_T] = []
    for label, factory in factories.items():
        engine = factory()
        try:
            results.append(work(engine))
            if visit is not None:
                visit(label, engine)
        except WorkerDied as exc:  # a native abort in that model's worker: say which model
            raise WorkerDied(f"model {label}: {exc}") from None
        finally:
            engine.close()
    return results


# -- familiarity ---------------------------------------------------------------


class ModelLikelihood(StatModel):
    """Mean per-token log-likelihood (nats) of one model, averaged over texts."""

    label: str
    passages: float | None
    controls: float | None


class FamiliarityComparison(StatModel):
    """One fine-tune against the base. ``excess`` is the passage gain beyond the gain on
    each passage's own shuffled control (paired; None with held-out controls)."""

    label: str
    base: str
    passages: Difference
    controls: Difference | None
    excess: Difference | None


class FamiliarityReport(StatModel):
    n_passages: int
    n_controls: int
    control_kind: ControlKind
    models: list[ModelLikelihood]
    comparisons: list[FamiliarityComparison]


def _mean_loglik(engine: ProbeEngine, texts: Sequence[str]) -> list[float]:
    return [s.mean for s in engine.score_texts(texts)] if texts else []


def _nan_mean(values: Sequence[float]) -> float | None:
    array = np.asarray(values, dtype=np.float64)
    array = array[~np.isnan(array)]
    return opt(array.mean()) if array.size else None


def familiarity(
    factories: Mapping[str, EngineFactory],
    passages: Sequence[str],
    *,
    controls: Sequence[str] | None = None,
    seed: int = 0,
) -> FamiliarityReport:
    """Likelihood of the passages and controls under each model, and each fine-tune's
    paired difference from the base (the first factory)."""
    control_texts, kind = _controls(passages, controls, seed)

    def work(engine: ProbeEngine) -> tuple[list[float], list[float]]:
        return _mean_loglik(engine, passages), _mean_loglik(engine, control_texts)

    scores = _each_model(factories, work)
    return _familiarity_report(list(factories), scores, len(passages), kind, seed)


def _familiarity_report(
    labels: list[str], scores: list[tuple[list[float], list[float]]], n: int, kind: ControlKind, seed: int
) -> FamiliarityReport:
    models = [
        ModelLikelihood(label=label, passages=_nan_mean(p), controls=_nan_mean(c))
        for label, (p, c) in zip(labels, scores, strict=True)
    ]
    base_p, base_c = (np.asarray(x, dtype=np.float64) for x in scores[0])
    comparisons = []
    for label, (p, c) in zip(labels[1:], scores[1:], strict=True):
        ft_p, ft_c = np.asarray(p, dtype=np.float64), np.asarray(c, dtype=np.float64)
        paired = kind == "shuffled"
        comparisons.append(
            FamiliarityComparison(
                label=label,
                base=labels[0],
                passages=paired_difference_of_means(ft_p, base_p, seed=seed),
                controls=paired_difference_of_means(ft_c, base_c, seed=seed) if ft_c.size else None,
                excess=paired_difference_of_means(ft_p - ft_c, base_p - base_c, seed=seed) if paired else None,
            )
        )
    return FamiliarityReport(
        n_passages=n, n_controls=len(scores[0][1]), control_kind=kind, models=models, comparisons=comparisons
    )


# -- verbatim recall -----------------------------------------------------------


class RecallSummary(StatModel):
    """Means over texts; ``longest_run_share`` is the run over the continuation length."""

    n: int
    longest_run: float | None
    longest_run_share: float | None
    ngram_overlap: float | None
    exact_match_rate: float | None


class ModelRecall(StatModel):
    label: str
    passages: RecallSummary
    controls: RecallSummary


class RecallComparison(StatModel):
    """One fine-tune against the base, paired over passages (and over controls)."""

    label: str
    base: str
    ngram_overlap: Difference
    longest_run_share: Difference
    exact_match: Difference
    control_ngram_overlap: Difference


class RecallReport(StatModel):
    n_passages: int
    control_kind: ControlKind
    prompt_share: float
    max_prompt_tokens: int
    max_continuation_tokens: int
    ngram: int
    models: list[ModelRecall]
    comparisons: list[RecallComparison]


# per text: (longest run, run share, n-gram overlap, exact match); NaN where untestable
_Measures = list[tuple[float, float, float, float]]


def split_for_recall(
    tokens: Sequence[int], *, prompt_share: float = 0.5, max_prompt: int = 64, max_continuation: int = 48
) -> tuple[list[int], list[int]]:
    """The prompt (the first ``prompt_share`` of the tokens, at most ``max_prompt``, at
    least the BOS and one token) and the true continuation that follows it (at most
    ``max_continuation`` tokens)."""
    cut = max(2, min(max_prompt, int(len(tokens) * prompt_share)))
    return list(tokens[:cut]), list(tokens[cut : cut + max_continuation])


def _recall_measures(
    engine: ProbeEngine, texts: Sequence[str], prompt_share: float, max_prompt: int, max_continuation: int
) -> _Measures:
    if not texts:
        return []
    splits = [
        split_for_recall(
            s.text_tokens, prompt_share=prompt_share, max_prompt=max_prompt, max_continuation=max_continuation
        )
        for s in engine.score_texts(texts)
    ]
    longest = max((len(truth) for _, truth in splits), default=0)
    generated = engine.greedy_continuations([prompt for prompt, _ in splits], longest) if longest else []
    measures: _Measures = []
    for (_, truth), output in zip(splits, generated or [[] for _ in splits], strict=True):
        if len(truth) < NGRAM:  # too short to say anything
            measures.append((np.nan, np.nan, np.nan, np.nan))
            continue
        candidate = output[: len(truth)]
        run = longest_common_token_run(truth, candidate)
        measures.append(
            (float(run), run / len(truth), ngram_overlap(truth, candidate, NGRAM), float(exact_match(truth, candidate)))
        )
    return measures


def _summary(measures: _Measures) -> RecallSummary:
    array = np.asarray(measures, dtype=np.float64).reshape(-1, 4)
    known = array[~np.isnan(array[:, 0])]
    means = [opt(known[:, k].mean()) if known.size else None for k in range(4)]
    return RecallSummary(
        n=int(known.shape[0]),
        longest_run=means[0],
        longest_run_share=means[1],
        ngram_overlap=means[2],
        exact_match_rate=means[3],
    )


def verbatim_recall(
    factories: Mapping[str, EngineFactory],
    passages: Sequence[str],
    *,
    controls: Sequence[str] | None = None,
    seed: int = 0,
    prompt_share: float = 0.5,
    max_prompt: int = 64,
    max_continuation: int = 48,
) -> RecallReport:
    """Greedy continuations of each passage's start (and each control's) under every
    model, measured against the true continuation."""
    control_texts, kind = _controls(passages, controls, seed)

    def work(engine: ProbeEngine) -> tuple[_Measures, _Measures]:
        return (
            _recall_measures(engine, passages, prompt_share, max_prompt, max_continuation),
            _recall_measures(engine, control_texts, prompt_share, max_prompt, max_continuation),
        )

    results = _each_model(factories, work)
    return _recall_report(list(factories), results, kind, seed, prompt_share, max_prompt, max_continuation)


def _recall_report(
    labels: list[str],
    results: list[tuple[_Measures, _Measures]],
    kind: ControlKind,
    seed: int,
    prompt_share: float,
    max_prompt: int,
    max_continuation: int,
) -> RecallReport:
    def column(measures: _Measures, k: int) -> np.ndarray:
        return np.asarray(measures, dtype=np.float64).reshape(-1, 4)[:, k]

    base_p, base_c = results[0]
    comparisons = [
        RecallComparison(
            label=label,
            base=labels[0],
            ngram_overlap=paired_difference_of_means(column(p, 2), column(base_p, 2), seed=seed),
            longest_run_share=paired_difference_of_means(column(p, 1), column(base_p, 1), seed=seed),
            exact_match=paired_difference_of_means(column(p, 3), column(base_p, 3), seed=seed),
            control_ngram_overlap=paired_difference_of_means(column(c, 2), column(base_c, 2), seed=seed),
        )
        for label, (p, c) in zip(labels[1:], results[1:], strict=True)
    ]
    return RecallReport(
        n_passages=len(base_p),
        control_kind=kind,
        prompt_share=prompt_share,
        max_prompt_tokens=max_prompt,
        max_continuation_tokens=max_continuation,
        ngram=NGRAM,
        models=[
            ModelRecall(label=label, passages=_summary(p), controls=_summary(c))
            for label, (p, c) in zip(labels, results, strict=True)
        ],
        comparisons=comparisons,
    )


_Raw = tuple[list[str], list[tuple[list[float], list[float]]], list[tuple[_Measures, _Measures]], ControlKind]


def _run_raw(
    factories: Mapping[str, EngineFactory],
    passages: Sequence[str],
    controls: Sequence[str] | None,
    seed: int,
    prompt_share: float,
    max_prompt: int,
    max_continuation: int,
    visit: ModelVisitor | None = None,
) -> _Raw:
    """Per-passage likelihoods and recall measures of every model, each model opened once."""
    control_texts, kind = _controls(passages, controls, seed)

    def work(engine: ProbeEngine) -> tuple[tuple[list[float], list[float]], tuple[_Measures, _Measures]]:
        return (
            (_mean_loglik(engine, passages), _mean_loglik(engine, control_texts)),
            (
                _recall_measures(engine, passages, prompt_share, max_prompt, max_continuation),
                _recall_measures(engine, control_texts, prompt_share, max_prompt, max_continuation),
            ),
        )

    raw = _each_model(factories, work, visit)
    return list(factories), [r[0] for r in raw], [r[1] for r in raw], kind


def run_probes(
    factories: Mapping[str, EngineFactory],
    passages: Sequence[str],
    *,
    controls: Sequence[str] | None = None,
    seed: int = 0,
    prompt_share: float = 0.5,
    max_prompt: int = 64,
    max_continuation: int = 48,
) -> tuple[FamiliarityReport, RecallReport]:
    """Both probes, opening each model once (what the CLI runs)."""
    labels, likelihoods, measures, kind = _run_raw(
        factories, passages, controls, seed, prompt_share, max_prompt, max_continuation
    )
    return (
        _familiarity_report(labels, likelihoods, len(passages), kind, seed),
        _recall_report(labels, measures, kind, seed, prompt_share, max_prompt, max_continuation),
    )


def run_probes_by_group(
    factories: Mapping[str, EngineFactory],
    passages: Sequence[str],
    groups: Mapping[str, Sequence[int]],
    *,
    controls: Sequence[str] | None = None,
    seed: int = 0,
    prompt_share: float = 0.5,
    max_prompt: int = 64,
    max_continuation: int = 48,
    visit: ModelVisitor | None = None,
) -> tuple[FamiliarityReport, RecallReport, dict[str, tuple[FamiliarityReport, RecallReport]]]:
    """The probes overall and per group of passages (e.g. the sources a benchmark section cites).

    Shuffled controls stay paired with their passages inside a group; held-out controls
    are used whole for every group. ``visit(label, engine)`` is called with each model
    while it is still open.
    """
    labels, likelihoods, measures, kind = _run_raw(
        factories, passages, controls, seed, prompt_share, max_prompt, max_continuation, visit
    )
    overall = (
        _familiarity_report(labels, likelihoods, len(passages), kind, seed),
        _recall_report(labels, measures, kind, seed, prompt_share, max_prompt, max_continuation),
    )

    def pick(values: list[_V], rows: Sequence[int], paired: bool) -> list[_V]:
        return [values[i] for i in rows] if paired else values

    by_group = {}
    for name, rows in groups.items():
        if len(rows) < 2:
            continue  # an interval needs two passages
        paired = kind == "shuffled"
        group_likelihoods = [(pick(p, rows, True), pick(c, rows, paired)) for p, c in likelihoods]
        group_measures = [(pick(p, rows, True), pick(c, rows, paired)) for p, c in measures]
        by_group[name] = (
            _familiarity_report(labels, group_likelihoods, len(rows), kind, seed),
            _recall_report(labels, group_measures, kind, seed, prompt_share, max_prompt, max_continuation),
        )
    return overall[0], overall[1], by_group


# -- reading -------------------------------------------------------------------
