"""How fast the question list opens on 2,000 questions and filters as you type.

Opens a project holding a 2,000-question set (built once into a temporary folder),
then measures, in one run and side by side with a 200-question set:
  - opening: reading the rows (store + validator), filling the model, laying out the view;
  - filtering: one keystroke in the search box (median over a typed word, each
    keystroke processed fully before the next).
Budgets from the issue: open < 1 s, keystroke < 50 ms.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/question_list.py
"""

from __future__ import annotations

import copy
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtWidgets import QApplication

from gtreview.app.review import question_rows
from gtreview.app.sample_project import sample_rubric_path
from gtreview.core.rubric import Rubric
from gtreview.store.db import unit_of_work
from gtreview.store.project import create_project, open_project
from gtreview.store.sets import import_rubric
from gtreview.ui.widgets.question_list import QuestionList

WORD = "garibaldi"


def build(folder: Path, count: int) -> tuple[Path, int]:
    """A set of ``count`` full-size questions: the sample set's questions, repeated under new ids."""
    sample = json.loads(sample_rubric_path().read_text(encoding="utf-8"))
    data = {**sample, "questions": []}
    for position in range(count):
        question = copy.deepcopy(sample["questions"][position % len(sample["questions"])])
        question["id"] = f"{question['section']}{position + 1}"
        question["title"] = f"{question['title']} ({position})"
        for fixture in question["calibration"]:
            fixture["fixture_id"] = f"{question['id']}-{fixture['fixture_id'].split('-')[-1]}"
        data["questions"].append(question)
    project = create_project(folder)
    with unit_of_work(project.engine) as tx:
        set_id = import_rubric(
            tx, Rubric.model_validate(data), source_name="bench.json", source_sha256="b", actor="bench"
        )
    project.close()
    return folder, set_id


def measure(app: QApplication, folder: Path, set_id: int) -> tuple[float, float, int]:
    project = open_project(folder)
    start = time.perf_counter()
    widget = QuestionList()
    widget.set_rows(question_rows(project.engine, set_id))
    widget.show()
    app.processEvents()
    opened = time.perf_counter() - start
    keystrokes = []
    for length in range(1, len(WORD) + 1):
        start = time.perf_counter()
        widget.search.setText(WORD[:length])
        app.processEvents()
        keystrokes.append(time.perf_counter() - start)
    shown = widget.proxy.rowCount()
    widget.close()
    project.close()
    return opened, statistics.median(keystrokes), shown


def main() -> None:
    app = QApplication.instance() or QApplication(sys.argv)
    with tempfile.TemporaryDirectory() as tmp:
        small = build(Path(tmp) / "small", 200)
        large = build(Path(tmp) / "large", 2000)
        measure(app, *small)  # warm up imports and caches
        small_open, small_key, _ = measure(app, *small)
        large_open, large_key, shown = measure(app, *large)
    print(
        f"open:      200 q {small_open * 1000:7.1f} ms | 2000 q {large_open * 1000:7.1f} ms | ratio {large_open / small_open:5.1f} | budget 1000 ms"
    )
    print(
        f"keystroke: 200 q {small_key * 1000:7.2f} ms | 2000 q {large_key * 1000:7.2f} ms | ratio {large_key / small_key:5.1f} | budget 50 ms"
    )
    print(f"rows matching '{WORD}' in the 2000-question set: {shown}")


if __name__ == "__main__":
    main()
