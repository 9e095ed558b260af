"""Record and run statuses are enums whose values are the strings stored and written.

The scripted pass of ``tests/report/test_exports.py`` has answers and generation
errors, scored and unscored judgements: every status the database holds after it is
an enum member, stored as the same text as before, and the outputs carry the same
strings.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from sqlalchemy import Engine, text

from gtreview.app.results import run_figures_of
from gtreview.core import statuses as core_statuses
from gtreview.judging import pointwise
from gtreview.report.exports import write_results_csv
from gtreview.results.loader import load_run_results
from gtreview.results.rows import question_figures
from gtreview.runs import record, statuses
from gtreview.runs.statuses import GenerationStatus, JudgementStatus, RecordKind, RunSource, RunStatus
from gtreview.store import runs_repo
from tests.report.test_exports import run  # noqa: F401  (the module's scripted pass, a fixture)


def distinct(engine: Engine, table: str, column: str) -> dict[str, str]:
    """Each distinct value of a column and its SQLite storage class."""
    with engine.connect() as connection:
        rows = connection.execute(text(f"SELECT DISTINCT {column}, typeof({column}) FROM {table}"))
        return {value: kind for value, kind in rows}


def test_every_stored_status_is_an_enum_member_stored_as_its_text(run: tuple[Engine, int, Path]) -> None:  # noqa: F811
    engine, _, _ = run
    assert distinct(engine, "generation", "status") == {"ok": "text", "error": "text"}
    assert distinct(engine, "judgement", "status") == {"scored": "text", "unscored": "text"}
    assert {GenerationStatus(v) for v in distinct(engine, "generation", "status")} == set(GenerationStatus)
    assert {JudgementStatus(v) for v in distinct(engine, "judgement", "status")} == set(JudgementStatus)
    assert distinct(engine, "run", "status") == {"finished": "text"}
    assert distinct(engine, "run", "source") == {"gtreview": "text"}
    assert {RecordKind(v) for v in distinct(engine, "run_record", "kind")} == set(RecordKind)
    for value in distinct(engine, "run", "status"):
        RunStatus(value)
    for value in distinct(engine, "run", "source"):
        RunSource(value)


def test_the_outputs_carry_the_same_strings(run: tuple[Engine, int, Path], tmp_path: Path) -> None:  # noqa: F811
    engine, run_id, _ = run
    figures = json.loads(run_figures_of(engine, run_id).model_dump_json())  # `gtreview results --json`
    assert (figures["source"], figures["status"], figures["shown_status"]) == ("gtreview", "finished", "finished")
    path = write_results_csv(question_figures(load_run_results(engine, run_id)), tmp_path / "results.csv")
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert sum(int(r["n_errors"]) for r in rows) == 3 and sum(int(r["n_unscored"]) for r in rows) == 4
    assert [str(s) for s in GenerationStatus] == ["ok", "error"]
    assert [str(s) for s in JudgementStatus] == ["scored", "unscored"]
    assert json.dumps({"status": JudgementStatus.UNSCORED}) == '{"status": "unscored"}'


def test_one_definition_under_each_layers_name() -> None:
    assert statuses.RunStatus is core_statuses.RunStatus is runs_repo.RunStatus is record.RunStatus
    assert statuses.RunSource is runs_repo.RunSource and statuses.RecordKind is runs_repo.RecordKind
    assert statuses.JudgementStatus is pointwise.JudgementStatus
