"""Where the points come from: share of gate, binary-fact and reasoning points earned.

A total hides what changed: a fine-tune can learn the facts of a domain (binary
components) without reasoning better with them. Splitting the points by component
kind shows that, per model and as a paired difference against the base.

Input shape. Questions have different rubrics, so components are held in a padded
(Q, K, C) array per model, C being the largest number of components of any question:

* ``awards[model]``: (Q, K, C) effective awards (after the gate rule, binary all or
  nothing and contradiction zeroing, i.e. ``AwardedComponent.awarded``); a generation
  error is all 0 (a failed gate); an unscored sample is NaN (one NaN among a sample's
  real components makes the whole sample unscored). Models may differ in K.
* ``maxima``: (C,) or (Q, C) points available; a slot with 0 (or NaN) is padding.
* ``kinds``: (C,) or (Q, C) kind per slot, ``ComponentKind`` values; padding is ignored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from gtreview.core.grading import ComponentKind
from gtreview.core.stats.base import FloatArray, Interval, Seed, StatModel, bootstrap_mean, opt, rng_from, row_means
from gtreview.core.stats.paired import Difference, paired_difference_of_means

_ORDER = [kind.value for kind in ComponentKind]


class KindRate(StatModel):
    """Mean over questions of the share of this kind's points a model earned there."""

    kind: str
    rate: float | None
    ci: Interval | None
    n_questions: int  # questions that have this kind and a scored sample


class ComponentKindReport(StatModel):
    """Per model and kind the earned share; per fine-tune and kind the paired difference."""

    base: str
    kinds: list[str]
    rates: dict[str, dict[str, KindRate]]  # model -> kind -> rate
    differences: dict[str, dict[str, Difference]]  # fine-tune -> kind -> fine-tune minus base


def _broadcast(values: npt.ArrayLike, n_questions: int, n_slots: int, name: str) -> npt.NDArray[np.generic]:
    array = np.asarray(values)
    if array.shape == (n_slots,):
        array = np.broadcast_to(array, (n_questions, n_slots))
    if array.shape != (n_questions, n_slots):
        raise ValueError(f"{name} must have shape ({n_slots},) or ({n_questions}, {n_slots}), got {array.shape}")
    return array


def kind_shares(
    awards: npt.ArrayLike, maxima: npt.ArrayLike, kinds: npt.ArrayLike | Sequence[str]
) -> dict[str, FloatArray]:
    """Per kind, the (Q,) per-question mean share of its points earned (NaN: not there).

    Each scored sample's share is earned / available over that kind's components; the
    question's value is the mean over its scored samples, so the question stays the
    unit, as for totals.
    """
    array = np.asarray(awards, dtype=np.float64)
    if array.ndim != 3:
        raise ValueError(f"awards must be (questions, repeats, components), got shape {array.shape}")
    n_q, _, n_c = array.shape
    points = np.asarray(_broadcast(maxima, n_q, n_c, "maxima"), dtype=np.float64)
    labels = np.asarray(_broadcast(kinds, n_q, n_c, "kinds")).astype(str)
    real = np.nan_to_num(points, nan=0.0) > 0
    unscored = (np.isnan(array) & real[:, None, :]).any(axis=2)
    filled = np.where(real[:, None, :], np.nan_to_num(array, nan=0.0), 0.0)
    if (filled < 0).any() or (filled > np.where(real, points, 0.0)[:, None, :] + 1e-9).any():
        raise ValueError("awards must lie within [0, maximum] of their component")
    shares: dict[str, FloatArray] = {}
    for kind in sorted(set(labels[real].tolist()), key=lambda k: (_ORDER.index(k) if k in _ORDER else 99, k)):
        mask = real & (labels == kind)
        available = np.where(mask, points, 0.0).sum(axis=1)
        earned = (filled * mask[:, None, :]).sum(axis=2)
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(unscored | (available[:, None] == 0), np.nan, earned / available[:, None])
        shares[kind] = row_means(share)[0]
    return shares


def component_kind_rates(
    awards: Mapping[str, npt.ArrayLike],
    maxima: npt.ArrayLike,
    kinds: npt.ArrayLike | Sequence[str],
    *,
    base: str | None = None,
    n_boot: int = 2000,
    n_perm: int = 10000,
    seed: Seed = 0,
) -> ComponentKindReport:
    """Share of available points earned per component kind, per model, and the gains.

    ``base`` names the base model (default: the first key of ``awards``); every other
    model is compared with it per kind over the questions both have. Every figure is
    resampled from the same seed, so it does not depend on the other models shown.
    """
    if not awards:
        raise ValueError("no models")
    base_name = base if base is not None else next(iter(awards))
    if base_name not in awards:
        raise ValueError(f"base model {base_name!r} is not among the models")
    fixed = int(seed.integers(2**63)) if isinstance(seed, np.random.Generator) else seed
    shares = {model: kind_shares(values, maxima, kinds) for model, values in awards.items()}
    sizes = {len(next(iter(s.values()))) for s in shares.values() if s}
    if len(sizes) > 1:
        raise ValueError("every model must answer the same questions")
    found = {kind for per_model in shares.values() for kind in per_model}
    all_kinds = sorted(found, key=lambda k: (_ORDER.index(k) if k in _ORDER else 99, k))

    rates: dict[str, dict[str, KindRate]] = {}
    for model, per_kind in shares.items():
        rates[model] = {}
        for kind, values in per_kind.items():
            defined = values[~np.isnan(values)]
            rates[model][kind] = KindRate(
                kind=kind,
                rate=opt(defined.mean()) if defined.size else None,
                ci=bootstrap_mean(defined, n_boot=n_boot, rng=rng_from(fixed)),
                n_questions=int(defined.size),
            )
    differences = {
        model: {
            kind: paired_difference_of_means(
                per_kind[kind], shares[base_name][kind], n_boot=n_boot, n_perm=n_perm, seed=fixed
            )
            for kind in all_kinds
            if kind in per_kind and kind in shares[base_name]
        }
        for model, per_kind in shares.items()
        if model != base_name
    }
    return ComponentKindReport(base=base_name, kinds=all_kinds, rates=rates, differences=differences)
