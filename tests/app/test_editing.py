def test_a_field_path_reads_as_words() -> None:
    from gtreview.app.editing import field_in_words

    assert field_in_words("$.title") == "title"
    assert field_in_words("$.gate.pass_condition") == "gate › pass condition"
    assert field_in_words("$.components[2].credit_if") == "component 3 › credit if"
    assert field_in_words("$.calibration[0].response_text") == "fixture 1 › response text"
    assert field_in_words("$.evidence[1]") == "evidence item 2"


def test_an_edit_note_tells_an_edit_its_undo_and_its_redo_apart() -> None:
    from gtreview.app.editing import EditNote, edit_comment, edit_note

    for kind, of_version in (("edit", None), ("undo", 6), ("redo", 6), ("undo", None)):
        said = edit_comment(("gate", "pass_condition"), kind=kind, of_version=of_version)  # type: ignore[arg-type]
        assert edit_note(said) == EditNote(kind, of_version, "$.gate.pass_condition")  # type: ignore[arg-type]
    assert edit_comment(("title",), kind="undo", of_version=6) == "undo of version 6: field $.title"
    assert edit_note("undo of version 6: checked against the report") is None  # the author's own words
    assert edit_note("renamed A1 -> A9") is None
