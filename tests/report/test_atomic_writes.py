"""A failed export (a full disk, a crash mid-way) keeps the previous good file and leaves
no half-written one beside it."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from gtreview.files import OutputFileError, write_text_atomic
from gtreview.report import exports, pdf
from gtreview.report.document import Paragraph, ReportDocument
from gtreview.results.rows import LeaderboardExport, QuestionFigures


def disk_full(*_: object) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_failed_pdf_keeps_the_previous_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "report.pdf"
    document = ReportDocument(title="t", blocks=[Paragraph(text="first")])
    pdf.render_pdf(document, out)
    good = out.read_bytes()
    assert good.startswith(b"%PDF")

    def half_then_fail(_document: ReportDocument, target: Path) -> None:
        target.write_bytes(b"%PDF-1.4 trunc")
        disk_full()

    monkeypatch.setattr(pdf, "_build", half_then_fail)
    with pytest.raises(OutputFileError, match=r"cannot write .*report\.pdf: No space"):
        pdf.render_pdf(document, out)
    assert out.read_bytes() == good
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.pdf"]


def test_a_failed_csv_keeps_the_previous_export(tmp_path: Path) -> None:
    out = tmp_path / "results.csv"
    row = QuestionFigures(
        question_id="A1", model="m", base="m", samples=1, n_scored=1, n_errors=0, n_unscored=0, n_unjudged=0, n_missing=0,
        n_settled=0, mean=5.0, sd=None, gate_pass_rate=1.0,
    )  # fmt: skip
    exports.write_results_csv([row], out)
    good = out.read_text(encoding="utf-8")

    class Exploding(list[QuestionFigures]):
        def __iter__(self):  # type: ignore[no-untyped-def]
            yield row
            disk_full()

    with pytest.raises(OutputFileError, match=r"results\.csv: No space"):
        exports.write_results_csv(Exploding(), out)
    assert out.read_text(encoding="utf-8") == good
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.csv"]


def test_a_failed_leaderboard_keeps_both_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    export = LeaderboardExport(scores=[], meta={"rubric_key": "k"})
    exports.write_leaderboard(export, tmp_path)
    before = {p.name: p.read_text(encoding="utf-8") for p in tmp_path.iterdir()}
    monkeypatch.setattr("gtreview.report.exports.dumps_harness_json", disk_full)
    with pytest.raises(OutputFileError, match=r"scores\.json: No space"):
        exports.write_leaderboard(export, tmp_path)
    assert {p.name: p.read_text(encoding="utf-8") for p in tmp_path.iterdir()} == before


def test_the_rename_replaces_the_file_whole(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "a.json"
    write_text_atomic(target, "one")
    write_text_atomic(target, "two\r\n")
    assert target.read_bytes() == b"two\r\n" and [p.name for p in target.parent.iterdir()] == ["a.json"]


def test_a_new_export_is_as_readable_as_any_file_the_user_writes(tmp_path: Path) -> None:
    import os
    import stat

    umask = os.umask(0o022)
    try:
        fresh = write_text_atomic(tmp_path / "fresh.csv", "a,b\n")
        assert stat.S_IMODE(fresh.stat().st_mode) == 0o644  # not mkstemp's private 0600
        kept = tmp_path / "kept.csv"
        kept.write_text("old")
        kept.chmod(0o640)
        write_text_atomic(kept, "new")
        assert (
            stat.S_IMODE(kept.stat().st_mode) == 0o640 and kept.read_text() == "new"
        )  # an existing file keeps its mode
    finally:
        os.umask(umask)


def test_a_leaderboard_failing_on_its_second_file_keeps_the_previous_pair(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    exports.write_leaderboard(LeaderboardExport(scores=[], meta={"rubric_key": "old"}), tmp_path)
    before = {p.name: p.read_text(encoding="utf-8") for p in tmp_path.iterdir()}
    scores_file = (tmp_path / "scores.json").stat().st_ino
    real_write_text = Path.write_text

    def full_on_meta(self: Path, data: str, *args: object, **kwargs: object) -> int:
        if ".meta.json." in self.name:  # the temporary of meta.json: half of it, then the disk is full
            real_write_text(self, data[: len(data) // 2], encoding="utf-8")
            disk_full()
        return real_write_text(self, data, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "write_text", full_on_meta)
    with pytest.raises(OutputFileError, match=r"meta\.json: No space"):
        exports.write_leaderboard(LeaderboardExport(scores=[], meta={"rubric_key": "new"}), tmp_path)
    assert {p.name: p.read_text(encoding="utf-8") for p in tmp_path.iterdir()} == before
    assert (tmp_path / "scores.json").stat().st_ino == scores_file  # not replaced by a new one either


def test_a_key_whose_write_fails_half_way_leaves_no_truncated_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import stat

    from gtreview.report.signing import ensure_reviewer_key, load_signing_key

    real_write_bytes = Path.write_bytes

    def half_then_full(self: Path, data: bytes) -> int:
        real_write_bytes(self, data[: len(data) // 2])
        disk_full()
        return 0

    monkeypatch.setattr(Path, "write_bytes", half_then_full)
    with pytest.raises(OutputFileError, match=r"geo\.key: No space"):
        ensure_reviewer_key("geo", tmp_path / "keys")
    assert list((tmp_path / "keys").iterdir()) == []  # no half key that would never load
    monkeypatch.undo()
    key = ensure_reviewer_key("geo", tmp_path / "keys")  # the next try makes a whole one
    assert load_signing_key("geo", tmp_path / "keys").name == key.name == "geo"
    assert stat.S_IMODE((tmp_path / "keys" / "geo.key").stat().st_mode) == 0o600
