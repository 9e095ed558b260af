"""The prefix tree that decides which prompt tokens are prefilled once and shared."""

from __future__ import annotations

from gtreview.inference.llama.prefix_plan import Segment, plan_prefixes, shared_prefix_length


def test_shared_prefix_length_leaves_every_sequence_a_token() -> None:
    assert shared_prefix_length([[1, 2, 3, 4], [1, 2, 5]]) == 2
    assert shared_prefix_length([[1, 2, 3], [1, 2, 3]]) == 2
    assert shared_prefix_length([[1, 2, 3]]) == 2
    assert shared_prefix_length([[1, 2], [3]]) == 0
    assert shared_prefix_length([]) == 0


def test_one_common_prefix() -> None:
    prompts = [[1, 2, 3, 4], [1, 2, 3, 5], [1, 2, 3, 6, 7]]
    plan = plan_prefixes(prompts)
    assert plan.segments == [Segment(0, 0, 3, (1, 2))]
    assert plan.own_start == [3, 3, 3]
    assert plan.prefill_tokens(prompts) == 3 + 1 + 1 + 2


def test_nested_groups() -> None:
    # instruction [1, 2], question A [3, 4] / question B [5, 6], answers after.
    prompts = [[1, 2, 3, 4, 10], [1, 2, 3, 4, 11], [1, 2, 5, 6, 12], [1, 2, 5, 6, 13, 14]]
    plan = plan_prefixes(prompts)
    assert plan.segments == [Segment(0, 0, 2, (1, 2, 3)), Segment(0, 2, 4, (1,)), Segment(2, 2, 4, (3,))]
    assert plan.own_start == [4, 4, 4, 4]
    assert plan.prefill_tokens(prompts) == 2 + 2 + 2 + 1 + 1 + 1 + 2


def test_identical_and_prefix_prompts_terminate() -> None:
    prompts = [[1, 2, 3], [1, 2, 3], [1, 2, 3, 4, 5], [1, 2, 3, 4, 6]]
    plan = plan_prefixes(prompts)
    assert plan.segments == [Segment(0, 0, 2, (1, 2, 3)), Segment(2, 2, 4, (3,))]
    assert plan.own_start == [2, 2, 4, 4]
    # every position of every prompt is decoded exactly once in some sequence it belongs to
    assert plan.prefill_tokens(prompts) == 2 + 2 + 1 + 1 + 1 + 1


def test_no_common_prefix_and_single_prompt() -> None:
    assert plan_prefixes([[1, 2], [3, 4]]).segments == []
    assert plan_prefixes([[1, 2], [3, 4]]).own_start == [0, 0]
    single = plan_prefixes([[1, 2, 3]])
    assert single.segments == [] and single.own_start == [0]
    assert plan_prefixes([]).segments == []
