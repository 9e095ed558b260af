"""The one wording of a running job: what runs, its phase's n of N, the ETA counted down
between reports, how long it has run; waiting and cancelling said as such."""

from gtreview.core.activity import Activity, JobKind, JobProgress, duration


def test_a_job_line_counts_its_phase_and_its_eta_down_between_reports() -> None:
    job = Activity(1, JobKind.PASS, 'Pass "p"', started=100.0)
    assert job.line(now=103.0) == 'Pass "p" · starting… · running 3s' and job.fraction is None
    judging = job.reporting(JobProgress(phase="judge", done=3, total=12, unit="verdicts", elapsed=60.0), now=200.0)
    assert judging.line(now=200.0) == 'Pass "p" · judge: verdicts 3 of 12 · ETA 3m00s · running 1m40s'
    assert judging.line(now=230.0) == 'Pass "p" · judge: verdicts 3 of 12 · ETA 2m30s · running 2m10s'
    assert judging.eta_seconds(now=1000.0) == 0.0 and judging.fraction == 0.25


def test_no_eta_before_the_first_unit_and_waiting_and_cancelling_are_said() -> None:
    job = Activity(2, JobKind.CALIBRATION, "Calibrating A1 with j", started=0.0)
    loading = job.reporting(JobProgress(phase="calibrate", total=8, unit="fixtures"), now=5.0)
    assert loading.line(now=65.0) == "Calibrating A1 with j · calibrate: fixtures 0 of 8 · running 1m05s"
    assert loading.fraction is None  # nothing done yet: a busy bar, not one stuck at 0
    opening = job.reporting(
        JobProgress(phase="calibrate", total=8, unit="fixtures", message="loading the judge j"), now=5.0
    )
    assert opening.line(now=65.0) == "Calibrating A1 with j · calibrate: loading the judge j · running 1m05s"
    one = opening.reporting(
        JobProgress(phase="calibrate", done=1, total=8, unit="fixtures", message="A1 F1: reproduced"), now=70.0
    )
    assert one.line(now=70.0).startswith("Calibrating A1 with j · calibrate: fixtures 1 of 8 · ETA")
    assert one.fraction == 1 / 8
    waiting = job.reporting(JobProgress(phase="waiting", waiting_for="run 3 (held by host:42)"), now=1.0)
    assert waiting.line(now=1.0) == "Calibrating A1 with j · waiting for run 3 (held by host:42) · running 1s"
    assert waiting.fraction is None
    fitting = job.reporting(JobProgress(phase="fit", message="checking that the judge prompts fit"), now=1.0)
    assert "fit: checking that the judge prompts fit" in fitting.line(now=2.0)
    from dataclasses import replace

    assert "cancelling…" in replace(loading, cancelling=True).line(now=70.0)
    assert duration(3725) == "1h02m"


def test_a_local_model_is_named_by_its_file() -> None:
    from gtreview.core.activity import short_spec

    assert short_spec("llama:/root/models/SmolLM2.Q4_1.gguf?ctx=4096&threads=1") == "SmolLM2.Q4_1.gguf"
    assert short_spec("openai:http://judge#j") == "openai:http://judge#j"


def test_a_job_of_several_phases_says_which_one_it_is_at() -> None:
    job = Activity(job_id=1, kind=JobKind.PASS, title='Pass "x"', started=0.0)
    judging = JobProgress(phase="judge", total=3, unit="verdicts", step=5, steps=6, later=["pairwise"])
    assert (
        job.reporting(judging, now=0.0).line(now=60.0)
        == 'Pass "x" · phase 5 of 6: judge: verdicts 0 of 3 · running 1m00s'
    )
    alone = JobProgress(phase="calibrate", total=3, unit="fixtures")
    assert job.reporting(alone, now=0.0).status(now=1.0) == "calibrate: fixtures 0 of 3 · running 1s"
