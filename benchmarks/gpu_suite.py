"""The model benchmarks on a GPU build, every layer offloaded, at several parallelism levels.

One command for an analyst with a CUDA (or other GPU) build of llama-cpp-python:

    .venv/bin/python benchmarks/gpu_suite.py [--levels 1,4,8,16,32] [--models smollm2,gemma3]
        [--benches generation,judging,probes,membership,pass,decode] [--threads N] [--log FILE]
        [--llama-bin llama.cpp/build/bin]   (llama.cpp's own tools, built with CUDA: pass and decode)

1. checks that llama-cpp-python offloads to a GPU (``llama_supports_gpu_offload`` and a
   GPU in ggml's device list) and stops with the command that fixes it otherwise;
2. fetches the two real models (``python -m tests.real_models``, cached after once);
3. runs, for each model and each level (parallel sequences), with ``--gpu-layers -1``:
   ``bench_generation.py`` (``--slots``: a pass's answers, twice as many requests as
   slots), ``bench_judging.py`` (``--questions x --answers`` = slots: verdicts, with
   jump-forward off and on), ``bench_probes.py`` and ``bench_membership.py`` (``--seq``:
   passage scoring), and with ``--llama-bin`` (a folder holding ``llama-server`` and
   ``llama-batched-bench`` built with the same GPU backend: ``cmake -B build -DGGML_CUDA=ON
   && cmake --build build --target llama-server llama-batched-bench``) ``bench_pass.py``
   (a whole pass, engine against llama-server, ``--slots``) and ``bench_decode.py``
   (the engine's decode steps against batched-bench's), streaming each bench's own output
   (its ratios included) as it comes;
4. prints a summary: per bench and model, tokens/s at each level, the bench's headline
   ratio, and the level that gave the most tokens/s.

``--cpu-smoke`` runs the same sequence on a CPU build with tiny settings (no GPU check,
``--gpu-layers 0``, levels 1 and 2, SmolLM2 only, a few tokens): slow and meaningless as
figures, but it proves the suite and every bench call work end to end. The output is
also written to ``--log`` (default ``gpu_suite-<time>.log`` in the current folder).
Exit status: 0 when every bench ran, 1 when one failed, 2 when the build has no GPU.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CUDA_BUILD = (
    'CMAKE_ARGS="-DGGML_CUDA=on -DGGML_NATIVE=OFF" .venv/bin/pip install --force-reinstall --no-cache-dir --no-deps '
    "llama-cpp-python==0.3.36"
)
BENCHES = ("generation", "judging", "probes", "membership", "pass", "decode")
NEEDS_LLAMA_BIN = ("pass", "decode")  # they compare with llama.cpp's own tools
OTHER_MODEL = {"smollm2": "gemma3", "gemma3": "smollm2"}  # a pass's second model


@dataclass
class Settings:
    gpu_layers: int
    threads: int
    tokens: int  # generation: max_tokens of an answer
    judge_tokens: int  # judging: max_tokens of a verdict
    passages: int  # probes and membership
    rounds: int
    llama_bin: Path | None = None  # llama-server and llama-batched-bench (pass, decode)


@dataclass
class Outcome:
    """What one bench run printed that the summary reports."""

    rate: float | None = None  # tokens/s of the engine side
    ratio: str = ""  # the bench's headline ratio, as printed
    failed: str = ""


@dataclass
class Row:
    bench: str
    model: str
    by_level: dict[int, Outcome] = field(default_factory=dict)


# -- the command line of each bench at a level ----------------------------------------


def generation_args(model: str, level: int, s: Settings) -> list[str]:
    repeats = min(4, level)
    questions = max(2, 2 * level // repeats)  # twice as many requests as slots
    ctx = max(8192, level * (256 + s.tokens))
    return [
        "benchmarks/bench_generation.py",
        f"--model={model}",
        f"--slots={level}",
        f"--repeats={repeats}",
        f"--questions={questions}",
        f"--tokens={s.tokens}",
        f"--ctx={ctx}",
        f"--threads={s.threads}",
        f"--gpu-layers={s.gpu_layers}",
        "--plain-questions=1",
        f"--rounds={s.rounds}",
    ]


def judging_args(model: str, level: int, s: Settings) -> list[str]:
    questions = 1 if level == 1 else 2
    answers = max(1, level // questions)
    return [
        "benchmarks/bench_judging.py",
        f"--models={model}",
        f"--questions={questions}",
        f"--answers={answers}",
        f"--ctx={max(16384, questions * answers * (2048 + s.judge_tokens))}",
        f"--max-tokens={s.judge_tokens}",
        f"--threads={s.threads}",
        f"--gpu-layers={s.gpu_layers}",
        f"--rounds={s.rounds}",
        "--jump-forward=off,on",
    ]


def probes_args(model: str, level: int, s: Settings) -> list[str]:
    return [
        "benchmarks/bench_probes.py",
        f"--model={model}",
        f"--passages={s.passages}",
        f"--seq={level}",
        f"--threads={s.threads}",
        f"--gpu-layers={s.gpu_layers}",
    ]


def membership_args(model: str, level: int, s: Settings) -> list[str]:
    return [
        "benchmarks/bench_membership.py",
        f"--model={model}",
        f"--passages={s.passages}",
        f"--seq={level}",
        f"--threads={s.threads}",
        f"--gpu-layers={s.gpu_layers}",
        f"--rounds={s.rounds}",
    ]


def pass_args(model: str, level: int, s: Settings) -> list[str]:
    assert s.llama_bin is not None
    return [
        "benchmarks/bench_pass.py",
        f"--llama-server={s.llama_bin / 'llama-server'}",
        f"--model={model}",
        f"--second={OTHER_MODEL.get(model, 'gemma3')}",
        f"--judge={model}",
        f"--questions={max(2, level // 2)}",
        "--repeats=2",
        f"--tokens={s.tokens}",
        f"--slots={level}",
        f"--ctx={max(16384, level * (2048 + s.judge_tokens))}",
        f"--threads={s.threads}",
        f"--gpu-layers={s.gpu_layers}",
        f"--rounds={s.rounds}",
    ]


def decode_args(model: str, level: int, s: Settings) -> list[str]:
    assert s.llama_bin is not None
    return [
        "benchmarks/bench_decode.py",
        f"--batched-bench={s.llama_bin / 'llama-batched-bench'}",
        "--samplers=llama,numpy",
        f"--model={model}",
        f"--levels={level}",
        f"--tokens={s.tokens}",
        f"--threads={s.threads}",
        f"--gpu-layers={s.gpu_layers}",
        f"--rounds={s.rounds}",
    ]


def _number(pattern: str, text: str) -> float | None:
    """The first group of the last match (a bench with two sides prints the one that counts last)."""
    found = re.findall(pattern, text, re.MULTILINE)
    return float(found[-1]) if found else None


def _line(pattern: str, text: str) -> str:
    found = [m.group(0) for m in re.finditer(pattern, text, re.MULTILINE)]
    return " ".join(found[-1].split()) if found else ""


# Each bench's engine-side tokens/s and its headline ratio, read from what it prints.
PARSERS: dict[str, Callable[[str], Outcome]] = {
    "generation": lambda out: Outcome(
        _number(r"^\(1\) engine\s+[\d.]+ s\s+\d+ tokens\s+([\d.]+) tok/s", out),
        _line(r"^engine/plain [\d.]+x", out) or _line(r"^engine/bare\s+[\d.]+x", out),
    ),
    "judging": lambda out: Outcome(  # jump-forward on (printed last); its ratio against off
        _number(r"verdict decode\s+\d+ tokens\s+[\d.]+ s\s+([\d.]+) tok/s", out),
        _line(r"decode steps [\d.]+x, verdicts per minute [\d.]+x", out) or _line(r"verdict/free-text [\d.]+x", out),
    ),
    "probes": lambda out: Outcome(
        _number(r"^batched\s+[\d.]+ passages/s\s+\(\s*(\d+) tokens/s\)", out),
        _line(r"ratio batched/one-at-a-time: [\d.]+x", out),
    ),
    "membership": lambda out: Outcome(
        _number(r"membership scoring \(log p, mean, var\)\s+(\d+) tokens/s", out),
        _line(r"membership / plain eval: [\d.]+x", out),
    ),
    "pass": lambda out: Outcome(  # the judging phase's engine tokens/s; the whole pass's speed against the server
        _number(r"^judge\s+engine\s+[\d.]+\s+\d+ \S+\s+[\d.]+\s+([\d.]+)$", out),
        _line(r"engine/server speed [\d.]+x", out),
    ),
    "decode": lambda out: Outcome(  # the engine's decode steps (numpy top-p) against batched-bench's S_TG
        _number(r"^\s*\d+\s+numpy\s+[\d.]+\s+([\d.]+)\s", out),
        _line(r"^\s*\d+\s+numpy\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+x", out)
        + " "
        + _line(r"numpy / llama: engine step [\d.]+x", out),
    ),
}
ARGS: dict[str, Callable[[str, int, Settings], list[str]]] = {
    "generation": generation_args,
    "judging": judging_args,
    "probes": probes_args,
    "membership": membership_args,
    "pass": pass_args,
    "decode": decode_args,
}


class Tee:
    """Print and log every line."""

    def __init__(self, log: TextIO) -> None:
        self.log = log

    def __call__(self, text: str = "") -> None:
        print(text, flush=True)
        self.log.write(text + "\n")
        self.log.flush()


def run(command: list[str], say: Tee, indent: str = "    ") -> tuple[int, str]:
    """Run ``command`` from the repository root, streaming its output indented; (rc, output)."""
    lines: list[str] = []
    with subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line.rstrip("\n"))
            say(indent + lines[-1])
        return process.wait(), "\n".join(lines)


def check_gpu(say: Tee, required: bool = True) -> bool:
    """Show the build and ggml's devices; False (with the fix) when layers cannot go to a GPU."""
    import llama_cpp

    from gtreview.inference.llama import gpu_devices, list_devices

    offload = bool(llama_cpp.llama_supports_gpu_offload())
    gpus = gpu_devices() if offload else []
    say(f"llama-cpp-python {llama_cpp.__version__}, GPU offload: {offload}")
    for device in list_devices():
        say(f"  device {device.index}: {device.summary()} [{device.type}]")
    if offload and gpus:
        return True
    if not required:
        say("no GPU here: the CPU smoke runs every layer on the CPU")
        return False
    why = "this llama-cpp-python build cannot offload" if not offload else "ggml sees no GPU device"
    say(f"error: {why}; every layer would run on the CPU.")
    say(f"Rebuild it with CUDA into this venv (README, Quick start), then run this again:\n  {CUDA_BUILD}")
    say("(--cpu-smoke runs the suite on the CPU with tiny settings, as a check of the suite itself)")
    return False


def summary(rows: list[Row], levels: list[int], say: Tee) -> None:
    say("")
    say("Summary: engine-side tokens/s at each parallelism level (sequences); best level marked *")
    width = max(len(f"{r.bench} {r.model}") for r in rows) + 2
    say(f"{'bench, model':<{width}}" + "".join(f"{level:>10}" for level in levels) + "   best   ratio at best")
    for row in rows:
        rates = {lv: o.rate for lv, o in row.by_level.items() if o.rate is not None}
        best = max(rates, key=lambda lv: rates[lv]) if rates else None
        cells = []
        for level in levels:
            outcome = row.by_level.get(level)
            if outcome is None:
                cells.append(f"{'-':>10}")
            elif outcome.rate is None:
                cells.append(f"{'failed':>10}")
            else:
                cells.append(f"{outcome.rate:>9.1f}{'*' if level == best else ' '}")
        at_best = row.by_level[best].ratio if best is not None else ""
        say(f"{f'{row.bench} {row.model}':<{width}}" + "".join(cells) + f"   {best if best else '-':>4}   {at_best}")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--levels", help="comma-separated parallel sequences (default 1,4,8,16,32)")
    parser.add_argument("--models", help="comma-separated: smollm2, gemma3 (default both)")
    parser.add_argument("--benches", help="comma-separated: " + ", ".join(BENCHES) + " (default: all it can run)")
    parser.add_argument(
        "--llama-bin", type=Path, help="llama.cpp's tools (llama-server, llama-batched-bench) for pass and decode"
    )
    parser.add_argument("--threads", type=int, default=min(8, os.cpu_count() or 1))
    parser.add_argument("--rounds", type=int, help="rounds of each bench (default 2; 1 with --cpu-smoke)")
    parser.add_argument("--log", type=Path, help="also write everything here")
    parser.add_argument(
        "--cpu-smoke",
        action="store_true",
        help="no GPU check, every layer on the CPU, tiny settings: proves the suite runs, measures nothing",
    )
    args = parser.parse_args()
    smoke = args.cpu_smoke
    levels = [int(v) for v in (args.levels or ("1,2" if smoke else "1,4,8,16,32")).split(",") if v.strip()]
    models = [m for m in (args.models or ("smollm2" if smoke else "smollm2,gemma3")).split(",") if m.strip()]
    default = [b for b in BENCHES if args.llama_bin is not None or b not in NEEDS_LLAMA_BIN]
    benches = [b for b in args.benches.split(",") if b.strip()] if args.benches else default
    unknown = sorted(set(benches) - set(BENCHES))
    if unknown or not levels or min(levels) < 1:
        parser.error(f"unknown benches {unknown}" if unknown else "levels must be positive integers")
    if args.llama_bin is None and set(benches) & set(NEEDS_LLAMA_BIN):
        parser.error("pass and decode need --llama-bin: a folder with llama-server and llama-batched-bench")
    if args.llama_bin is not None:
        missing = [t for t in ("llama-server", "llama-batched-bench") if not (args.llama_bin / t).is_file()]
        if missing:
            parser.error(f"--llama-bin {args.llama_bin} has no {' or '.join(missing)}")
    rounds = args.rounds or (1 if smoke else 2)
    settings = (
        Settings(gpu_layers=0, threads=args.threads, tokens=8, judge_tokens=48, passages=4, rounds=rounds)
        if smoke
        else Settings(gpu_layers=-1, threads=args.threads, tokens=256, judge_tokens=512, passages=64, rounds=rounds)
    )
    settings.llama_bin = args.llama_bin
    if args.llama_bin is None:
        print("(no --llama-bin: the pass and decode benches, which need llama.cpp's own tools, are left out)")
    log_path = args.log or Path(f"gpu_suite-{time.strftime('%Y%m%d-%H%M%S')}.log")
    with log_path.open("w", encoding="utf-8") as log:
        say = Tee(log)
        mode = " (CPU smoke: the figures mean nothing)" if smoke else ""
        say(
            f"gpu_suite{mode}: levels {levels}, models {models}, benches {benches}, "
            f"{settings.threads} threads, {rounds} round(s), log {log_path}"
        )
        if not check_gpu(say, required=not smoke) and not smoke:
            return 2
        rc, _ = run([sys.executable, "-m", "tests.real_models", *models], say)
        if rc != 0:
            say("error: the real models could not be fetched (see above)")
            return 1
        rows: list[Row] = []
        failures = 0
        started = time.perf_counter()
        for bench in benches:
            for model in models:
                row = Row(bench, model)
                rows.append(row)
                for level in levels:
                    command = [sys.executable, *ARGS[bench](model, level, settings)]
                    say(f"== {bench}, {model}, {level} sequence(s): {' '.join(command[1:])}")
                    began = time.perf_counter()
                    rc, out = run(command, say)
                    outcome = PARSERS[bench](out)
                    if rc != 0 or outcome.rate is None:
                        failures += 1
                        outcome = Outcome(None, "", f"exit code {rc}")
                        say(f"   failed (exit code {rc})")
                    row.by_level[level] = outcome
                    say(f"   ({time.perf_counter() - began:.0f} s)")
        summary(rows, levels, say)
        say(f"{failures} of {len(rows) * len(levels)} runs failed; {time.perf_counter() - started:.0f} s in all")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
