"""How long a 500-question, 3-model PDF report takes (budget: 10 s).

Builds the results of a synthetic pass in memory (the sample set's questions repeated
to 500, 3 models, 3 repeats, random but plausible awards, some errors and unscored
samples, pairs for both fine-tunes), then times the analysis and the PDF rendering
separately and together, beside a 50-question report in the same run.

    .venv/bin/python benchmarks/report_speed.py [--questions 500] [--repeats 3]
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gtreview.app.sample_project import sample_rubric_path
from gtreview.core.rubric import Question
from gtreview.inference.backend import Sampling
from gtreview.report.run_report import write_run_report
from gtreview.results.analysis import analyse
from gtreview.results.loader import PairResult, RunResults, SampleResult, SampleStatus
from gtreview.runs.plan import ModelEntry, PassConfig

MODELS = ("base", "geo-lora", "geo-lora-v2")


def synthetic(n_questions: int, repeats: int, seed: int = 0) -> RunResults:
    rng = random.Random(seed)
    sample = json.loads(sample_rubric_path().read_text(encoding="utf-8"))["questions"]
    questions = []
    for n in range(n_questions):
        data = copy.deepcopy(sample[n % len(sample)])
        data["id"] = f"{data['section']}{n + 1}"
        questions.append(Question.model_validate(data))
    samples, pairs = [], []
    for m_index, model in enumerate(MODELS):
        for question in questions:
            for k in range(repeats):
                roll = rng.random()
                if roll < 0.02:
                    samples.append(
                        SampleResult(
                            model=model,
                            qid=question.id,
                            sample_index=k,
                            status=SampleStatus.ERROR,
                            total=0.0,
                            gate_passed=False,
                            error="empty output after 4 attempts",
                        )
                    )
                    continue
                if roll < 0.03:
                    samples.append(
                        SampleResult(
                            model=model,
                            qid=question.id,
                            sample_index=k,
                            status=SampleStatus.UNSCORED,
                            unscored_reason="not valid JSON",
                        )
                    )
                    continue
                gate = rng.random() < 0.6 + 0.1 * m_index
                awards = {
                    c.id: (int(c.points) if c.is_gate else rng.randint(0, int(c.points))) if gate else 0
                    for c in question.components
                }
                samples.append(
                    SampleResult(
                        model=model,
                        qid=question.id,
                        sample_index=k,
                        status=SampleStatus.SCORED,
                        total=float(min(10, sum(awards.values()))),
                        gate_passed=gate,
                        awards=awards,
                    )
                )
                if m_index:
                    average = rng.choice([-2, -1, -0.5, 0, 0.5, 1, 1.5, 2, None])
                    label = (
                        "unknown"
                        if average is None
                        else (
                            "A>>B"
                            if average >= 1.5
                            else "A>B"
                            if average >= 0.5
                            else "B>>A"
                            if average <= -1.5
                            else "B>A"
                            if average <= -0.5
                            else "A=B"
                        )
                    )
                    pairs.append(
                        PairResult(
                            qid=question.id,
                            sample_index=k,
                            finetune=model,
                            base="base",
                            label=label,
                            average=average,
                            inconsistent=rng.random() < 0.1 and average is not None,
                        )
                    )
    config = PassConfig(
        name=f"synthetic {n_questions}",
        models=[ModelEntry(label=m, spec=f"llama:/models/{m}.gguf") for m in MODELS],
        judge="llama:/models/judge.gguf",
        repeats=repeats,
        sampling=Sampling(seed=1, temperature=0.7),
    )
    return RunResults(
        run_id=1,
        name=config.name,
        status="finished",
        config=config,
        questions=questions,
        samples=samples,
        pairs=pairs,
        rubric_hash="0" * 64,
        templates={"pointwise": "a" * 64, "pairwise": "b" * 64},
    )


def timed(results: RunResults, folder: Path) -> tuple[float, float]:
    start = time.perf_counter()
    analysis = analyse(results)
    middle = time.perf_counter()
    write_run_report(results, analysis, folder / f"report-{len(results.questions)}.pdf", set_name="synthetic")
    return middle - start, time.perf_counter() - middle


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        small_a, small_r = timed(synthetic(50, args.repeats), Path(tmp))
        big_a, big_r = timed(synthetic(args.questions, args.repeats), Path(tmp))
        pages = (Path(tmp) / f"report-{args.questions}.pdf").stat().st_size
    print(f"50 questions:  analysis {small_a:.2f} s, PDF {small_r:.2f} s, total {small_a + small_r:.2f} s")
    print(
        f"{args.questions} questions: analysis {big_a:.2f} s, PDF {big_r:.2f} s, total {big_a + big_r:.2f} s "
        f"({pages / 1e6:.1f} MB); budget 10 s; ratio to 50 questions {(big_a + big_r) / (small_a + small_r):.1f}x"
    )


if __name__ == "__main__":
    main()
