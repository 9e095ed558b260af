from pathlib import Path

from gtreview.core.rubric import Rubric, rubric_from_json_text
from gtreview.interop.grading_guide import render_grading_guide
from tests.rubric_factory import skill_shape_rubric


def test_interop_guide_has_one_marking_block_per_question(interop_dir: Path) -> None:
    rubric = rubric_from_json_text(
        (interop_dir / "rubrics" / "Yudnamutana_QA_grading_key.json").read_text(encoding="utf-8")
    )
    guide = render_grading_guide(rubric)
    reference = (interop_dir / "rubrics" / "Yudnamutana_QA_grading_key.md").read_text(encoding="utf-8")
    for question in rubric.questions:
        heading = f"### {question.id} · {question.title}"
        assert heading in guide and heading in reference
        block = guide.split(heading, 1)[1].split("\n### ", 1)[0]
        gate = question.gate
        assert gate is not None
        assert f"**Gate — C1 ({gate.points} points).**" in block
        assert "**If C1 fails: total = 0.**" in block
        for component in question.components:
            assert f"- **{component.id} [{component.points}]" in block
        assert block.count("(GATE)") == 1
        assert "**Do not credit.**" in block
    assert "| Wywyana Formation | Wywyana Fm, the Wywyana |" in guide
    assert guide.index("### A1") < guide.index("### B2") < guide.index("### C3")


def test_skill_shape_variants_are_rendered_whole() -> None:
    guide = render_grading_guide(Rubric.model_validate(skill_shape_rubric()))
    assert "| reef | lode, line of reef, old style |" in guide
    assert "**Accepted variants.** pyrite: mundic, iron pyrites." in guide


def test_a_paraphrase_says_what_it_rewords_in_the_guide() -> None:
    from gtreview.core.paraphrases import new_paraphrase
    from gtreview.core.rubric import Question
    from gtreview.interop.grading_guide import render_question
    from tests.rubric_factory import question

    block = render_question(Question.model_validate(new_paraphrase(question("A1"), "A1-P1", "Reworded?")))
    assert "**Paraphrase of:** A1 (its marking scheme)" in block
    assert "Paraphrase of" not in render_question(Question.model_validate(question("A1")))
