"""The CLI's pass progress: every phase (the judge check before generation included) is
shown by name with what it counts, and each phase ends its own line."""

from __future__ import annotations

import io

from gtreview.cli.run import _progress_printer
from gtreview.runs.pass_context import PassEvent


def test_each_phase_is_named_with_its_message_and_ends_its_line() -> None:
    stream = io.StringIO()
    show = _progress_printer(stream)
    show(
        PassEvent(
            phase="calibrate",
            done=1,
            total=2,
            tokens=40,
            elapsed=2.0,
            message="judge check before generation: 1 of 2 fixtures",
        )
    )
    show(
        PassEvent(
            phase="calibrate",
            done=2,
            total=2,
            tokens=80,
            elapsed=4.0,
            message="judge check before generation: 2 of 2 fixtures",
        )
    )
    show(PassEvent(phase="generate", done=1, total=4, elapsed=1.0))
    lines = stream.getvalue().split("\n")
    assert lines[0].split("\r")[-1].startswith("[calibrate] [")
    assert "judge check before generation: 2 of 2 fixtures · 20.0 tok/s" in lines[0]
    last = lines[1].split("\r")[-1]
    assert last.startswith("[generate ] [######------------------] 1/4")
    assert "ETA 0m03s" in last
