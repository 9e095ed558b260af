"""Memorisation probes on the tiny random llama (and its LoRA), and the plain reading.

The model is gibberish, so the tests check what holds for any model: likelihoods are
finite and reproducible, batching does not change them, the adapter does, the reports
are complete, and the reading says what the intervals say.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import pytest

from gtreview.cli.main import build_parser
from gtreview.cli.probe import probe
from gtreview.core.corpus import ParsedDocument, Passage, SourceKind
from gtreview.core.errors import UserError
from gtreview.core.stats import Difference, Interval
from gtreview.inference.llama.engine import BatchedLlamaEngine
from gtreview.runs.probe_reading import FAMILIAR_WORDING, NO_SIGN_OF_RECITING, WRONG_WAY, reading
from gtreview.runs.probes import (
    FamiliarityComparison,
    FamiliarityReport,
    RecallComparison,
    RecallReport,
    familiarity,
    run_probes,
    sample_passages,
    split_for_recall,
    verbatim_recall,
)

pytestmark = pytest.mark.native  # llama.cpp runs in this process: each test in a forked child

TEXTS = [
    "the gold ore in the quartz vein is graded by assay of each drill core sample",
    "a drill hole cut the granite and the basalt dyke at the shear zone",
    "copper and silver deposit in the sericite alteration of the schist",
    "the rubric must award points for each correct component of the answer",
    "pyrite and carbonate in the lode",
]


def engine(model: Path, lora: Path | None = None, **kwargs: object) -> BatchedLlamaEngine:
    settings: dict[str, object] = {"n_seq_max": 4, "n_ctx": 1024, "n_threads": 2, "flash_attn": False, **kwargs}
    return BatchedLlamaEngine(model, lora_path=lora, **settings)  # type: ignore[arg-type]


def test_likelihoods_are_finite_reproducible_and_token_aligned(tiny_gguf: Path) -> None:
    with engine(tiny_gguf) as e:
        first = e.score_texts(TEXTS)
        again = e.score_texts(TEXTS)
    assert [s.logprobs for s in first] == [s.logprobs for s in again]
    for s in first:
        assert s.start == 1 and len(s.logprobs) == len(s.text_tokens) - 1 == len(s.tokens)
        assert all(math.isfinite(x) and x <= 0 for x in s.logprobs)
        assert math.isfinite(s.mean)


def test_batched_scoring_equals_one_text_at_a_time(tiny_gguf: Path) -> None:
    with engine(tiny_gguf, n_seq_max=4) as e:
        batched = e.score_texts(TEXTS[:4])
        alone = [e.score_texts([t])[0] for t in TEXTS[:4]]
        waves = e.score_texts(TEXTS[:4] * 3)  # 12 texts over 4 sequences: three waves
    for b, a in zip(batched, alone, strict=True):
        assert b.text_tokens == a.text_tokens
        assert b.logprobs == pytest.approx(a.logprobs, abs=1e-4)
    for w, a in zip(waves, alone * 3, strict=True):
        assert w.logprobs == pytest.approx(a.logprobs, abs=1e-4)


def test_prefix_tokens_skip_the_context_positions(tiny_gguf: Path) -> None:
    with engine(tiny_gguf) as e:
        full = e.score_texts(TEXTS[:2])
        tail = e.score_texts(TEXTS[:2], prefix_tokens=5)
    for f, t in zip(full, tail, strict=True):
        assert t.start == 5 and t.tokens == f.text_tokens[5:]
        assert t.logprobs == pytest.approx(f.logprobs[4:], abs=1e-4)


def test_the_lora_adapter_changes_the_likelihoods(tiny_gguf: Path, tiny_lora: Path) -> None:
    with engine(tiny_gguf) as base, engine(tiny_gguf, tiny_lora) as tuned:
        b, t = base.score_texts(TEXTS), tuned.score_texts(TEXTS)
    assert [s.text_tokens for s in b] == [s.text_tokens for s in t]
    assert (
        max(abs(x - y) for sb, st in zip(b, t, strict=True) for x, y in zip(sb.logprobs, st.logprobs, strict=True))
        > 1e-2
    )


def test_greedy_continuations_are_raw_deterministic_and_match_token_prompts(tiny_gguf: Path) -> None:
    with engine(tiny_gguf) as e:
        out = e.greedy_continuations(TEXTS, 6)
        assert out == e.greedy_continuations(TEXTS, 6)
        tokens = [list(s.text_tokens) for s in e.score_texts(TEXTS)]
        assert e.greedy_continuations(tokens, 6) == out
        assert e.greedy_continuations(TEXTS[:1], 0) == [[]]
        scored = e.score_texts([TEXTS[0]])[0]
    assert all(len(o) <= 6 for o in out)
    assert scored.text_tokens == tuple(tokens[0])


def test_split_for_recall_caps_prompt_and_continuation() -> None:
    prompt, truth = split_for_recall(list(range(200)))
    assert prompt == list(range(64)) and truth == list(range(64, 112))
    prompt, truth = split_for_recall(list(range(20)))
    assert prompt == list(range(10)) and truth == list(range(10, 20))


def test_familiarity_and_recall_reports_on_tiny_models(tiny_gguf: Path, tiny_lora: Path) -> None:
    factories = {"base": lambda: engine(tiny_gguf), "lora": lambda: engine(tiny_gguf, tiny_lora)}
    fam = familiarity(factories, TEXTS, seed=1)
    assert fam.control_kind == "shuffled" and fam.n_controls == len(TEXTS)
    assert [m.label for m in fam.models] == ["base", "lora"]
    assert all(m.passages is not None and m.controls is not None for m in fam.models)
    (cmp,) = fam.comparisons
    assert cmp.passages.n_questions == len(TEXTS) and cmp.excess is not None
    assert cmp.passages.mean_difference != 0

    rec = verbatim_recall(factories, TEXTS, seed=1)
    assert [m.label for m in rec.models] == ["base", "lora"]
    assert all(0 <= (m.passages.ngram_overlap or 0) <= 1 for m in rec.models)
    both_fam, both_rec = run_probes(factories, TEXTS, seed=1)
    assert both_fam == fam and both_rec == rec

    held_out = familiarity(factories, TEXTS, controls=["the schist and the granite are not a deposit"], seed=1)
    assert held_out.control_kind == "held-out" and held_out.comparisons[0].excess is None
    assert len(reading(fam, rec)) == 1


def test_probes_by_group_restrict_to_the_group_passages(tiny_gguf: Path, tiny_lora: Path) -> None:
    from gtreview.runs.probes import run_probes_by_group

    factories = {"base": lambda: engine(tiny_gguf), "lora": lambda: engine(tiny_gguf, tiny_lora)}
    rows = [0, 2]
    fam, _rec, groups = run_probes_by_group(factories, TEXTS, {"A": rows, "lonely": [1]}, seed=1)
    assert set(groups) == {"A"}  # one passage gives no interval: left out
    group_fam, group_rec = groups["A"]
    assert group_fam.n_passages == 2 and group_rec.n_passages == 2
    base_all = fam.models[0].passages
    base_group = group_fam.models[0].passages
    assert base_all is not None and base_group is not None and base_group != base_all
    # the group's figures are the same passages' figures computed alone
    alone, _ = run_probes(factories, [TEXTS[i] for i in rows], seed=1)
    assert abs(base_group - (alone.models[0].passages or 0.0)) < 1e-3


def test_sample_passages_is_reproducible_and_skips_short_ones() -> None:
    long_text = " ".join(["gold"] * 30)
    doc = ParsedDocument(
        name="r.txt",
        title="r",
        kind=SourceKind.TEXT,
        sha256="0" * 64,
        size_bytes=1,
        pages=[],
        passages=[Passage(page=1, line_start=i, line_end=i, text=f"{long_text} {i}") for i in range(10)]
        + [Passage(page=2, line_start=1, line_end=1, text="a heading")],
    )
    picked = sample_passages([doc], 4, seed=5)
    assert picked == sample_passages([doc], 4, seed=5) and len(picked) == 4
    assert "a heading" not in sample_passages([doc], 100, seed=5)


# -- the reading ---------------------------------------------------------------


def diff(low: float, high: float) -> Difference:
    verdict = "within noise" if low <= 0 <= high else ("fine-tune better" if low > 0 else "base better")
    return Difference(
        mean_finetune=None,
        mean_base=None,
        mean_difference=(low + high) / 2,
        sd_difference=1.0,
        ci=Interval(low=low, high=high),
        p_value=0.5,
        p_exact=True,
        cohens_dz=None,
        n_questions=10,
        n_questions_excluded=0,
        verdict=verdict,  # type: ignore[arg-type]
    )


UP, FLAT = diff(0.1, 0.3), diff(-0.1, 0.1)


def reports(
    *, excess: Difference, ngram: Difference, control_ngram: Difference
) -> tuple[FamiliarityReport, RecallReport]:
    fam = FamiliarityReport(
        n_passages=10,
        n_controls=10,
        control_kind="shuffled",
        models=[],
        comparisons=[FamiliarityComparison(label="lora", base="base", passages=UP, controls=FLAT, excess=excess)],
    )
    rec = RecallReport(
        n_passages=10,
        control_kind="shuffled",
        prompt_share=0.5,
        max_prompt_tokens=64,
        max_continuation_tokens=48,
        ngram=4,
        models=[],
        comparisons=[
            RecallComparison(
                label="lora",
                base="base",
                ngram_overlap=ngram,
                longest_run_share=ngram,
                exact_match=FLAT,
                control_ngram_overlap=control_ngram,
            )
        ],
    )
    return fam, rec


def test_reading_recites_more_reasons_no_better() -> None:
    fam, rec = reports(excess=UP, ngram=UP, control_ngram=FLAT)
    (r,) = reading(fam, rec, {"lora": {"reasoning": FLAT, "fact": UP}})
    assert r.text == "recites more, reasons no better" and r.recites_more and r.reasons_better is False
    assert any("pointwise fact" in line for line in r.evidence)


def test_reading_reasons_better_and_within_noise() -> None:
    fam, rec = reports(excess=FLAT, ngram=FLAT, control_ngram=FLAT)
    assert reading(fam, rec, {"lora": {"Reasoning": UP}})[0].text == "reasons better"
    assert reading(fam, rec)[0].text == NO_SIGN_OF_RECITING
    assert reading(fam, rec)[0].reasons_better is None


def test_reading_discounts_recall_that_the_controls_show_too() -> None:
    fam, rec = reports(excess=FLAT, ngram=UP, control_ngram=UP)  # better at any text, not at these passages
    assert reading(fam, rec)[0].text == NO_SIGN_OF_RECITING


def test_a_gain_beyond_shuffled_text_alone_is_the_domain_not_reciting() -> None:
    """The known-answer learner (tuned on text written for the set, none of the reports)
    gains beyond the shuffled controls as a reciter does: only a membership split (or
    held-out controls) can say which it is, and without one the reading says so."""
    fam, rec = reports(excess=UP, ngram=FLAT, control_ngram=FLAT)
    (alone,) = reading(fam, rec)
    assert alone.text == FAMILIAR_WORDING and not alone.recites_more
    assert reading(fam, rec, members_told_apart={"lora": "members"})[0].text == "recites more"
    told_not = reading(fam, rec, members_told_apart={"lora": "neither"})[0]
    assert told_not.text == NO_SIGN_OF_RECITING and not told_not.recites_more
    # the known-answer fine-tune on the held-out side: the split points the wrong way, no claim
    wrong = reading(fam, rec, members_told_apart={"lora": "held-out"})[0]
    assert wrong.text == WRONG_WAY and not wrong.recites_more
    fam, rec = reports(excess=FLAT, ngram=UP, control_ngram=FLAT)  # verbatim recall needs no split
    assert reading(fam, rec, members_told_apart={"lora": "neither"})[0].text == "recites more"


# -- the command ---------------------------------------------------------------


def parse(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["probe", *argv])


def test_probe_refuses_server_models_and_a_lone_model(tmp_path: Path, tiny_gguf: Path) -> None:
    # Refused before any project opens (the first call names none) and before any model loads.
    with pytest.raises(UserError, match="log-likelihoods"):
        probe(parse("--model", f"base=llama:{tiny_gguf}", "--model", "x=openai:http://127.0.0.1:1/v1#m"))
    with pytest.raises(UserError, match="at least one fine-tune"):
        probe(parse("--model", f"base=llama:{tiny_gguf}", "--project", str(tmp_path)))
    with pytest.raises(UserError, match="LABEL=SPEC"):
        probe(parse("--model", f"llama:{tiny_gguf}", "--model", f"b=llama:{tiny_gguf}"))
