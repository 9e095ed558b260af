"""Statistics of benchmark passes, shared by the results view and the PDF report.

Qt-free, numpy only, no I/O. The implementation lives in this package's modules; import
from here (``gtreview.core.stats``), never from them. Conventions that hold throughout:

* **Score matrices** are float arrays (Q questions, K repeats). ``NaN`` is an
  *unscored* sample (the judge broke its contract): excluded from means, counted apart,
  never shown as 0. A generation *error* counts against the model and must be 0; use
  :func:`score_matrix` (totals plus ``errors`` / ``unscored`` masks) to build a matrix,
  or the ``errors`` mask of :func:`summarize_scores`, :func:`per_question` and
  :func:`gate_pass_rate`, which also count the errors.
* **The question is the unit.** A figure is the mean over questions of per-question
  means, and intervals are 95% percentile bootstraps that resample questions (or pairs
  of per-question values for differences), never individual samples, because repeats
  of one question are not independent evidence.
* **Undefined is None.** Results are frozen pydantic models that reject NaN, so an sd
  of one value, an interval over one question or a rate over no known pair is None
  and every result serialises to JSON.
* **Deterministic.** Every resampling function takes ``seed`` (an int, or a numpy
  ``Generator`` used as given); the same inputs and seed give the same numbers.
"""

from gtreview.core.stats.base import LEVEL, FloatArray, Interval, StatInputError, StatModel, opt, row_means
from gtreview.core.stats.components import ComponentKindReport, KindRate, component_kind_rates, kind_shares
from gtreview.core.stats.design import (
    ClusteredDifference,
    McNemarResult,
    clustered_paired_difference,
    majority_pass,
    mcnemar_exact,
)
from gtreview.core.stats.diagnostic import GateDiagnostic, Proportion, gate_diagnostic, wilson_interval
from gtreview.core.stats.items import ItemAnalysis, ItemStat, cronbach_alpha, item_analysis
from gtreview.core.stats.length import LengthBias, length_bias
from gtreview.core.stats.membership import (
    MEMBER_SIDE,
    AucResult,
    RocCurve,
    Signal,
    TprAtFpr,
    hard_token_gain,
    loss,
    membership_auc,
    min_k,
    min_k_plus,
    reference_ratio,
    roc_curve,
    token_moments,
    tpr_at_fpr,
    zlib_loss,
)
from gtreview.core.stats.noise import NoiseSplit, QuestionNoise, noise_per_question, noise_split
from gtreview.core.stats.paired import (
    EXACT_MAX_QUESTIONS,
    Difference,
    Verdict,
    paired_difference,
    paired_difference_of_means,
    sign_flip_p_value,
    verdict_for,
)
from gtreview.core.stats.pairwise import (
    TIE_TOLERANCE,
    Agreement,
    PairwiseSummary,
    QuestionAgreement,
    agreement,
    pairwise_summary,
)
from gtreview.core.stats.passk import (
    GateReliability,
    PassK,
    QuestionFlakiness,
    gate_reliability,
    pass_at_k,
    pass_hat_k,
)
from gtreview.core.stats.ranking import BradleyTerry, Strength, bradley_terry
from gtreview.core.stats.raters import (
    TOTAL_CATEGORIES,
    AlphaResult,
    ComponentAgreement,
    InterRater,
    KappaResult,
    QuestionDisagreement,
    RaterPair,
    TotalAgreement,
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
from gtreview.core.stats.retest import GateRetest, IccResult, fleiss_kappa, gate_retest, verdict_icc
from gtreview.core.stats.scores import (
    QuestionStat,
    RateSummary,
    ScoreSummary,
    breakdown,
    gate_pass_rate,
    group_rows,
    per_question,
    score_matrix,
    summarize_scores,
)

__all__ = [
    "EXACT_MAX_QUESTIONS",
    "LEVEL",
    "MEMBER_SIDE",
    "TIE_TOLERANCE",
    "TOTAL_CATEGORIES",
    "Agreement",
    "AlphaResult",
    "AucResult",
    "BradleyTerry",
    "ClusteredDifference",
    "ComponentAgreement",
    "ComponentKindReport",
    "Difference",
    "FloatArray",
    "GateDiagnostic",
    "GateReliability",
    "GateRetest",
    "IccResult",
    "InterRater",
    "Interval",
    "ItemAnalysis",
    "ItemStat",
    "KappaResult",
    "KindRate",
    "LengthBias",
    "McNemarResult",
    "NoiseSplit",
    "PairwiseSummary",
    "PassK",
    "Proportion",
    "QuestionAgreement",
    "QuestionDisagreement",
    "QuestionFlakiness",
    "QuestionNoise",
    "QuestionStat",
    "RateSummary",
    "RaterPair",
    "RocCurve",
    "ScoreSummary",
    "Signal",
    "StatInputError",
    "StatModel",
    "Strength",
    "TotalAgreement",
    "TprAtFpr",
    "Verdict",
    "agreement",
    "bradley_terry",
    "breakdown",
    "clustered_paired_difference",
    "cohens_kappa",
    "component_agreement",
    "component_kind_rates",
    "cronbach_alpha",
    "fleiss_kappa",
    "gate_diagnostic",
    "gate_pass_rate",
    "gate_reliability",
    "gate_retest",
    "group_rows",
    "hard_token_gain",
    "inter_rater",
    "item_analysis",
    "kappa_with_interval",
    "kind_shares",
    "krippendorff_alpha",
    "length_bias",
    "loss",
    "majority_pass",
    "mcnemar_exact",
    "mean_absolute_difference",
    "membership_auc",
    "min_k",
    "min_k_plus",
    "most_disagreeing",
    "noise_per_question",
    "noise_split",
    "opt",
    "paired_difference",
    "paired_difference_of_means",
    "pairwise_summary",
    "pass_at_k",
    "pass_hat_k",
    "per_question",
    "reference_ratio",
    "roc_curve",
    "row_means",
    "score_matrix",
    "sign_flip_p_value",
    "summarize_scores",
    "token_moments",
    "total_agreement",
    "tpr_at_fpr",
    "verdict_for",
    "verdict_icc",
    "weighted_kappa",
    "wilson_interval",
    "zlib_loss",
]
