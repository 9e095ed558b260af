"""The report's Configuration section: the pass's settings, then every model it named
(base, fine-tunes and judge) with its file and sha256.

A model is listed from what the pass recorded when it was planned (its spec and file
identity), and from what its backend said about itself when it was opened (versions,
context, threads). A pass that reused every stored answer opens no model, yet its figures
still come from those files, so the recorded identity is always shown.
"""

from __future__ import annotations

import json
from typing import Any

from gtreview.core.activity import short_spec
from gtreview.core.redaction import redact
from gtreview.inference.specs import ModelSpecError, parse_model_spec
from gtreview.report.document import Heading, PageBreak, Paragraph, ReportDocument, Table
from gtreview.results.loader import RunResults, SampleStatus
from gtreview.runs.statuses import RunSource

DETAIL_KEYS = (
    "model_path",
    "model_sha256",
    "model_size",
    "architecture",
    "quantisation",
    "lora_path",
    "lora_sha256",
    "lora_scale",
    "chat_template_sha256",
    "llama_cpp",
    "llama_cpp_python",
    "n_ctx",
    "n_gpu_layers",
    "n_threads",
    "base_url",
    "model",
    "server",
)
NOT_OPENED = (
    "Not opened by this pass (every result it needed was already stored): the file and sha256 "
    "are those the pass recorded when it was planned."
)
NOT_OPENED_YET = (
    "Not opened yet: the pass stopped before it {what}. The file and sha256 are those the pass "
    "recorded when it was planned."
)


def _cut(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters, redacted first (a key cut in half no longer
    matches the key)."""
    text = redact(text)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def judge_repeats_text(repeats: int, mode: str) -> str:
    if repeats == 1:
        return "1 verdict per answer (judge noise not measured)"
    how = "scored components shown in another order" if mode == "shuffled" else "judge seed + j"
    return f"{repeats} verdicts per answer ({how}); the first is the score of record"


def drift_text(drift_every: int) -> str:
    return "off (no drift check ran)" if drift_every <= 0 else f"{drift_every} answers"


def _spec_files(spec: str) -> dict[str, Any]:
    """The files a local spec names, read from the spec itself (nothing is opened)."""
    try:
        parsed = parse_model_spec(spec)
    except ModelSpecError:
        return {}
    files: dict[str, Any] = {}
    if parsed.path is not None:
        files["model_path"] = str(parsed.path)
    if parsed.lora is not None:
        files["lora_path"] = parsed.lora
    return files


def pass_models(results: RunResults) -> list[tuple[str, str, dict[str, Any]]]:
    """(role, spec, recorded identity) of every model the pass named: base, fine-tunes, judge."""
    config = results.config
    models = [
        (f"{entry.label} ({'base' if i == 0 else 'fine-tune'})", entry.spec, results.identities.get(entry.label, {}))
        for i, entry in enumerate(config.models)
    ]
    return [*models, ("judge", config.judge, results.judge_identity)]


def model_details(results: RunResults, spec: str, identity: dict[str, Any]) -> tuple[list[list[str]], bool]:
    """The rows shown for one model, and whether its backend was opened (described itself)."""
    described = results.models_described.get(redact(spec))
    merged = {**_spec_files(spec), **identity, **(described or {})}
    rows = [[k, _cut(str(merged[k]), 160)] for k in DETAIL_KEYS if merged.get(k) is not None]
    return rows, described is not None


def not_opened_text(results: RunResults, label: str | None) -> str:
    """Why a model was not opened: its results were all stored, or the pass stopped before
    it got to them (a planned answer never generated, an answer never judged)."""
    if label is not None:
        missing = sum(s.model == label and s.status is SampleStatus.MISSING for s in results.samples)
        return NOT_OPENED_YET.format(what=f"generated its answers ({missing} missing)") if missing else NOT_OPENED
    unjudged = sum(s.status is SampleStatus.UNJUDGED for s in results.samples)
    return NOT_OPENED_YET.format(what=f"judged the answers ({unjudged} unjudged)") if unjudged else NOT_OPENED


def add_configuration_section(doc: ReportDocument, results: RunResults) -> None:
    doc.add(PageBreak(), Heading(text="Configuration"))
    config = results.config
    if results.source is RunSource.HARNESS:
        # An import knows only what its files say: no sampling, seeds or templates of gtreview's.
        doc.add(
            Paragraph(
                text="Imported from Groundtruth harness files; every total and pairwise verdict was recomputed "
                "by gtreview's rules. The harness's sampling settings are not in its files and are not shown."
            ),
            Table(
                header=["Setting", "Value"],
                rows=[["Judge (as the files name it)", config.judge], ["Models", ", ".join(results.models)]],
                widths=[1.2, 4],
            ),
        )
        return
    rows = [
        ["Sampling (answers)", json.dumps(config.sampling.model_dump())],
        [
            "Seeds",
            f"seed {config.sampling.seed} + (sample − 1) for samples 1..{config.repeats}; retries add 1000 per attempt",
        ],
        ["Judge", config.judge],
        ["Judge sampling", json.dumps(config.judge_sampling.model_dump())],
        ["Judge repeats", judge_repeats_text(config.judge_repeats, config.judge_repeat_mode)],
        ["Prompt templates (sha256)", ", ".join(f"{k}: {v[:16]}…" for k, v in results.templates.items())],
        ["Drift check every", drift_text(config.drift_every)],
    ]
    doc.add(Table(header=["Setting", "Value"], rows=rows, widths=[1.2, 4]))
    labels = [entry.label for entry in config.models] + [None]
    for (role, spec, identity), label in zip(pass_models(results), labels, strict=True):
        detail, opened = model_details(results, spec, identity)
        # The heading names the file; the whole spec is a row, which wraps (a heading cut
        # at a width broke it mid-word).
        doc.add(Heading(text=f"{role}: {short_spec(redact(spec))}", level=2))
        if not opened:
            doc.add(Paragraph(text=not_opened_text(results, label)))
        doc.add(Table(header=["Field", "Value"], rows=[["spec", redact(spec)], *detail], widths=[1.2, 4]))


__all__ = ["add_configuration_section", "drift_text", "judge_repeats_text", "model_details", "pass_models"]
