"""``gtreview probe --members ... --held-out ...``: the membership split given, kept in the
project and used again; its AUCs in the JSON and the text output; a bad split in one
line before any model loads. The models are the tiny random llama and its LoRA, each
in its own worker process, as every local model runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gtreview.app.membership import stored_membership_split
from gtreview.app.sample_project import ensure_sample_project
from gtreview.cli.main import main
from gtreview.store.project import open_project

SETTINGS = "ctx=1024&seq=4&threads=2"


@pytest.fixture()
def sample(tmp_path: Path) -> Path:
    folder = tmp_path / "sample"
    ensure_sample_project(folder).close()
    return folder


def models(tiny_gguf: Path, tiny_lora: Path) -> list[str]:
    return [
        "--model",
        f"base=llama:{tiny_gguf}?{SETTINGS}",
        "--model",
        f"lora=llama:{tiny_gguf}?{SETTINGS}&lora={tiny_lora}",
    ]


def test_the_split_is_kept_and_its_aucs_reported(
    sample: Path, tiny_gguf: Path, tiny_lora: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["probe", *models(tiny_gguf, tiny_lora), "--passages", "3", "--project", str(sample)]
    assert main([*argv, "--members", "reports/18*", "--held-out", "reports/19*", "reports/*.md", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    membership = out["membership"]
    assert (membership["n_members"], membership["n_held_out"]) == (3, 3)
    assert [m["label"] for m in membership["models"]] == ["base", "lora"]
    lora_signals = [a["signal"] for a in membership["models"][1]["aucs"]]
    assert lora_signals == ["loss", "zlib", "min_k", "min_k_plus", "reference", "hard_token"]
    assert all(a["result"]["auc"] is not None for a in membership["models"][1]["aucs"])  # the LoRA shares tokens
    for auc in membership["models"][1]["aucs"]:  # TPR at 1% and 10% FPR, and the ROC's corners
        assert [t["max_fpr"] for t in auc["tpr_at_fpr"]] == [0.01, 0.1]
        assert auc["tpr_at_fpr"][0]["non_members_flagged"] == 0  # 3 held-out passages: at 1% none is flagged
        assert auc["roc"][0] == [0.0, 0.0] and auc["roc"][-1] == [1.0, 1.0]
    project = open_project(sample)
    try:
        split = stored_membership_split(project.engine)
    finally:
        project.close()
    assert split is not None and split.members == ["reports/18*"] and split.held_out == ["reports/19*", "reports/*.md"]

    assert main(argv) == 0  # no split given: the project's own is used
    text = capsys.readouterr().out
    assert "Membership: 3 passages of" in text and "Min-K%++ (k=20%)" in text
    assert "Reference ratio (fine-tune minus base loss)" in text and "base (base, the control)" in text
    assert "Hard-token gain (HT-MIA, k=20%)" in text and "held out flagged) at 1% FPR" in text


def test_a_bad_split_is_one_line_before_any_model_loads(
    sample: Path, tiny_gguf: Path, tiny_lora: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["probe", *models(tiny_gguf, tiny_lora), "--project", str(sample)]
    assert main([*argv, "--members", "reports/18*"]) == 2
    assert (
        capsys.readouterr()
        .err.strip()
        .endswith("a membership split needs both sides: --members GLOB... (trained on) and --held-out GLOB...")
    )
    assert main([*argv, "--members", "reports/18*", "--held-out", "report/19*"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("--held-out 'report/19*' matches no corpus document") and "\n" not in err
