import itertools

import pytest

from gtreview.core.pairwise import TOKENS, PairLabel, label_for, parse_verdict, read_token, reconcile, reconcile_tokens

EXPECTED_LABEL = {
    2: "A>>B",
    1.5: "A>>B",
    1: "A>B",
    0.5: "A>B",
    0: "A=B",
    -0.5: "B>A",
    -1: "B>A",
    -1.5: "B>>A",
    -2: "B>>A",
}


@pytest.mark.parametrize(("normal", "swapped"), list(itertools.product(TOKENS, TOKENS)))
def test_every_token_pair(normal: str, swapped: str) -> None:
    outcome = reconcile(f"Reasoning... {normal}", f"Other order. {swapped}")
    first, second = TOKENS[normal], -TOKENS[swapped]
    assert (outcome.normal_score, outcome.swapped_score) == (first, second)
    assert outcome.average == (first + second) / 2
    assert outcome.label.value == EXPECTED_LABEL[outcome.average]
    winner = lambda s: (s > 0) - (s < 0)  # noqa: E731
    assert outcome.inconsistent == (winner(first) != winner(second))
    assert outcome.verdict_normal == normal and outcome.verdict_swapped == swapped


def test_consistent_preference_survives_the_swap() -> None:
    outcome = reconcile("[[A>>B]]", "[[B>>A]]")  # A is better in both orders
    assert outcome.label is PairLabel.A_MUCH_BETTER and not outcome.inconsistent


def test_position_bias_is_flagged() -> None:
    outcome = reconcile("[[A>B]]", "[[A>B]]")  # the judge prefers whatever comes first
    assert outcome.label is PairLabel.TIE and outcome.inconsistent


@pytest.mark.parametrize("bad", ["", "A is better", "[[A>B]] but also [[B>A]]", "[A>B]", "[[C>A]]"])
def test_unparseable_verdicts_make_the_pair_unknown(bad: str) -> None:
    assert parse_verdict(bad) is None
    outcome = reconcile(bad, "[[A=B]]")
    assert outcome.label is PairLabel.UNKNOWN and outcome.unknown and outcome.average is None
    assert reconcile("[[A=B]]", bad).label is PairLabel.UNKNOWN


def test_tolerant_parsing() -> None:
    assert parse_verdict("final: [[ A >> B ]]") == "[[A>>B]]"
    assert parse_verdict("[[A>B]] ... as said, [[A>B]]") == "[[A>B]]"


@pytest.mark.parametrize(("score", "label"), [(1.49, "A>B"), (0.49, "A=B"), (-0.49, "A=B"), (-1.49, "B>A")])
def test_thresholds(score: float, label: str) -> None:
    assert label_for(score).value == label


@pytest.mark.parametrize(
    ("value", "token"),
    [
        ("A>B", "[[A>B]]"),  # what the harness writes
        ("B>>A", "[[B>>A]]"),
        ("[[A=B]]", "[[A=B]]"),  # older files
        (" A >> B ", "[[A>>B]]"),
        ("Closer to the records: [[B>A]]. On reflection [[A>B]]", "[[B>A]]"),  # the first token wins
        ("unknown", None),
        (None, None),
        ("A<B", None),
    ],
)
def test_harness_tokens_are_read_as_the_harness_writes_them(value: object, token: str | None) -> None:
    assert read_token(value) == token


def test_tokens_reconcile_like_texts() -> None:
    assert reconcile_tokens("[[A>B]]", "[[B>A]]") == reconcile("[[A>B]]", "[[B>A]]")
    assert reconcile_tokens("[[A>B]]", None).label is PairLabel.UNKNOWN
