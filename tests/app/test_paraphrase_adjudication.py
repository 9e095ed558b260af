"""The app's figures of a pass with paraphrases: the judge gate and the status line read
the originals only, and an expert settles a paraphrase's answer like any other, moving
no figure of the originals, only the drop under paraphrase."""

from __future__ import annotations

from pathlib import Path

from gtreview.app.adjudicate import item_view
from gtreview.app.adjudication import adjudication_queue, override_judgement
from gtreview.app.judge_gate import judge_gate
from gtreview.app.results import status_line
from gtreview.results.analysis import analyse
from gtreview.results.loader import load_run_results
from gtreview.store import db
from tests.results.test_paraphrase import FLAGGED, REPEATS, paraphrase_project


def test_the_judge_gate_and_the_status_line_read_the_originals_only(tmp_path: Path) -> None:
    with paraphrase_project(tmp_path) as (project, (plain, plain_analysis, results, analysis)):
        engine = project.engine
        gates = [judge_gate(engine, r.run_id, results=r).model_dump(exclude={"run_id"}) for r in (plain, results)]
        assert gates[0] == gates[1] and gates[0]["questions"]
        lines = [status_line(engine, r, 1, a) for r, a in ((plain, plain_analysis), (results, analysis))]
        assert lines[0] == lines[1] and "of 10 questions" in lines[0]


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
        with db.unit_of_work(engine) as tx:
            override_judgement(
                tx, results, flagged[0].key, actor="Dr Test", gate_passed=True, awards=full, reason="all there"
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
