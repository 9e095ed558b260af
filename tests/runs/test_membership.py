"""Membership tests of the probes: the split, each passage's signals, the AUC report
and its plain reading; then the whole path on the tiny random llama and its LoRA."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from gtreview.core.corpus import ParsedDocument, Passage, SourceKind
from gtreview.core.stats.membership import (
    MEMBER_SIDE,
    hard_token_gain,
    loss,
    min_k,
    min_k_plus,
    roc_curve,
    tpr_at_fpr,
    zlib_loss,
)
from gtreview.inference.backend import TokenScores
from gtreview.inference.llama.engine import BatchedLlamaEngine
from gtreview.results.membership_text import membership_summary
from gtreview.runs.membership import (
    MembershipReport,
    MembershipSplit,
    SplitError,
    SplitPassage,
    auc_reading,
    membership_report,
    passage_signals,
    resolve_split,
    split_passages,
    strongest_signal,
)
from gtreview.runs.probes import ProbeEngine, run_probes_by_group
from tests.runs.test_probes import TEXTS

pytestmark = pytest.mark.native  # llama.cpp runs in this process: each test in a forked child

WORDS = "the gold ore in the quartz vein is graded by assay of each drill core sample at the shear zone".split()


def document(name: str, n: int = 4) -> ParsedDocument:
    passages = [
        Passage(page=1, line_start=i, line_end=i, text=" ".join(random.Random(f"{name}{i}").choices(WORDS, k=40)))
        for i in range(n)
    ]
    return ParsedDocument(
        name=name, title=name, kind=SourceKind.TEXT, sha256="0" * 64, size_bytes=1, pages=[], passages=passages
    )


DOCS = [document("reports/1868_survey.txt"), document("reports/1874_reefs.txt"), document("reports/1935_prospects.md")]


def test_the_split_resolves_globs_on_names_and_file_names() -> None:
    members, held_out = resolve_split(DOCS, MembershipSplit(members=["18*"], held_out=["reports/*.md"]))
    assert members == ["reports/1868_survey.txt", "reports/1874_reefs.txt"]
    assert held_out == ["reports/1935_prospects.md"]


def test_a_split_that_names_nothing_or_a_document_twice_is_refused() -> None:
    with pytest.raises(SplitError, match=r"--held-out '19\*\.txt' matches no corpus document"):
        resolve_split(DOCS, MembershipSplit(members=["18*"], held_out=["19*.txt"]))
    with pytest.raises(SplitError, match=r"reports/1874_reefs\.txt is marked both as a training document and as held"):
        resolve_split(DOCS, MembershipSplit(members=["18*"], held_out=["*1874*", "*.md"]))


def test_split_passages_draw_up_to_n_from_each_side_reproducibly() -> None:
    picked = split_passages(
        DOCS, ["reports/1868_survey.txt", "reports/1874_reefs.txt"], ["reports/1935_prospects.md"], 3
    )
    assert [p.side for p in picked] == ["member"] * 3 + ["held-out"] * 3
    assert picked == split_passages(
        DOCS, ["reports/1868_survey.txt", "reports/1874_reefs.txt"], ["reports/1935_prospects.md"], 3
    )
    assert len(split_passages(DOCS, ["reports/1868_survey.txt"], ["reports/1935_prospects.md"], 100)) == 8


def scores(logprobs: list[float], moments: bool = True) -> TokenScores:
    n = len(logprobs)
    return TokenScores(
        text_tokens=tuple(range(n + 1)),
        start=1,
        logprobs=tuple(logprobs),
        expected_logprobs=tuple(-2.0 - 0.1 * i for i in range(n)) if moments else None,
        logprob_variances=tuple(1.0 + 0.2 * i for i in range(n)) if moments else None,
    )


def test_passage_signals_are_the_core_formulas() -> None:
    text = "gold in quartz " * 5
    tuned, base = scores([-0.5, -3.0, -1.0, -0.2, -4.0]), scores([-1.5, -3.5, -1.0, -2.0, -4.0])
    values = passage_signals(tuned, text, base)
    assert values["loss"] == pytest.approx(loss(tuned.logprobs))
    assert values["zlib"] == pytest.approx(zlib_loss(tuned.logprobs, text))
    assert values["min_k"] == pytest.approx(min_k(tuned.logprobs, 0.2))
    assert values["min_k_plus"] == pytest.approx(
        min_k_plus(tuned.logprobs, tuned.expected_logprobs or (), tuned.logprob_variances or (), 0.2)
    )
    assert values["reference"] == pytest.approx(loss(tuned.logprobs) - loss(base.logprobs))
    assert values["hard_token"] == pytest.approx(hard_token_gain(tuned.logprobs, base.logprobs, 0.2))
    without = passage_signals(scores([-0.5, -3.0], moments=False), text, None)
    assert without["min_k_plus"] is None and "reference" not in without  # the base has no reference


def test_auc_readings_say_what_the_interval_says() -> None:
    from gtreview.core.stats.membership import membership_auc

    strong = membership_auc([1.0, 1.1, 1.2, 1.3], [2.0, 2.1, 2.2, 2.3], member_side="low")
    assert (
        auc_reading("Loss", strong)
        == "Loss separates training from held-out documents: AUC 1.00 [1.00, 1.00] (95% interval)"
    )
    chance = membership_auc([1.0, 2.0, 3.0, 4.0], [1.5, 2.5, 3.5, 0.5], member_side="low")
    assert auc_reading("Loss", chance).startswith("Loss is no better than chance: AUC 0.38 [")
    wrong = membership_auc([2.0, 2.1, 2.2, 2.3], [1.0, 1.1, 1.2, 1.3], member_side="low")
    assert auc_reading("Loss", wrong).startswith("Loss points the wrong way")
    lonely = membership_auc([1.0], [2.0, 3.0], member_side="low")
    assert auc_reading("Loss", lonely) == "Loss: AUC 1.00, too few passages on a side for an interval"


def synthetic_report(base_gap: float) -> tuple[list[SplitPassage], dict[str, list[TokenScores]]]:
    """12 member and 12 held-out passages; the tuned model finds members 1 nat/token easier,
    the base ``base_gap`` easier (0: the base cannot tell the sides apart)."""
    rng = np.random.default_rng(4)
    passages = [
        SplitPassage(document=f"d{i % 3}", side="member" if i < 12 else "held-out", text=f"t{i}") for i in range(24)
    ]
    base, tuned = [], []
    for p in passages:
        level = -3.0 + rng.normal(0, 0.2)
        member = p.side == "member"
        base.append(scores(list(level + (base_gap if member else 0.0) + rng.normal(0, 0.3, 10))))
        tuned.append(scores(list(level + (1.0 if member else 0.0) + rng.normal(0, 0.3, 10))))
    return passages, {"base": base, "tuned": tuned}


def test_the_report_separates_what_the_fine_tune_learnt_and_the_base_did_not() -> None:
    passages, by_model = synthetic_report(base_gap=0.0)
    report = membership_report(["base", "tuned"], passages, by_model, n_boot=500, seed=1)
    assert (report.n_members, report.n_held_out, report.base) == (12, 12, "base")
    assert report.member_documents == ["d0", "d1", "d2"]
    base, tuned = report.models
    assert base.is_base and [a.signal for a in base.aucs] == ["loss", "zlib", "min_k", "min_k_plus"]
    assert [a.signal for a in tuned.aucs] == ["loss", "zlib", "min_k", "min_k_plus", "reference", "hard_token"]
    by_signal = {a.signal: a for a in tuned.aucs}
    assert (by_signal["hard_token"].result.auc or 0.0) > 0.9  # the fine-tune gains at the base's hard tokens
    assert by_signal["loss"].result.auc == pytest.approx(1.0) and by_signal["reference"].result.auc == pytest.approx(
        1.0
    )
    assert by_signal["reference"].reading.startswith("Reference ratio (fine-tune minus base loss) separates training")
    assert all("separates" not in a.reading for a in base.aucs)  # the control cannot tell them apart
    assert report.readings == [
        f"tuned tells its training documents from held-out ones; strongest signal: {by_signal['loss'].reading}"
    ]
    assert len(tuned.passages) == 24 and tuned.passages[0].values["reference"] is not None


def test_a_base_that_separates_the_split_too_is_named_as_a_confound() -> None:
    passages, by_model = synthetic_report(base_gap=1.0)  # the sides differ in kind: every model finds members easier
    report = membership_report(["base", "tuned"], passages, by_model, n_boot=500, seed=1)
    assert report.readings[0].startswith("The base model (base), never trained on this split, separates it too")
    reference = next(a for a in report.models[1].aucs if a.signal == "reference")
    assert "separates" not in reference.reading  # the ratio discounts what the base already finds easy
    loss_auc = next(a for a in report.models[1].aucs if a.signal == "loss")
    assert "separates" in loss_auc.reading  # the fine-tune's own loss is fooled like the base's
    hard = next(a for a in report.models[1].aucs if a.signal == "hard_token")
    assert "separates" not in hard.reading  # read against the base too, so not fooled either
    counted = reference  # the hard-token gain is shown, never read (VERDICT_SIGNALS)
    assert report.readings[1] == (
        f"tuned does not tell its training documents from held-out ones on this split; "
        f"the signal that counts: {counted.reading}"
    )
    assert strongest_signal(report) == counted.signal  # the ROC the view and the PDF draw first


def test_a_base_that_separates_the_split_the_other_way_is_a_confound_too() -> None:
    """The tester's base gave Min-K% AUC 0.28 [0.10, 0.38]: held-out passages looked easier to
    it, so the two sides differ in kind just as when members look easier."""
    from gtreview.runs.membership import base_confounds

    passages, by_model = synthetic_report(base_gap=-1.0)
    report = membership_report(["base", "tuned"], passages, by_model, n_boot=500, seed=1)
    below = [a for a in report.models[0].aucs if a.result.ci is not None and a.result.ci.high < 0.5]
    assert below and base_confounds(report.models) == [
        a
        for a in report.models[0].aucs
        if a.result.ci is not None and (a.result.ci.low > 0.5 or a.result.ci.high < 0.5)
    ]
    assert report.readings[0].startswith("The base model (base), never trained on this split, separates it too")


def test_the_report_resamples_documents_and_gives_no_interval_from_one() -> None:
    passages, by_model = synthetic_report(base_gap=0.0)
    report = membership_report(["base", "tuned"], passages, by_model, n_boot=300, seed=1)
    loss_auc = next(a for a in report.models[1].aucs if a.signal == "loss").result
    assert (loss_auc.resampled, loss_auc.n_member_documents, loss_auc.n_non_member_documents) == ("documents", 3, 3)
    assert "(95% interval, resampling documents)" in auc_reading("Loss", loss_auc)
    assert "resampling documents within each side" in membership_summary(report)

    lonely = [p.model_copy(update={"document": "one"}) if p.side == "member" else p for p in passages]
    single = membership_report(["base", "tuned"], lonely, by_model, n_boot=300, seed=1)
    result = next(a for a in single.models[1].aucs if a.signal == "loss").result
    assert result.auc == pytest.approx(1.0) and result.ci is None and result.n_member_documents == 1
    assert auc_reading("Loss", result) == (
        "Loss: AUC 1.00, no interval: a side has 1 document, and an interval cannot be clustered by document below two"
    )


def engine(model: Path, lora: Path | None = None) -> BatchedLlamaEngine:
    return BatchedLlamaEngine(model, lora_path=lora, n_seq_max=4, n_ctx=1024, n_threads=2, flash_attn=False)


def test_membership_on_the_tiny_models_while_the_probes_have_them_open(tiny_gguf: Path, tiny_lora: Path) -> None:
    opened: list[str] = []
    factories = {"base": lambda: engine(tiny_gguf), "lora": lambda: engine(tiny_gguf, tiny_lora)}
    passages = [
        SplitPassage(document=f"d{i}", side="member" if i < 3 else "held-out", text=t) for i, t in enumerate(TEXTS)
    ]
    collected: dict[str, list[TokenScores]] = {}

    def visit(label: str, model: ProbeEngine) -> None:
        opened.append(label)
        collected[label] = model.score_texts([p.text for p in passages])

    run_probes_by_group(factories, TEXTS, {}, seed=1, visit=visit)
    assert opened == ["base", "lora"]
    report = membership_report(["base", "lora"], passages, collected, n_boot=200)
    lora = report.models[1]
    assert all(p.values["min_k_plus"] is not None and p.values["reference"] is not None for p in lora.passages)
    assert all(p.values["hard_token"] is not None for p in lora.passages)  # a LoRA scores the base's very tokens
    assert all(a.result.auc is not None and 0 <= a.result.auc <= 1 for a in lora.aucs)


def test_a_report_kept_before_documents_were_resampled_says_it_resampled_passages() -> None:
    passages, by_model = synthetic_report(base_gap=0.0)
    stored = membership_report(["base", "tuned"], passages, by_model, n_boot=50, seed=1).model_dump(mode="json")
    for model in stored["models"]:  # as an older gtreview wrote it: no resampling unit, no document counts
        for auc in model["aucs"]:
            for key in ("resampled", "n_member_documents", "n_non_member_documents"):
                del auc["result"][key]
    old = MembershipReport.model_validate(stored)
    assert old.models[1].aucs[0].result.resampled == "passages"
    assert "stratified bootstrap intervals over passages" in membership_summary(old)


def test_the_hard_token_gain_needs_the_base_to_have_scored_the_same_tokens() -> None:
    text = "gold in quartz " * 5
    tuned = scores([-0.5, -3.0, -1.0, -0.2, -4.0])
    base = scores([-1.5, -3.5, -1.0, -2.0, -4.0])
    # k = 20% of 5 tokens: the base's hardest one alone, -4.0 under both
    assert passage_signals(tuned, text, base)["hard_token"] == pytest.approx(0.0)
    assert passage_signals(tuned, text, base, k=0.4)["hard_token"] == pytest.approx((0.0 + 0.5) / 2)
    other_tokenizer = TokenScores(text_tokens=(0, 9, 8, 7, 6, 5), start=1, logprobs=base.logprobs)
    values = passage_signals(tuned, text, other_tokenizer)
    assert values["hard_token"] is None and values["reference"] is not None  # a loss per token still compares
    shifted = TokenScores(text_tokens=base.text_tokens, start=2, logprobs=base.logprobs[1:])
    assert passage_signals(tuned, text, shifted)["hard_token"] is None


def test_each_signal_carries_its_tpr_at_low_fpr_and_its_roc() -> None:
    passages, by_model = synthetic_report(base_gap=0.0)
    report = membership_report(["base", "tuned"], passages, by_model, n_boot=50, seed=1)
    for model in report.models:
        for auc in model.aucs:
            column = {
                side: np.array(
                    [np.nan if (v := r.values.get(auc.signal)) is None else v for r in model.passages if r.side == side]
                )
                for side in ("member", "held-out")
            }
            side = MEMBER_SIDE[auc.signal]
            assert auc.tpr_at_fpr == [
                tpr_at_fpr(column["member"], column["held-out"], member_side=side, max_fpr=t) for t in (0.01, 0.1)
            ]
            exact = roc_curve(column["member"], column["held-out"], member_side=side).points
            assert auc.roc == [pytest.approx(p, abs=5e-5) for p in exact] and auc.roc[0] == (0.0, 0.0)
            assert auc.roc[-1] == (1.0, 1.0)
    # 12 held-out passages: at 1% FPR none may be flagged
    assert all(t.non_members_flagged == 0 for m in report.models for a in m.aucs for t in a.tpr_at_fpr[:1])


def test_a_report_kept_before_tprs_rocs_and_the_hard_token_gain_still_reads() -> None:
    from gtreview.results.membership_text import MEMBERSHIP_HEADER, membership_rows, roc_signal, roc_signals

    passages, by_model = synthetic_report(base_gap=0.0)
    stored = membership_report(["base", "tuned"], passages, by_model, n_boot=50, seed=1).model_dump(mode="json")
    for model in stored["models"]:  # as gtreview wrote it before: no hard-token gain, no TPR, no ROC
        model["aucs"] = [a for a in model["aucs"] if a["signal"] != "hard_token"]
        for auc in model["aucs"]:
            del auc["tpr_at_fpr"], auc["roc"]
        for passage in model["passages"]:
            passage["values"].pop("hard_token", None)
    old = MembershipReport.model_validate(stored)
    assert old.models[1].aucs[-1].signal == "reference" and old.models[1].aucs[-1].tpr_at_fpr == []
    rows = membership_rows(old)
    assert all(len(row) == len(MEMBERSHIP_HEADER) and row[3:5] == ["–", "–"] for row in rows)
    assert "kept before TPRs at a low FPR and ROC curves were" in membership_summary(old)
    assert "hard-token" not in membership_summary(old)
    assert roc_signals(old) == [] and roc_signal(old) is None  # nothing to draw, and nothing fails


@pytest.mark.parametrize("base_gap", [0.0, 1.0])
def test_the_hard_token_gain_is_shown_but_never_read(base_gap: float) -> None:
    """On the known-answer fixtures it separated memorisers less well than the reference
    ratio, so a reading never rests on it (it would only add a chance to claim)."""
    passages, by_model = synthetic_report(base_gap=base_gap)
    report = membership_report(["base", "tuned"], passages, by_model, n_boot=300, seed=2)
    assert any(a.signal == "hard_token" for a in report.models[1].aucs)  # shown
    assert all("Hard-token gain" not in line for line in report.readings)  # never read
    assert strongest_signal(report) != "hard_token"
