"""A whole benchmark pass on real models: gtreview's own engine against llama-server.

The figure the judging and decode-loop work moves: one pass as an analyst runs it (the
sample set's first ``--questions`` questions, a base and a second model, ``--repeats``
answers each, the judge's fixture checks with ``--drift-every N``, pointwise verdicts on every answer, pairwise
verdicts in both orders), run twice in one benchmark through ``run_benchmark_pass``,
each into a fresh project:

  engine   every model and the judge as ``llama:`` specs: gtreview's worker processes
           with the batched engine (``--slots`` sequences, ``--threads`` threads);
  server   the same models as ``openai:`` specs on llama-servers started here, one per
           model file (``-np --slots --cont-batching -t --threads``): chat completions
           for the answers, ``response_format`` ``json_schema`` for the verdicts.

The second model stands in for a fine-tune (Gemma 3 270M by default): a pass keys a
local model's outputs by its file's hash, so a copy of the base would only be reused.

Both passes share the prompts, the plan, the cleaning, the retries, the stored records
and the scoring arithmetic; only the inference differs. ``--rounds 2`` runs them again
in the other order and sums, so a busy neighbour slows both alike. Each phase is timed
from the pass's own progress events (first to last report of the phase; a local model's
load counts in its phase, as an analyst waits for it): answers per minute, verdicts per
minute, tokens per second, and the engine/server ratio of each.

    .venv/bin/python benchmarks/bench_pass.py --llama-server llama.cpp/build/bin/llama-server
        [--model smollm2] [--second gemma3] [--judge smollm2] (names or GGUF paths) [--questions 3] [--repeats 2]
        [--tokens 128] [--slots 8] [--threads 2] [--ctx 32768] [--rounds 1] [--no-pairwise]
        [--gpu-layers 0] [--drift-every 0]
"""

from __future__ import annotations

import argparse
import contextlib
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx

from gtreview.app.passes import run_benchmark_pass
from gtreview.app.sample_project import sample_rubric_path
from gtreview.core.activity import JobProgress
from gtreview.core.rubric import Rubric
from gtreview.inference.backend import CompletionBackend, Sampling
from gtreview.inference.factory import open_backend
from gtreview.interop.rubric_files import read_rubric_file
from gtreview.runs.plan import ModelEntry, PassConfig
from gtreview.store.project import create_project
from tests.real_models import model_path

SECOND_MODEL = "second"  # the fine-tune's stand-in: another model, since outputs are keyed by the file's hash


@dataclass
class Phase:
    """One phase of one pass, summed over its segments (``generate`` runs once per model)."""

    seconds: float = 0.0
    units: int = 0
    unit: str = ""
    tokens: int = 0


@dataclass
class PassTiming:
    phases: dict[str, Phase] = field(default_factory=dict)
    wall: float = 0.0
    _segment: JobProgress | None = None
    _segment_started: float = 0.0

    def hear(self, event: JobProgress) -> None:
        """A new segment starts when the phase changes or its count starts again."""
        last = self._segment
        if last is None or event.phase != last.phase or event.done < last.done:
            self._close()
            self._segment_started = time.monotonic() - event.elapsed
        self._segment = event

    def _close(self) -> None:
        last = self._segment
        if last is None:
            return
        phase = self.phases.setdefault(last.phase, Phase(unit=last.unit))
        phase.seconds += last.elapsed
        phase.units += last.done
        phase.tokens += last.tokens
        self._segment = None

    def finish(self, wall: float) -> None:
        self._close()
        self.wall += wall

    def add(self, other: PassTiming) -> None:
        self.wall += other.wall
        for name, theirs in other.phases.items():
            mine = self.phases.setdefault(name, Phase(unit=theirs.unit))
            mine.seconds += theirs.seconds
            mine.units += theirs.units
            mine.tokens += theirs.tokens


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def llama_server(binary: Path, model: Path, args: argparse.Namespace, log: Path) -> Iterator[str]:
    """A llama-server on a free loopback port for the block; yields its base URL."""
    port = free_port()
    command = [
        str(binary),
        *("-m", str(model), "--host", "127.0.0.1", "--port", str(port)),
        *("-np", str(args.slots), "--cont-batching", "-c", str(args.ctx)),
        *("-t", str(args.threads), "-tb", str(args.threads), "-ngl", str(args.gpu_layers)),
        *("--alias", model.stem, "--no-webui"),
    ]
    with log.open("w") as out:
        server = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300
        while True:
            if server.poll() is not None:
                raise SystemExit(f"llama-server ended at start (exit {server.returncode}); see {log}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise SystemExit(f"llama-server did not answer /health in 300 s; see {log}")
            time.sleep(0.5)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()


def resolve(name: str) -> Path:
    return Path(name) if name.endswith(".gguf") else model_path(name)


def config_for(side: str, specs: dict[str, str], args: argparse.Namespace) -> PassConfig:
    return PassConfig(
        name=f"bench-{side}",
        models=[ModelEntry(label="base", spec=specs["model"]), ModelEntry(label=SECOND_MODEL, spec=specs["second"])],
        judge=specs["judge"],
        repeats=args.repeats,
        sampling=Sampling(temperature=0.7, top_p=0.95, seed=1234, max_tokens=args.tokens),
        pairwise=args.pairwise,
        drift_every=args.drift_every,
    )


def run_one(side: str, specs: dict[str, str], rubric: Rubric, args: argparse.Namespace, folder: Path) -> PassTiming:
    project = create_project(folder)
    timing = PassTiming()

    def opener(spec: str) -> CompletionBackend:  # the server's client keeps every slot busy
        return open_backend(spec, concurrency=args.slots) if spec.startswith("openai:") else open_backend(spec)

    started = time.monotonic()
    result = run_benchmark_pass(
        project.engine,
        config_for(side, specs, args),
        rubric=rubric,
        open_backend=opener,
        progress=timing.hear,
        check_backend=lambda spec: None,
    )
    timing.finish(time.monotonic() - started)
    print(
        f"  {side}: {timing.wall:.0f} s; {result.generated} answers, {result.generation_errors} errors, "
        f"{result.judged} verdicts, {result.unscored} unscored, {result.pairs} pairs",
        flush=True,
    )
    project.engine.dispose()
    return timing


def report(sides: dict[str, PassTiming]) -> None:
    engine, server = sides["engine"], sides["server"]
    print(f"\n{'phase':<10} {'side':<7} {'seconds':>8} {'units':>11} {'per min':>8} {'tok/s':>7}")
    for name in dict.fromkeys([*engine.phases, *server.phases]):
        rates = {}
        for side, timing in sides.items():
            phase = timing.phases.get(name)
            if phase is None or phase.seconds <= 0:
                continue
            rates[side] = phase.units / phase.seconds * 60
            print(
                f"{name:<10} {side:<7} {phase.seconds:8.1f} {phase.units:5d} {phase.unit:<5} "
                f"{rates[side]:8.2f} {phase.tokens / phase.seconds:7.1f}"
            )
        if len(rates) == 2 and rates["server"] > 0:
            print(f"{name:<10} engine/server {rates['engine'] / rates['server']:.2f}x (units per minute)")
    print(
        f"whole pass: engine {engine.wall:.0f} s, server {server.wall:.0f} s: engine/server speed "
        f"{server.wall / engine.wall:.2f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--llama-server", type=Path, required=True, help="llama.cpp's llama-server binary")
    parser.add_argument("--model", default="smollm2", help="the base: smollm2, gemma3 or a GGUF path")
    parser.add_argument("--second", default="gemma3", help="the model compared with the base")
    parser.add_argument("--judge", default=None, help="the judge model (default: --model)")
    parser.add_argument("--questions", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--tokens", type=int, default=128, help="max_tokens of every answer")
    parser.add_argument("--slots", type=int, default=8, help="parallel sequences on both sides")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--ctx", type=int, default=32768, help="cache cells on both sides (shared by the slots)")
    parser.add_argument("--gpu-layers", type=int, default=0, help="-1 offloads every layer (GPU builds)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--no-pairwise", dest="pairwise", action="store_false")
    parser.add_argument(
        "--drift-every", type=int, default=0, help="the judge's fixture checks (0: none; a 135M judge fails them)"
    )
    args = parser.parse_args()
    model, second = resolve(args.model), resolve(args.second)
    judge = resolve(args.judge) if args.judge else model
    if second == model:
        raise SystemExit("--second must be another model file: outputs are keyed by the file's hash")
    rubric_file = Rubric.model_validate(read_rubric_file(sample_rubric_path()).data)
    rubric = rubric_file.model_copy(update={"questions": rubric_file.questions[: args.questions]})
    options = f"seq={args.slots}&threads={args.threads}&ctx={args.ctx}&n_gpu_layers={args.gpu_layers}"
    roles = {"model": model, "second": second, "judge": judge}
    local = {role: f"llama:{path}?{options}" for role, path in roles.items()}
    print(
        f"pass: {len(rubric.questions)} questions x 2 models x {args.repeats} repeats, answers up to "
        f"{args.tokens} tokens, models {model.name} and {second.name}, judge {judge.name}, {args.slots} slots, {args.threads} threads, "
        f"pairwise {'on' if args.pairwise else 'off'}",
        flush=True,
    )
    totals = {"engine": PassTiming(), "server": PassTiming()}
    with tempfile.TemporaryDirectory(prefix="gtreview-bench-pass-") as tmp, contextlib.ExitStack() as servers:
        root = Path(tmp)
        urls = {
            path: servers.enter_context(llama_server(args.llama_server, path, args, root / f"server-{n}.log"))
            for n, path in enumerate(dict.fromkeys(roles.values()))
        }
        # A long timeout: llama-server prefills each slot's verdict prompt whole and, meanwhile, its other
        # slots wait; a verdict can take minutes on a CPU, and a request that timed out is asked again.
        remote = {role: f"openai:{urls[path]}/v1#{path.stem}?timeout=3600" for role, path in roles.items()}
        sides = {"engine": local, "server": remote}
        for turn in range(args.rounds):
            order = ["engine", "server"] if turn % 2 == 0 else ["server", "engine"]
            print(f"round {turn + 1}:", flush=True)
            for side in order:
                totals[side].add(run_one(side, sides[side], rubric, args, root / f"{side}-{turn}"))
    report(totals)


if __name__ == "__main__":
    from gtreview.inference.amx_guard import guard_this_process

    guard_this_process()
    main()
