from gtreview.core.wording import noun, plural, plural_of


def test_one_is_singular_and_every_other_count_plural() -> None:
    assert plural(1, "duplicated passage") == "1 duplicated passage"
    assert plural(0, "duplicated passage") == "0 duplicated passages"
    assert plural(2, "question") == "2 questions"
    assert plural(3, "failed generation") == "3 failed generations"
    assert plural(2, "criterion", "criteria") == "2 criteria"
    assert noun(1, "answer") == "answer" and noun(4, "answer") == "answers"


def test_the_regular_english_plurals() -> None:
    assert [plural_of(w) for w in ("match", "box", "summary", "day", "analysis", "is")] == [
        "matches",
        "boxes",
        "summaries",
        "days",
        "analyses",
        "are",
    ]
