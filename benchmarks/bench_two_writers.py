"""Two writer processes editing one question set at once: are edits lost or reverted?

Each writer makes ``--edits`` edits of its own field on a three-question set (half as an
editor, on the version it read; half as a script, on whatever is current), then every
saved version is read back. Prints the edits made and saved, conflicts refused (stale
edits, redone on the newer version), lost and reverted edits (aim: 0) and any raw
error. The workload and the audit are ``tests/two_writers.py`` (the suite runs it with
a few edits).

    .venv/bin/python benchmarks/bench_two_writers.py [--edits 400] [--seed 0] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.two_writers import run_two_writers


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=400, help="edits per writer (default 400)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        audit = run_two_writers(Path(folder) / "project", args.edits, args.seed)
        seconds = time.perf_counter() - started
    figures = {**audit.as_dict(), "seconds": round(seconds, 1)}
    if args.json:
        print(json.dumps(figures))
    else:
        print(
            f"{figures['edits']} edits by 2 writers in {seconds:.1f} s: {figures['saved']} saved, "
            f"{figures['conflicts_refused']} conflicts refused (redone), {figures['lost']} lost, "
            f"{figures['reverted']} reverted, {figures['errors']} errors"
        )
        for error in figures["first_errors"]:
            print(f"  {error}")
    return 0 if audit.lost == audit.reverted == len(audit.errors) == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
