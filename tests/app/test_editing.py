def test_a_field_path_reads_as_words() -> None:
    from gtreview.app.editing import field_in_words

    assert field_in_words("$.title") == "title"
    assert field_in_words("$.gate.pass_condition") == "gate › pass condition"
    assert field_in_words("$.components[2].credit_if") == "component 3 › credit if"
    assert field_in_words("$.calibration[0].response_text") == "fixture 1 › response text"
    assert field_in_words("$.evidence[1]") == "evidence item 2"
