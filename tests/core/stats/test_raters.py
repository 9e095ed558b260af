"""gtreview.core.stats.raters: judge against expert, and expert against expert.

Hand cases write their arithmetic out. Two references are re-implemented here from
their textbook definitions, loops and all, to check the vectorised code against:
sklearn's ``cohen_kappa_score`` (sklearn is not a dependency) and Krippendorff's alpha
from the coincidence matrix of Krippendorff (2011), "Computing Krippendorff's
Alpha-Reliability".
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Literal

import numpy as np
import pytest

from gtreview.core.stats import (
    TOTAL_CATEGORIES,
    Interval,
    cohens_kappa,
    component_agreement,
    inter_rater,
    kappa_with_interval,
    krippendorff_alpha,
    mean_absolute_difference,
    most_disagreeing,
    total_agreement,
    weighted_kappa,
)
from gtreview.core.stats import raters as stats_agreement

N = None

# Krippendorff (2011), section C: 4 coders (rows A-D) x 12 units, "." (None) missing.
# Published: nominal 0.743, ordinal 0.815, interval 0.849 (n = 40 pairable values).
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
]
UNITS_2011 = [list(unit) for unit in zip(*KRIPPENDORFF_2011, strict=True)]


# --------------------------------------------------------------------------- references


def sklearn_kappa(a: Sequence[int], b: Sequence[int], labels: Sequence[int], weights: str | None) -> float:
    """sklearn.metrics.cohen_kappa_score(a, b, labels=labels, weights=weights), transcribed."""
    index = {label: i for i, label in enumerate(labels)}
    k = len(labels)
    confusion = np.zeros((k, k))
    for x, y in zip(a, b, strict=True):
        confusion[index[x], index[y]] += 1
    sum0, sum1 = confusion.sum(axis=0), confusion.sum(axis=1)
    expected = np.outer(sum0, sum1) / sum0.sum()
    if weights is None:
        w_mat = np.ones((k, k)) - np.eye(k)
    else:
        w_mat = np.add.outer(np.zeros(k), np.arange(k))
        w_mat = np.abs(w_mat - w_mat.T) if weights == "linear" else (w_mat - w_mat.T) ** 2
    return float(1 - (w_mat * confusion).sum() / (w_mat * expected).sum())


def reference_alpha(units: Sequence[Sequence[float | None]], level: str) -> float:
    """Krippendorff's alpha from the coincidence matrix, as in the 2011 paper."""
    pairable = [[v for v in unit if v is not None] for unit in units]
    pairable = [unit for unit in pairable if len(unit) >= 2]
    values = sorted({v for unit in pairable for v in unit})
    index = {v: i for i, v in enumerate(values)}
    o = np.zeros((len(values), len(values)))
    for unit in pairable:
        m = len(unit)
        for i in range(m):
            for j in range(m):
                if i != j:
                    o[index[unit[i]], index[unit[j]]] += 1 / (m - 1)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    delta = np.zeros_like(o)
    for c, vc in enumerate(values):
        for k, vk in enumerate(values):
            if level == "nominal":
                delta[c, k] = float(vc != vk)
            elif level == "interval":
                delta[c, k] = (vc - vk) ** 2
            else:
                low, high = min(c, k), max(c, k)
                delta[c, k] = (n_c[low : high + 1].sum() - (n_c[c] + n_c[k]) / 2) ** 2
    return float(1 - (n - 1) * (o * delta).sum() / (np.outer(n_c, n_c) * delta).sum())


def random_units(rng: np.random.Generator, n_units: int, n_coders: int, missing: float) -> list[list[float | None]]:
    truth = rng.integers(0, 11, n_units)
    units: list[list[float | None]] = []
    for t in truth:
        row: list[float | None] = []
        for _ in range(n_coders):
            row.append(None if rng.random() < missing else float(np.clip(t + rng.integers(-2, 3), 0, 10)))
        units.append(row)
    return units


# --------------------------------------------------------------------------- Cohen's kappa


def test_cohens_kappa_classic_two_by_two() -> None:
    # 50 items: yes/yes 20, yes/no 5, no/yes 10, no/no 15.
    # observed (20 + 15) / 50 = 0.7; rater a says yes 25/50 = 0.5, rater b 30/50 = 0.6;
    # expected 0.5 * 0.6 + 0.5 * 0.4 = 0.5; kappa (0.7 - 0.5) / (1 - 0.5) = 0.4
    a = [True] * 25 + [False] * 25
    b = [True] * 20 + [False] * 5 + [True] * 10 + [False] * 15
    result = cohens_kappa(a, b)
    assert result.kappa == pytest.approx(0.4)
    assert result.observed == pytest.approx(0.7)
    assert result.expected == pytest.approx(0.5)
    assert (result.n, result.weights, result.ci) == (50, "none", None)
    assert result.kappa == pytest.approx(sklearn_kappa([int(x) for x in a], [int(x) for x in b], [0, 1], None))


def test_cohens_kappa_perfect_and_systematic_disagreement() -> None:
    assert cohens_kappa(["pass", "fail", "pass"], ["pass", "fail", "pass"]).kappa == pytest.approx(1.0)
    # never agree, balanced: observed 0, expected 0.5 -> kappa -1
    reverse = cohens_kappa([True, False, True, False], [False, True, False, True])
    assert reverse.kappa == pytest.approx(-1.0)
    assert reverse.observed == 0.0


def test_cohens_kappa_constant_raters() -> None:
    same = cohens_kappa([True] * 6, [True] * 6)
    assert same.kappa is None  # nothing varied: undefined
    assert same.observed == 1.0 and same.expected == 1.0 and same.n == 6
    # constant at different labels: observed = expected = 0, so kappa = 0 (defined)
    apart = cohens_kappa([True] * 4, [False] * 4)
    assert apart.kappa == 0.0 and apart.observed == 0.0 and apart.expected == 0.0


def test_cohens_kappa_empty_and_length_mismatch() -> None:
    empty = cohens_kappa([], [])
    assert (empty.kappa, empty.observed, empty.expected, empty.n) == (None, None, None, 0)
    with pytest.raises(ValueError, match="same number"):
        cohens_kappa([True], [True, False])


def test_cohens_kappa_matches_sklearn_formula_on_many_labels() -> None:
    rng = np.random.default_rng(3)
    a = rng.integers(0, 4, 200)
    b = np.where(rng.random(200) < 0.6, a, rng.integers(0, 4, 200))
    result = cohens_kappa(a.tolist(), b.tolist())
    assert result.kappa == pytest.approx(sklearn_kappa(a.tolist(), b.tolist(), [0, 1, 2, 3], None))


# --------------------------------------------------------------------------- weighted kappa


def test_weighted_kappa_by_hand() -> None:
    # categories 0, 1, 2; pairs (0,0) (1,2) (2,2) (2,1); marginals a: 1/4 1/4 1/2, b: 1/4 1/4 1/2
    a, b = [0, 1, 2, 2], [0, 2, 2, 1]
    # quadratic disagreement (i - j)^2 / 4: v01 = v12 = 1/4, v02 = 1
    # observed disagreement (1/4 + 1/4) / 4 = 1/8
    # expected: 2 * (1/4*1/4*1/4 + 1/4*1/2*1 + 1/4*1/2*1/4) = 2 * (1/64 + 8/64 + 2/64) = 11/32
    # kappa = 1 - (1/8) / (11/32) = 1 - 4/11 = 7/11
    quad = weighted_kappa(a, b, categories=range(3), weights="quadratic")
    assert quad.kappa == pytest.approx(7 / 11)
    assert quad.observed == pytest.approx(7 / 8) and quad.expected == pytest.approx(21 / 32)
    # linear disagreement |i - j| / 2: v01 = v12 = 1/2, v02 = 1
    # observed (1/2 + 1/2) / 4 = 1/4; expected 2 * (1/32 + 1/8 + 1/16) = 7/16; kappa 1 - 4/7 = 3/7
    lin = weighted_kappa(a, b, categories=range(3), weights="linear")
    assert lin.kappa == pytest.approx(3 / 7)
    assert lin.weights == "linear"
    # on the 0..10 scale the unused categories leave kappa alone (they only rescale the
    # weights), while the weighted proportions move: 1 - (1/100 + 1/100) / 4 = 0.995
    wide = weighted_kappa(a, b)
    assert wide.kappa == pytest.approx(7 / 11)
    assert wide.observed == pytest.approx(0.995)


def test_weighted_kappa_matches_sklearn_formula() -> None:
    rng = np.random.default_rng(11)
    expert = rng.integers(0, 11, 300)
    judge = np.clip(expert + rng.integers(-3, 4, 300), 0, 10)
    weights: Literal["linear", "quadratic"]
    for weights in ("linear", "quadratic"):
        ours = weighted_kappa(judge.tolist(), expert.tolist(), weights=weights)
        assert ours.kappa == pytest.approx(sklearn_kappa(judge.tolist(), expert.tolist(), list(range(11)), weights))


def test_weighted_kappa_edges() -> None:
    assert weighted_kappa([4, 4, 4], [4, 4, 4]).kappa is None
    assert weighted_kappa([0, 10, 5], [0, 10, 5]).kappa == pytest.approx(1.0)
    assert weighted_kappa([0, 10], [10, 0]).kappa == pytest.approx(-1.0)
    assert weighted_kappa([], []).n == 0
    with pytest.raises(ValueError, match="not one of the categories"):
        weighted_kappa([11], [3])
    with pytest.raises(ValueError, match="not one of the categories"):
        weighted_kappa([3], [2.5])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="unknown kappa weights"):
        weighted_kappa([1], [1], weights="cubic")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- Krippendorff's alpha


@pytest.mark.parametrize(("level", "published"), [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)])
def test_alpha_krippendorff_2011_example(level: str, published: float) -> None:
    result = krippendorff_alpha(UNITS_2011, level=level, n_boot=0)  # type: ignore[arg-type]
    assert result.alpha is not None and round(result.alpha, 3) == published
    assert result.alpha == pytest.approx(reference_alpha(UNITS_2011, level))
    # unit 12 has one value (coder B's 3): not pairable, left out
    assert (result.n_units, result.n_values, result.n_units_dropped, result.ci) == (11, 40, 1, None)


def test_alpha_nominal_2011_disagreements() -> None:
    # the paper's nominal computation: alpha = 1 - (n - 1) * 8 / (n^2 - sum n_c^2)
    # with marginals n_1..n_5 = 9, 13, 10, 5, 3 (n = 40): 1 - 39 * 8 / (1600 - 384) = 0.7434
    result = krippendorff_alpha(UNITS_2011, level="nominal", n_boot=0)
    assert result.alpha == pytest.approx(1 - 39 * 8 / (1600 - 384))
    assert result.observed_disagreement == pytest.approx(8 / 40)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_alpha_matches_coincidence_matrix_reference(level: str) -> None:
    rng = np.random.default_rng(5)
    units = random_units(rng, 60, 4, missing=0.3)
    result = krippendorff_alpha(units, level=level, n_boot=0)  # type: ignore[arg-type]
    assert result.alpha == pytest.approx(reference_alpha(units, level))


def test_alpha_perfect_and_systematic_disagreement() -> None:
    perfect = krippendorff_alpha([[3, 3, None], [7, 7, 7], [0, None, 0]], n_boot=200)
    assert perfect.alpha == 1.0 and perfect.observed_disagreement == 0.0
    assert perfect.ci == Interval(low=1.0, high=1.0)
    # mirrored totals (0,10) (10,0) (2,8) (8,2): within units 2 * (100 + 100 + 36 + 36) = 544
    # over n = 8 values, D_o = 68; all ordered pairs 2 * 8 * sum (x - 5)^2 = 2 * 8 * 136 = 2176
    # over n (n - 1) = 56, D_e = 38.857; alpha = 1 - 68 * 56 / 2176 = -0.75
    mirrored = krippendorff_alpha([[0, 10], [10, 0], [2, 8], [8, 2]], n_boot=0)
    assert mirrored.alpha == pytest.approx(-0.75)
    assert mirrored.observed_disagreement == pytest.approx(68.0)


def test_alpha_edge_cases() -> None:
    for empty in ([], [[None, None]], [[4, None, None], [None, 6]]):
        result = krippendorff_alpha(empty)
        assert result.alpha is None and result.n_units == 0 and result.ci is None
        assert result.n_units_dropped == len(empty)
    # one pairable unit: every pair is a within-unit pair, so D_o = D_e and alpha = 0
    one = krippendorff_alpha([[1, 2]])
    assert one.alpha == pytest.approx(0.0) and one.ci is None  # no interval over one unit
    # constant values: no variation, alpha undefined
    constant = krippendorff_alpha([[5, 5], [5, 5, 5], [5, None, 5]], level="ordinal")
    assert constant.alpha is None and constant.expected_disagreement == 0.0
    assert constant.observed_disagreement == 0.0
    with pytest.raises(ValueError, match="infinite"):
        krippendorff_alpha([[1, math.inf]])
    with pytest.raises(ValueError, match="unknown alpha level"):
        krippendorff_alpha([[1, 2]], level="ratio")  # type: ignore[arg-type]


def test_alpha_ignores_unpairable_units_and_accepts_ragged_rows_and_nan() -> None:
    base = krippendorff_alpha(UNITS_2011, n_boot=0)
    ragged = [[v for v in unit if v is not None] for unit in UNITS_2011] + [[9.0], [math.nan, 2.0]]
    result = krippendorff_alpha(ragged, n_boot=0)
    assert result.alpha == pytest.approx(base.alpha)
    assert result.n_units_dropped == base.n_units_dropped + 2


def test_alpha_bootstrap_is_reproducible() -> None:
    units = random_units(np.random.default_rng(8), 80, 3, missing=0.2)
    first = krippendorff_alpha(units, n_boot=500, seed=42)
    again = krippendorff_alpha(units, n_boot=500, seed=42)
    other = krippendorff_alpha(units, n_boot=500, seed=43)
    generator = krippendorff_alpha(units, n_boot=500, seed=np.random.default_rng(42))
    assert first.ci is not None and first.alpha is not None
    assert first.ci == again.ci == generator.ci
    assert first.ci != other.ci
    assert first.ci.covers(first.alpha)
    assert krippendorff_alpha(units, n_boot=0).ci is None


def test_alpha_bootstrap_by_question() -> None:
    units = random_units(np.random.default_rng(9), 60, 2, missing=0.0)
    questions = [i // 3 for i in range(60)]
    clustered = krippendorff_alpha(units, n_boot=300, seed=1, question_ids=questions)
    assert clustered.ci is not None and clustered.alpha == krippendorff_alpha(units, n_boot=0).alpha
    assert krippendorff_alpha(units, n_boot=300, seed=1, question_ids=[0] * 60).ci is None  # one question
    with pytest.raises(ValueError, match="question ids"):
        krippendorff_alpha(units, question_ids=[1, 2])


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_alpha_replicate_weights_equal_duplicated_units(level: str) -> None:
    # a bootstrap replicate weights units by how often they were drawn: the same alpha
    # as the reliability data with each unit written out that many times
    rng = np.random.default_rng(21)
    units = [u for u in random_units(rng, 30, 3, missing=0.2) if sum(v is not None for v in u) >= 2]
    counts = rng.integers(0, 4, len(units))
    data = np.array([[np.nan if v is None else v for v in u] for u in units], dtype=float)
    alpha = stats_agreement._alpha_replicates(data, level, counts[None, :].astype(float))[0]  # type: ignore[arg-type]
    duplicated = [u for u, c in zip(units, counts, strict=True) for _ in range(c)]
    assert alpha[0] == pytest.approx(reference_alpha(duplicated, level))


def test_ordinal_blocks_do_not_change_the_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    units = random_units(np.random.default_rng(4), 50, 3, missing=0.1)
    whole = krippendorff_alpha(units, level="ordinal", n_boot=300, seed=2)
    monkeypatch.setattr(stats_agreement, "_CHUNK_CELLS", 200)  # one or two replicates a block
    blocked = krippendorff_alpha(units, level="ordinal", n_boot=300, seed=2)
    assert whole.ci is not None and blocked.ci is not None
    assert blocked.ci.low == pytest.approx(whole.ci.low) and blocked.ci.high == pytest.approx(whole.ci.high)


# --------------------------------------------------------------------------- totals


def test_mean_absolute_difference() -> None:
    assert mean_absolute_difference([5, 7, 3], [5, 6, 5]) == pytest.approx(1.0)  # (0 + 1 + 2) / 3
    assert mean_absolute_difference([5, None, math.nan, 2], [4, 3, 3, None]) == pytest.approx(1.0)  # one pair
    assert mean_absolute_difference([], []) is None
    assert mean_absolute_difference([None], [3]) is None


def test_total_agreement_by_hand() -> None:
    judge = [5, 7, 3, 10, None]
    expert = [5, 6, 5, 9, 4]
    result = total_agreement(judge, expert, n_boot=500, seed=3)
    # four complete pairs; differences judge - expert: 0, 1, -2, 1
    assert (result.n, result.n_missing) == (4, 1)
    assert result.mad == pytest.approx(1.0)  # (0 + 1 + 2 + 1) / 4
    assert result.exact_match_rate == pytest.approx(0.25)
    assert result.mean_signed_difference == pytest.approx(0.0)
    assert result.kappa.kappa == pytest.approx(weighted_kappa([5, 7, 3, 10], [5, 6, 5, 9]).kappa)
    assert result.alpha.alpha == pytest.approx(reference_alpha([[5, 5], [7, 6], [3, 5], [10, 9]], "interval"))
    assert result.msd_ci is not None and result.msd_ci.covers(0.0)
    assert result.mad_ci is not None and result.kappa.ci is not None and result.alpha.ci is not None
    json.loads(result.model_dump_json())


def test_total_agreement_lenient_judge() -> None:
    expert = [2, 4, 6, 8, 3, 5]
    judge = [e + 1 for e in expert]
    result = total_agreement(judge, expert, n_boot=300, seed=0)
    assert result.mean_signed_difference == 1.0 and result.exact_match_rate == 0.0
    assert result.msd_ci == Interval(low=1.0, high=1.0)  # every replicate is exactly +1
    assert result.kappa.kappa is not None and 0.8 < result.kappa.kappa < 1.0


def test_total_agreement_is_reproducible_and_clusters_by_question() -> None:
    rng = np.random.default_rng(12)
    expert = rng.integers(0, 11, 90)
    judge = np.clip(expert + rng.integers(-2, 3, 90), 0, 10)
    questions = [f"q{i // 3}" for i in range(90)]
    first = total_agreement(judge.tolist(), expert.tolist(), question_ids=questions, seed=7, n_boot=400)
    again = total_agreement(judge.tolist(), expert.tolist(), question_ids=questions, seed=7, n_boot=400)
    assert first == again
    by_answer = total_agreement(judge.tolist(), expert.tolist(), seed=7, n_boot=400)
    assert by_answer.mean_signed_difference == first.mean_signed_difference  # same estimate,
    assert by_answer.msd_ci != first.msd_ci  # different resampling unit
    for interval, value in (
        (first.msd_ci, first.mean_signed_difference),
        (first.mad_ci, first.mad),
        (first.kappa.ci, first.kappa.kappa),
        (first.alpha.ci, first.alpha.alpha),
    ):
        assert interval is not None and value is not None and interval.covers(value)


def test_total_agreement_edges() -> None:
    empty = total_agreement([None, 3], [4, None])
    assert (empty.n, empty.n_missing, empty.mad, empty.msd_ci, empty.kappa.kappa) == (0, 2, None, None, None)
    assert empty.alpha.alpha is None
    json.loads(empty.model_dump_json())
    single = total_agreement([6], [4])
    assert single.mean_signed_difference == 2.0 and single.msd_ci is None and single.kappa.ci is None
    constant = total_agreement([5, 5, 5], [5, 5, 5], n_boot=100)
    assert constant.kappa.kappa is None and constant.alpha.alpha is None and constant.exact_match_rate == 1.0
    assert constant.kappa.ci is None and constant.alpha.ci is None
    with pytest.raises(ValueError, match="same number"):
        total_agreement([1, 2], [1])
    with pytest.raises(ValueError, match="categories"):
        total_agreement([12], [3])
    assert list(TOTAL_CATEGORIES) == list(range(11))


def test_total_agreement_scales_to_thousands() -> None:
    rng = np.random.default_rng(0)
    expert = rng.integers(0, 11, 3000)
    judge = np.clip(expert + rng.integers(-1, 2, 3000), 0, 10)
    result = total_agreement(judge.tolist(), expert.tolist(), n_boot=2000, seed=0)
    assert result.n == 3000 and result.kappa.ci is not None and result.alpha.ci is not None


# --------------------------------------------------------------------------- components and questions


def test_component_agreement_by_hand() -> None:
    judge = [{"gate": 1, "f1": 2, "r1": 1}, {"gate": 1, "f1": 0}, {"gate": 0}]
    expert = [{"gate": 1, "f1": 1, "r1": 1}, {"gate": 1, "f1": 0, "r1": 2}, {"gate": 0, "f2": 1}]
    maxima = {"gate": 1, "f1": 2, "r1": 2, "f2": 1}
    result = component_agreement(judge, expert, maxima)
    assert list(result) == ["gate", "f1", "r1", "f2"]  # first appearance
    gate = result["gate"]
    assert (gate.n, gate.exact_rate, gate.mad, gate.n_unpaired) == (3, 1.0, 0.0, 0)
    f1 = result["f1"]  # differences 2 - 1 = 1 and 0 - 0 = 0
    assert (f1.n, f1.exact_rate, f1.mad, f1.mean_signed_difference) == (2, 0.5, 0.5, 0.5)
    assert f1.mad_share == pytest.approx(0.25)  # (1/2 + 0/2) / 2
    r1 = result["r1"]  # both in answer 0; only the expert awarded it in answer 1
    assert (r1.n, r1.n_unpaired, r1.mad) == (1, 1, 0.0)
    f2 = result["f2"]
    assert (f2.n, f2.n_unpaired, f2.exact_rate, f2.mad, f2.mad_share) == (0, 1, None, None, None)


def test_component_agreement_per_answer_maxima_and_errors() -> None:
    judge = [{"c": 1}, {"c": 4}]
    expert = [{"c": 0}, {"c": 2}]
    result = component_agreement(judge, expert, [{"c": 1}, {"c": 4}])["c"]
    assert result.mad_share == pytest.approx((1 / 1 + 2 / 4) / 2)
    assert result.mean_signed_difference == pytest.approx(1.5)
    with pytest.raises(ValueError, match="outside"):
        component_agreement(judge, expert, {"c": 2})
    with pytest.raises(ValueError, match="no positive maximum"):
        component_agreement(judge, expert, {"d": 4})
    with pytest.raises(ValueError, match="maxima"):
        component_agreement(judge, expert, [{"c": 4}])
    assert component_agreement([], [], {}) == {}


def test_most_disagreeing_ranks_questions() -> None:
    items = [("q1", 5, 5), ("q1", 6, 4), ("q2", 2, 8), ("q3", 3, 4), ("q3", 4, 3), ("q4", 9, 9)]
    ranked = most_disagreeing(items)
    # q2: |2 - 8| = 6; q1: (0 + 2) / 2 = 1; q3: (1 + 1) / 2 = 1 (tie: both have 2 answers, id order)
    assert [q.question_id for q in ranked] == ["q2", "q1", "q3", "q4"]
    assert (ranked[0].mad, ranked[0].mean_signed_difference, ranked[0].n) == (6.0, -6.0, 1)
    assert (ranked[1].mad, ranked[1].mean_signed_difference, ranked[1].max_abs_difference) == (1.0, 1.0, 2.0)
    assert ranked[2].mean_signed_difference == 0.0
    assert [q.question_id for q in most_disagreeing(items, top=2)] == ["q2", "q1"]
    assert len(most_disagreeing(items, top=None)) == 4
    assert most_disagreeing(items, top=0) == []
    assert most_disagreeing([]) == []
    with pytest.raises(ValueError, match="finite"):
        most_disagreeing([("q", math.nan, 3.0)])


# --------------------------------------------------------------------------- experts


def test_inter_rater_three_experts() -> None:
    grades = {
        "e1": {"a": (True, 8), "b": (True, 6), "c": (False, 0), "d": (True, 9)},
        "e2": {"a": (True, 7), "b": (False, 2), "c": (False, 0)},
        "e3": {"a": (True, 8), "b": (True, 5), "d": (True, 9), "e": (True, 4)},
    }
    result = inter_rater(grades, n_boot=200, seed=1)
    assert result.raters == ["e1", "e2", "e3"] and result.n_answers == 5
    assert [(p.rater_a, p.rater_b, p.n) for p in result.pairs] == [("e1", "e2", 3), ("e1", "e3", 3), ("e2", "e3", 2)]
    e1_e2 = result.pairs[0]  # answers a, b, c: totals 8 6 0 against 7 2 0 -> differences 1, 4, 0
    assert e1_e2.mad == pytest.approx(5 / 3) and e1_e2.mean_signed_difference == pytest.approx(5 / 3)
    assert e1_e2.gate_kappa == cohens_kappa([True, True, False], [True, False, False])
    assert e1_e2.total_kappa == weighted_kappa([8, 6, 0], [7, 2, 0])
    assert result.pairs[1].gate_kappa.kappa is None  # e1 and e3 both passed a, b, d
    totals: list[list[float | None]] = [[8, 7, 8], [6, 2, 5], [0, 0, None], [9, None, 9], [None, None, 4]]
    assert result.total_alpha.alpha == pytest.approx(reference_alpha(totals, "interval"))
    assert result.total_alpha.n_units_dropped == 1  # answer e: one expert only
    gates: list[list[float | None]] = [[1, 1, 1], [1, 0, 1], [0, 0, None], [1, None, 1], [None, None, 1]]
    assert result.gate_alpha.alpha == pytest.approx(reference_alpha(gates, "nominal"))
    assert result == inter_rater(grades, n_boot=200, seed=1)
    json.loads(result.model_dump_json())


def test_inter_rater_needs_two_experts() -> None:
    with pytest.raises(ValueError, match="two or more"):
        inter_rater({"e1": {"a": (True, 5)}})
    none_shared = inter_rater({"e1": {"a": (True, 5)}, "e2": {"b": (False, 0)}})
    assert none_shared.pairs[0].n == 0 and none_shared.pairs[0].mad is None
    assert none_shared.total_alpha.alpha is None


# --------------------------------------------------------------------------- kappa with an interval


def _by_hand_interval(
    kappa_of: object, a: list[object], b: list[object], questions: list[str], n_boot: int, seed: int
) -> tuple[float, float]:
    """The cluster bootstrap written out: draw questions with replacement (the same draws
    as ``bootstrap_weights``), take every item of each drawn question, kappa, percentiles."""
    names = list(dict.fromkeys(questions))
    items = {q: [i for i, x in enumerate(questions) if x == q] for q in names}
    draws = np.random.default_rng(seed).integers(0, len(names), size=(n_boot, len(names)))
    values = []
    for row in draws:
        picked = [i for d in row for i in items[names[d]]]
        value = kappa_of([a[i] for i in picked], [b[i] for i in picked]).kappa  # type: ignore[operator]
        if value is not None:
            values.append(value)
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def test_kappa_with_interval_is_the_cluster_bootstrap_written_out() -> None:
    rng = np.random.default_rng(21)
    questions = [f"q{i // 3}" for i in range(45)]
    expert = [bool(x) for x in rng.random(45) < 0.5]
    judge = [e if rng.random() < 0.8 else not e for e in expert]
    result = kappa_with_interval(judge, expert, question_ids=questions, n_boot=300, seed=4)
    assert result.kappa == cohens_kappa(judge, expert).kappa and result.weights == "none"
    assert result.ci is not None
    low, high = _by_hand_interval(cohens_kappa, list(judge), list(expert), questions, 300, 4)
    assert (result.ci.low, result.ci.high) == pytest.approx((low, high))

    points_e = [int(x) for x in rng.integers(0, 4, 45)]
    points_j = [int(np.clip(e + rng.integers(-1, 2), 0, 3)) for e in points_e]
    weighted = kappa_with_interval(
        points_j, points_e, weights="quadratic", categories=range(4), question_ids=questions, n_boot=300, seed=4
    )
    assert weighted.kappa == weighted_kappa(points_j, points_e, categories=range(4)).kappa

    def quadratic(x: list[int], y: list[int]) -> object:
        return weighted_kappa(x, y, categories=range(4))

    assert weighted.ci is not None
    low, high = _by_hand_interval(quadratic, list(points_j), list(points_e), questions, 300, 4)
    assert (weighted.ci.low, weighted.ci.high) == pytest.approx((low, high))


def test_kappa_with_interval_on_totals_is_total_agreements_kappa() -> None:
    rng = np.random.default_rng(22)
    expert = [int(x) for x in rng.integers(0, 11, 60)]
    judge = [int(np.clip(e + rng.integers(-2, 3), 0, 10)) for e in expert]
    questions = [f"q{i // 4}" for i in range(60)]
    totals = total_agreement(judge, expert, question_ids=questions, n_boot=400, seed=9)
    alone = kappa_with_interval(judge, expert, weights="quadratic", question_ids=questions, n_boot=400, seed=9)
    assert alone == totals.kappa


def test_kappa_with_interval_edges() -> None:
    one_question = kappa_with_interval([True, False, True], [True, False, False], question_ids=["q"] * 3)
    assert one_question.kappa is not None and one_question.ci is None  # one cluster: no interval
    with pytest.raises(ValueError, match="integer points"):
        kappa_with_interval([True, False], [1, 0], weights="quadratic")
    with pytest.raises(ValueError, match="not one of the categories"):
        kappa_with_interval([11], [3], weights="quadratic")
