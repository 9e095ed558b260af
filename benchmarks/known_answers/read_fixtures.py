"""Run gtreview on each known-answer fixture as an analyst would, and compare with the truth.

For every fixture ``make_fixtures.py`` made (in ``--work``), against the F32 base:

    gtreview probe --model base=llama:base-f32.gguf --model NAME=SPEC
        --members <the four member reports> --held-out <the three held-out ones>
        --passages N --json --project <a sample project made in --work>

and prints a table: the fixture, its truth (from ``fixtures.json``: what it was trained
on and its perplexity on each side), each membership signal's AUC with its interval,
and the reading gtreview gave. One signal per fixture (the loss of the first member
passage) is cross-checked against a direct computation with plain
``llama_cpp.Llama`` (``logits_all``), in a child process.

    .venv/bin/python benchmarks/known_answers/read_fixtures.py [--work DIR] [--passages 16]
        [--only NAMES] [--probe-json FILE]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.known_answers.make_fixtures import HELD_OUT, MEMBERS, reports

TRUTH = {
    "memoriser": "recites the members (fine-tuned on them)",
    "memoriser-lora": "recites the members (the memoriser as a LoRA)",
    "null": "nothing (the base under another name)",
    "held-out-tuned": "recites the held-out side, not the members",
    "learner": "has seen neither side (taught the principles in other words)",
}
SETTINGS = "ctx=1024&seq=4"


def direct_loss(model: str, lora: str | None, text: str) -> float:
    """Mean negative log-likelihood per scored token of ``text`` (with BOS), plain llama.cpp."""
    import llama_cpp

    llm = llama_cpp.Llama(model, lora_path=lora, n_ctx=1024, logits_all=True, verbose=False)
    tokens = llm.tokenize(text.encode("utf-8"), add_bos=True, special=False)
    llm.eval(tokens)
    logits = np.asarray(llm.scores[: len(tokens)], dtype=np.float64)
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    picked = log_probs[np.arange(len(tokens) - 1), tokens[1:]]
    return float(-picked.mean())


def gtreview(*args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "gtreview.cli", *args], capture_output=True, text=True, check=False, timeout=3600
    )
    if done.returncode != 0:
        raise SystemExit(f"gtreview {args[0]} failed: {done.stdout[-400:]} {done.stderr[-400:]}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=Path.home() / ".cache" / "gtreview" / "known_answers")
    parser.add_argument("--passages", type=int, default=16)
    parser.add_argument("--only", default="", help="comma-separated fixture names (default: every one made)")
    parser.add_argument(
        "--probe-json",
        type=Path,
        help="read one `gtreview probe --json` of the base and every fixture instead of probing each again",
    )
    args = parser.parse_args()
    work: Path = args.work
    record = json.loads((work / "fixtures.json").read_text(encoding="utf-8"))
    project = work / "project"
    if not project.exists():
        from gtreview.app.sample_project import ensure_sample_project

        ensure_sample_project(project).close()
    base = work / "base-f32.gguf"
    fixtures = {
        "memoriser": (work / "memoriser.gguf", None),
        "memoriser-lora": (base, work / "memoriser-lora.gguf"),
        "null": (work / "null.gguf", None),
        "held-out-tuned": (work / "held-out-tuned.gguf", None),
        "learner": (work / "learner.gguf", None),
    }
    wanted = [n for n in (args.only.split(",") if args.only else fixtures) if fixtures[n][0].exists()]
    if "memoriser-lora" in wanted and not fixtures["memoriser-lora"][1].exists():  # type: ignore[union-attr]
        wanted.remove("memoriser-lora")
    members = [f"reports/{p.name}" for p in reports(MEMBERS)]
    held_out = [f"reports/{p.name}" for p in reports(HELD_OUT)]
    results: dict[str, Any] = {}
    if args.probe_json is not None:  # one probe of every fixture already run (the pass's, with --run)
        combined = json.loads(args.probe_json.read_text(encoding="utf-8"))
        labels = {m["label"] for m in combined["membership"]["models"]}
        results = {name: combined for name in wanted if name in labels}
        wanted = []
    for name in wanted:
        model, lora = fixtures[name]
        spec = f"llama:{model}?{SETTINGS}" + (f"&lora={lora}" if lora else "")
        print(f"{name}: gtreview probe ...", flush=True)
        out = gtreview(
            "probe",
            "--model", f"base=llama:{base}?{SETTINGS}",
            "--model", f"{name}={spec}",
            "--members", *members,
            "--held-out", *held_out,
            "--passages", str(args.passages),
            "--project", str(project),
            "--json",
        )  # fmt: skip
        results[name] = out
        (work / f"probe-{name}.json").write_text(json.dumps(out, indent=1), encoding="utf-8")

    print(
        "\n| fixture | truth | perplexity members / held-out | signal | AUC [95% interval] | TPR at 1% / 10% FPR | reading |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, out in results.items():
        membership = out["membership"]
        model = next(m for m in membership["models"] if m["label"] == name)
        ppl = record.get("perplexity", {}).get(name, {})
        ppl_text = f"{ppl.get('members', float('nan')):.2f} / {ppl.get('held-out', float('nan')):.2f}" if ppl else "-"
        reading = next(line for line in membership["readings"] if line.startswith(f"{name} "))
        verdict = reading.split(";")[0].removeprefix(f"{name} ")
        for index, auc in enumerate(model["aucs"]):
            result = auc["result"]
            ci = result.get("ci")
            figure = f"{result['auc']:.2f}" + (f" [{ci['low']:.2f}, {ci['high']:.2f}]" if ci else " (no interval)")
            tpr = " / ".join(f"{t['tpr']:.0%}" for t in auc.get("tpr_at_fpr", [])) or "-"
            first = index == 0
            print(
                f"| {name if first else ''} | {TRUTH[name] if first else ''} | {ppl_text if first else ''} "
                f"| {auc['name']} | {figure} | {tpr} | {verdict if first else ''} |"
            )
        probes = next((r["text"] for r in out.get("readings", []) if r["label"] == name), "-")
        print(f"| | | | probes | | | {probes} |")

    print("\ncross-check: loss of the first member passage, gtreview's scorer against plain llama_cpp.Llama")
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as child:
        for name, out in results.items():
            model_path, lora = fixtures[name]
            membership = out["membership"]
            row = next(m for m in membership["models"] if m["label"] == name)["passages"][0]
            text = _passage_text(project, membership, row)
            if text is None:
                print(f"  {name}: the passage text could not be found again")
                continue
            direct = child.submit(direct_loss, str(model_path), str(lora) if lora else None, text).result()
            print(
                f"  {name}: gtreview {row['values']['loss']:.4f}  direct {direct:.4f}  difference {row['values']['loss'] - direct:+.5f}"
            )


def _passage_text(project: Path, membership: dict[str, Any], row: dict[str, Any]) -> str | None:
    """The text of a scored passage: drawn again as the probe drew it (same seed and N)."""
    from gtreview.runs.membership import split_passages
    from gtreview.store import db
    from gtreview.store.corpus_repo import load_documents
    from gtreview.store.project import open_project

    opened = open_project(project)
    try:
        with db.reading(opened.engine) as session:
            documents = load_documents(session)
    finally:
        opened.close()
    n = max(membership["n_members"], membership["n_held_out"])
    passages = split_passages(documents, membership["member_documents"], membership["held_out_documents"], n, seed=0)
    first = passages[0]
    return first.text if first.document == row["document"] else None


if __name__ == "__main__":
    main()
