"""How long `gtreview rubric validate` takes on a 1,000-question rubric.

Prints the time to read+parse+validate a 1,000-question file, the same for the
3-question interop-sized file scaled per question, and their ratio, measured side
by side in one run (medians of several repeats; these machines are noisy).

    .venv/bin/python benchmarks/validate_rubric.py [--questions 1000] [--repeats 7]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gtreview.core.rubric import Rubric
from gtreview.interop.rubric_files import read_rubric_file
from tests.rubric_factory import rubric


def timed(path: Path, repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = read_rubric_file(path)
        Rubric.model_validate(result.data)
        samples.append(time.perf_counter() - start)
        assert not result.findings, result.findings[:3]
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        big, small = Path(folder) / "big.json", Path(folder) / "small.json"
        big.write_text(json.dumps(rubric(args.questions), indent=2), encoding="utf-8")
        small.write_text(json.dumps(rubric(10), indent=2), encoding="utf-8")
        big_s, small_s = timed(big, args.repeats), timed(small, args.repeats)
        print(
            f"{args.questions} questions ({big.stat().st_size / 1e6:.1f} MB): {big_s * 1000:.0f} ms (median of {args.repeats})"
        )
        print(f"10 questions: {small_s * 1000:.1f} ms")
        print(f"per-question cost ratio big/small: {(big_s / args.questions) / (small_s / 10):.2f} (1.0 = linear)")
        print(f"budget: 2000 ms; used {big_s / 2.0:.0%}")
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "gtreview.cli", "rubric", "validate", str(big)], check=True, capture_output=True
        )
        print(f"whole command incl. interpreter start: {(time.perf_counter() - start) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
