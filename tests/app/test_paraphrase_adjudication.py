"""An expert settles a paraphrase's answer like any other, and no figure of the original
questions moves: only the drop under paraphrase does."""

from __future__ import annotations

from pathlib import Path

from gtreview.app.adjudicate import item_view
from gtreview.app.adjudication import adjudication_queue, override_judgement
from gtreview.results.analysis import analyse
from gtreview.results.loader import load_run_results
from tests.results.test_paraphrase import FLAGGED, REPEATS, paraphrase_project


def test_an_expert_settles_a_paraphrase_answer_and_no_figure_of_the_originals_moves(tmp_path: Path) -> None:
    with paraphrase_project(tmp_path) as (project, (plain, plain_analysis, results, analysis)):
        engine = project.engine
        queue = adjudication_queue(engine, results)
        flagged = [item for item in queue if item.qid == FLAGGED and item.target == "judgement"]
        assert len(flagged) == REPEATS and {item.model for item in flagged} == {"base"}
        originals = {q.id for q in results.questions}
        assert [i for i in queue if i.qid in originals] == adjudication_queue(engine, plain)
        shown = item_view(engine, results, flagged[0])
        assert shown.judge.awards and any("reworded: unsure" in line for line in shown.why)

        question = next(q for q in results.paraphrases if q.id == FLAGGED)
        full = {c.id: int(c.points) for c in question.components}
        override_judgement(
            engine, results, flagged[0].key, actor="Dr Test", gate_passed=True, awards=full, reason="all there"
        )
        settled = load_run_results(engine, results.run_id)
        sample = next(s for s in settled.paraphrase_samples if s.judgement_key == flagged[0].key)
        assert sample.adjudicated and sample.total == sum(full.values())
        after = analyse(settled, n_boot=400, n_perm=500)
        apart = {"run_id", "name", "paraphrase"}
        assert after.model_dump(exclude=apart) == plain_analysis.model_dump(exclude=apart)
        assert after.paraphrase is not None and analysis.paraphrase is not None
        before_drop, after_drop = (r.for_model("base") for r in (analysis.paraphrase, after.paraphrase))
        assert before_drop is not None and after_drop is not None
        assert before_drop.drop is not None and after_drop.drop is not None and after_drop.drop < before_drop.drop
