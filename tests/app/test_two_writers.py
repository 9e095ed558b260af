"""Two writer processes on one project: no edit lost, none reverted, no raw error."""

from pathlib import Path

from tests.two_writers import run_two_writers


def test_two_writer_processes_lose_and_revert_nothing(tmp_path: Path) -> None:
    result = run_two_writers(tmp_path / "p", edits=24)
    assert result.errors == []
    assert result.lost == 0 and result.reverted == 0
    assert result.saved == result.edits  # every edit was saved in the end (a refused one was redone)
