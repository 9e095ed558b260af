"""Corpus reader: page/line addressing, passages, tables and every refusal."""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path

import pytest

from gtreview.core.corpus import Passage, SourceKind
from gtreview.corpus.readers import (
    MAX_FILE_BYTES,
    CorpusImportError,
    parse_bytes,
    parse_file,
)


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    data = content.encode("utf-8") if isinstance(content, str) else content
    path.write_bytes(data)
    return path


def refusal(path: Path, name: str | None = None) -> str:
    with pytest.raises(CorpusImportError) as info:
        parse_file(path, name)
    message = str(info.value)
    assert "\n" not in message and "\r" not in message
    assert message.startswith(f"{name or path.name}: ")
    return message


# --- paged text -----------------------------------------------------------------


def test_markers_number_pages_and_are_not_lines(tmp_path: Path) -> None:
    text = (
        "=== Page 1 ===\n"
        "Report on the Yudnamutana copper field\n"
        "\n"
        "The Pinnacles lode lies in marble\n"
        "of the Wywyana Formation.\n"
        "=== Page 2 ===\n"
        "Second page.\n"
        "--- page 3 ---\n"
        "Third page.\n"
        "[=== PAGE 7 ===]\n"
        "Seventh page.\n"
        "=== [Page 8] ===\n"
        "Eighth page.\n"
    )
    doc = parse_file(write(tmp_path, "r.txt", text))
    assert doc.kind is SourceKind.TEXT
    assert [p.number for p in doc.pages] == [1, 2, 3, 7, 8]
    assert doc.pages[0].lines == (
        "Report on the Yudnamutana copper field",
        "",
        "The Pinnacles lode lies in marble",
        "of the Wywyana Formation.",
    )
    assert doc.pages[3].lines == ("Seventh page.",)
    assert doc.title == "Report on the Yudnamutana copper field"
    assert all("Page" not in line for page in doc.pages for line in page.lines)


def test_text_without_markers_is_page_one_and_blank_lines_count(tmp_path: Path) -> None:
    doc = parse_file(write(tmp_path, "notes.txt", "\n\nfirst\n\n\nsecond\n\n"))
    assert [p.number for p in doc.pages] == [1]
    assert doc.pages[0].lines == ("", "", "first", "", "", "second", "")
    assert doc.title == "first"


def test_text_before_first_marker_is_page_one(tmp_path: Path) -> None:
    text = "Preface line\n=== Page 2 ===\nbody\n\f\nafter form feed\n"
    doc = parse_file(write(tmp_path, "p.txt", text))
    assert [p.number for p in doc.pages] == [1, 2, 3]
    assert doc.pages[0].lines == ("Preface line",)
    assert doc.pages[2].lines == ("", "after form feed")


def test_blank_text_before_first_marker_is_not_a_page(tmp_path: Path) -> None:
    doc = parse_file(write(tmp_path, "p.txt", "\n  \n=== Page 4 ===\nbody\n"))
    assert [(p.number, p.lines) for p in doc.pages] == [(4, ("body",))]


def test_duplicate_page_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "dup.txt", "Title\n=== Page 1 ===\nbody\n")
    assert "page 1 occurs twice" in refusal(path)


def test_form_feed_breaks_pages(tmp_path: Path) -> None:
    # pdftotext style: each page ends with \f, including the last one.
    text = "a1\na2\n\fb1\nb2 ends\fc1\n\f"
    doc = parse_file(write(tmp_path, "ff.txt", text))
    assert [(p.number, p.lines) for p in doc.pages] == [
        (1, ("a1", "a2")),
        (2, ("b1", "b2 ends")),
        (3, ("c1",)),
    ]


def test_form_feed_before_marker_adds_no_page(tmp_path: Path) -> None:
    text = "=== Page 5 ===\nfive\n\f=== Page 6 ===\nsix\n\fseven\n"
    doc = parse_file(write(tmp_path, "ff.txt", text))
    assert [(p.number, p.lines) for p in doc.pages] == [
        (5, ("five",)),
        (6, ("six",)),
        (7, ("seven",)),
    ]


def test_crlf_lines_keep_no_carriage_returns(tmp_path: Path) -> None:
    text = "=== Page 1 ===\r\nl1\r\nl2\r\n\r\nl4  \r\n=== Page 2 ===\r\nx\r\n"
    doc = parse_file(write(tmp_path, "crlf.txt", text))
    assert doc.pages[0].lines == ("l1", "l2", "", "l4  ")
    assert doc.pages[1].lines == ("x",)


def test_passages_are_runs_of_non_blank_lines(tmp_path: Path) -> None:
    text = "=== Page 1 ===\nTitle\n\nPara one a\nPara one b\n   \nPara two\n=== Page 2 ===\nNext\n"
    doc = parse_file(write(tmp_path, "p.txt", text))
    assert doc.passages == [
        Passage(page=1, line_start=1, line_end=1, text="Title"),
        Passage(page=1, line_start=3, line_end=4, text="Para one a\nPara one b"),
        Passage(page=1, line_start=6, line_end=6, text="Para two"),
        Passage(page=2, line_start=1, line_end=1, text="Next"),
    ]


def test_markdown_title_and_kind(tmp_path: Path) -> None:
    doc = parse_file(write(tmp_path, "notes/field.md", "\n## Field notes, 1894\n\ntext\n"))
    assert doc.kind is SourceKind.MARKDOWN
    assert doc.title == "Field notes, 1894"


def test_title_falls_back_to_stem(tmp_path: Path) -> None:
    doc = parse_file(write(tmp_path, "blank_first.txt", "\f\n\fsecond page text\n"))
    assert doc.title == "blank_first"


def test_hash_size_and_name(tmp_path: Path) -> None:
    data = "\ufeffHello\r\nworld\r\n".encode()
    path = write(tmp_path, "sub/hello.txt", data)
    doc = parse_file(path, "reports/sub/hello.txt")
    assert doc.name == "reports/sub/hello.txt"
    assert doc.sha256 == hashlib.sha256(data).hexdigest()
    assert doc.size_bytes == len(data)
    assert doc.pages[0].lines == ("Hello", "world")  # BOM accepted and dropped
    assert parse_bytes(data, "reports/sub/hello.txt") == doc


# --- CSV ------------------------------------------------------------------------


def test_csv_rows_cells_and_key(tmp_path: Path) -> None:
    text = (
        "ID,NAME,SUMMARY\r\n"
        '2046,SHAMROCK,"quartz vein, Callana Beds"\r\n'
        '2047,PINNACLES,"marble of the\r\nWywyana Formation"\r\n'
        "2047,PINNACLES,second row same key\r\n"
    )
    doc = parse_file(write(tmp_path, "deposits.csv", text))
    assert doc.kind is SourceKind.CSV and doc.is_table
    assert doc.columns == ["ID", "NAME", "SUMMARY"]
    assert doc.key_column == "ID"
    assert doc.pages == [] and doc.passages == []
    assert doc.title == "deposits"
    assert [(r.index, r.key) for r in doc.rows] == [(1, "2046"), (2, "2047"), (3, "2047")]
    assert doc.rows[0].cells == {
        "ID": "2046",
        "NAME": "SHAMROCK",
        "SUMMARY": "quartz vein, Callana Beds",
    }
    assert "Wywyana" in doc.rows[1].cells["SUMMARY"]


def test_csv_ragged_row_names_the_line(tmp_path: Path) -> None:
    text = 'A,B\n1,"two\nlines"\n3,4,5\n'
    message = refusal(write(tmp_path, "t.csv", text))
    assert "line 4 has 3 fields but the header has 2" in message


def test_csv_without_header_is_refused(tmp_path: Path) -> None:
    message = refusal(write(tmp_path, "t.csv", "2046,SHAMROCK\n2047,PINNACLES\n"))
    assert "no header row" in message and "'2046'" in message
    message = refusal(write(tmp_path, "blank.csv", "\n2046,SHAMROCK\n"))
    assert "no header row" in message
    assert "empty name for column 2" in refusal(write(tmp_path, "e.csv", "A,,C\n1,2,3\n"))
    assert "repeats column A" in refusal(write(tmp_path, "d.csv", "A,B,A\n1,2,3\n"))


def test_csv_header_only_is_a_table_without_rows(tmp_path: Path) -> None:
    doc = parse_file(write(tmp_path, "t.csv", "A,B\n"))
    assert doc.columns == ["A", "B"] and doc.rows == []


# --- refusals -------------------------------------------------------------------


def test_unsupported_extension(tmp_path: Path) -> None:
    message = refusal(write(tmp_path, "report.docx", b"PK\x03\x04"))
    assert "unsupported file type ('.docx')" in message and ".pdf" in message
    assert "no extension" in refusal(write(tmp_path, "README", "text"))


@pytest.mark.parametrize("suffix", [".txt", ".md", ".csv", ".pdf"])
def test_empty_file(tmp_path: Path, suffix: str) -> None:
    assert refusal(write(tmp_path, "e" + suffix, b"")).endswith("is empty (0 bytes)")


@pytest.mark.parametrize("suffix", [".txt", ".md", ".csv"])
def test_whitespace_only_file(tmp_path: Path, suffix: str) -> None:
    message = refusal(write(tmp_path, "w" + suffix, " \r\n\t\n\f\n"))
    assert message.endswith("is empty (only whitespace)")


@pytest.mark.parametrize("suffix", [".txt", ".csv"])
def test_binary_content(tmp_path: Path, suffix: str) -> None:
    message = refusal(write(tmp_path, "b" + suffix, b"abc\x00\x01\x02def"))
    assert "binary (contains NUL bytes)" in message


def test_not_utf8(tmp_path: Path) -> None:
    message = refusal(write(tmp_path, "latin.txt", "Caf\u00e9 report\n".encode("latin-1")))
    assert "not valid UTF-8" in message and "re-save it as UTF-8" in message
    assert "offset 3" in message


def test_too_large_is_refused_without_reading(tmp_path: Path) -> None:
    path = tmp_path / "huge.txt"
    with path.open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse: nothing is actually written
    assert "over the 200 MB limit" in refusal(path)


def test_missing_file_and_folder(tmp_path: Path) -> None:
    assert refusal(tmp_path / "absent.txt") == "absent.txt: no such file"
    (tmp_path / "dir.txt").mkdir()
    assert "is a folder" in refusal(tmp_path / "dir.txt")


def test_error_is_a_value_error_and_pickles() -> None:
    error = CorpusImportError("a.txt", "is empty\n(0 bytes)")
    assert isinstance(error, ValueError)
    assert str(error) == "a.txt: is empty (0 bytes)"
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.file, copy.reason, str(copy)) == (error.file, error.reason, str(error))


# --- PDF ------------------------------------------------------------------------


def make_pdf(path: Path, pages: list[list[str]]) -> Path:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path), pagesize=A4)
    for lines in pages:
        y = 800.0
        for line in lines:
            if line:
                pdf.drawString(72, y, line)
            y -= 16
        if not lines:
            pdf.rect(72, 600, 200, 100)  # a page with graphics only
        pdf.showPage()
    pdf.save()
    return path


def test_pdf_pages_lines_and_passages(tmp_path: Path) -> None:
    path = make_pdf(
        tmp_path / "report.pdf",
        [
            ["Yudnamutana Copper Field", "Report of 1894"],
            ["The Pinnacles lode", "lies in Wywyana marble.", "Production 75 tonnes."],
            [],
            ["Appendix"],
        ],
    )
    doc = parse_file(path, "reports/report.pdf")
    assert doc.kind is SourceKind.PDF
    assert [p.number for p in doc.pages] == [1, 2, 3, 4]
    assert doc.pages[1].lines == (
        "The Pinnacles lode",
        "lies in Wywyana marble.",
        "Production 75 tonnes.",
    )
    assert doc.pages[2].lines == ()
    assert doc.title == "Yudnamutana Copper Field"
    assert Passage(page=4, line_start=1, line_end=1, text="Appendix") in doc.passages
    assert doc.passages[1].page == 2 and doc.passages[1].line_end == 3


def test_pdf_without_text_layer(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "scan.pdf", [[], []])
    assert refusal(path).endswith("no text layer; OCR it first")


def test_pdf_that_cannot_be_opened(tmp_path: Path) -> None:
    message = refusal(write(tmp_path, "broken.pdf", b"%PDF-1.4\nnot really a pdf\n"))
    assert "cannot be opened as a PDF" in message
    truncated = make_pdf(tmp_path / "full.pdf", [["text"]]).read_bytes()[:300]
    assert "cannot be opened as a PDF" in refusal(write(tmp_path, "cut.pdf", truncated))


# --- hostile input ----------------------------------------------------------------

ADVERSARIAL_LINE = 100_000  # the old marker pattern was cubic: 811 bytes took 10 s


@pytest.mark.parametrize(
    "line",
    [
        "===" + " " * ADVERSARIAL_LINE + "x",
        "=== page 1" + " " * ADVERSARIAL_LINE + "x",
        "[ " * (ADVERSARIAL_LINE // 2) + "x",
        "--- [ page [ 7" + " ] " * (ADVERSARIAL_LINE // 3) + "x",
        "=== page " + "1" * ADVERSARIAL_LINE + " x",
    ],
    ids=["spaces-after-rule", "spaces-after-number", "brackets", "closing-brackets", "digits"],
)
def test_long_adversarial_line_is_text_not_a_marker(tmp_path: Path, line: str) -> None:
    doc = parse_file(write(tmp_path, "r.txt", f"=== page 3 ===\n{line}\nend\n"))
    assert [page.number for page in doc.pages] == [3]
    assert doc.pages[0].lines == (line, "end")


def test_marker_with_spaces_and_brackets_still_numbers_the_page(tmp_path: Path) -> None:
    doc = parse_file(write(tmp_path, "r.txt", "  [ ===  [ Page [ 12 ] ]  === ]  \nbody\n"))
    assert [(page.number, page.lines) for page in doc.pages] == [(12, ("body",))]


@pytest.mark.parametrize("digits", ["1000001", "9" * 25, "1" * 5000])
def test_huge_page_number_is_refused_in_one_line(tmp_path: Path, digits: str) -> None:
    message = refusal(write(tmp_path, "r.txt", f"=== page {digits} ===\nbody\n"))
    assert "names a page over 1,000,000" in message


def test_csv_unterminated_quote_is_refused_naming_its_line(tmp_path: Path) -> None:
    message = refusal(write(tmp_path, "t.csv", 'K,V\na,1\nb,"2\nc,3\nd,4\n'))
    assert 'line 3 opens a quoted field (") that is never closed' in message
