"""Files of a run's figures: the per-question CSV and a Groundtruth leaderboard submission.

The figures come from ``gtreview.results.rows`` (the one results loader); this module
only lays them out, so the CSV, the leaderboard files and the app agree.
"""

from __future__ import annotations

import csv
from pathlib import Path

from gtreview.core.jsonformat import dumps_harness_json
from gtreview.core.redaction import redact_json
from gtreview.files import atomic_path
from gtreview.results.rows import LeaderboardExport, QuestionFigures

CSV_COLUMNS = (
    "question_id",
    "model",
    "base",
    "samples",
    "n_scored",
    "n_errors",
    "n_unscored",
    "n_unjudged",
    "n_missing",
    "n_settled",
    "mean",
    "sd",
    "gate_pass_rate",
    "wins",
    "ties",
    "losses",
    "unknown",
)


def csv_row(row: QuestionFigures) -> list[str | int | float]:
    """Empty cells where a figure does not exist (no counted sample, K=1 sd, the base's pairs)."""
    values: dict[str, object] = {
        **row.model_dump(exclude={"pairs", "mean", "sd", "gate_pass_rate"}),
        "mean": None if row.mean is None else round(row.mean, 4),
        "sd": None if row.sd is None else round(row.sd, 4),
        "gate_pass_rate": None if row.gate_pass_rate is None else round(row.gate_pass_rate, 4),
        **(row.pairs.model_dump(include={"wins", "ties", "losses", "unknown"}) if row.pairs is not None else {}),
    }
    return ["" if values.get(c) is None else values[c] for c in CSV_COLUMNS]  # type: ignore[misc]


def write_results_csv(rows: list[QuestionFigures], path: Path) -> Path:
    with atomic_path(path) as temporary, temporary.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(CSV_COLUMNS)
        writer.writerows(csv_row(row) for row in rows)
    return path


def write_leaderboard(export: LeaderboardExport, out_dir: Path) -> list[Path]:
    """``scores.json`` and ``meta.json``, in the harness's JSON layout; nothing else is written.

    Redacted as they are written: a generation error quoted in a component's reason may
    come from a project stored before errors were redacted, and these files are published."""
    out_dir.mkdir(parents=True, exist_ok=True)
    scores, meta = out_dir / "scores.json", out_dir / "meta.json"
    # both written in full before either is renamed into place: a failure while writing
    # meta.json must not leave new scores beside the old meta (a pair that never existed)
    with atomic_path(scores) as scores_temporary:
        scores_temporary.write_text(
            dumps_harness_json(redact_json([e.to_json() for e in export.scores])), encoding="utf-8", newline=""
        )
        with atomic_path(meta) as meta_temporary:
            meta_temporary.write_text(dumps_harness_json(redact_json(export.meta)), encoding="utf-8", newline="")
    return [scores, meta]
