"""Screenshots of gtreview's main views on the sample project, for the README.

Runs offscreen on a fresh copy of the sample project (a small scripted pass supplies
the results view with data; no model is needed) and writes PNGs to docs/screenshots/.
Re-run after changing the UI:

    .venv/bin/python docs/make_screenshots.py
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QEventLoop, QSettings, QTimer
from PySide6.QtWidgets import QApplication

from gtreview.app import workflow
from gtreview.app.sample_project import ensure_sample_project
from gtreview.core.rubric import Question
from gtreview.inference.backend import CompletionRequest, CompletionResult, Sampling
from gtreview.runs.plan import ModelEntry, PassConfig
from gtreview.store import sets
from gtreview.store.db import reading
from gtreview.ui.main_window import MainWindow

OUT = Path(__file__).resolve().parent / "screenshots"


class DemoBackend:
    """Plausible answers and verdicts without a model, so the results view has something to show."""

    def __init__(self, spec: str, questions: dict[str, Question]) -> None:
        self.spec, self.questions = spec, questions

    def describe(self) -> dict[str, Any]:
        return {"backend": "demo", "spec": self.spec}

    def close(self) -> None:
        pass

    def complete_batch(self, requests: Sequence[CompletionRequest]) -> list[CompletionResult]:
        return [CompletionResult(text=self._reply(r), completion_tokens=40) for r in requests]

    def _reply(self, request: CompletionRequest) -> str:
        content = request.messages[-1].content
        if "MARKING BLOCK" not in content:
            return f"{self.spec} answer {request.sampling.seed}"
        question = next(q for qid, q in self.questions.items() if f"QUESTION {qid}:" in content)
        if "ANSWER A:" in content:
            first = content.split("ANSWER A:")[1]
            return json.dumps(
                {"reason": "fuller reasoning", "verdict": "[[A>B]]" if "geo-lora" in first[:40] else "[[B>A]]"}
            )
        rng = random.Random(content[-60:])
        strong = "geo-lora" in content[-80:]
        gate = rng.random() < (0.85 if strong else 0.6)
        components = {
            c.id: {
                "awarded": rng.randint(int(c.points) // 2 if strong else 0, int(c.points)),
                "reason": "as the rubric asks",
                "contradiction": False,
                "do_not_credit_hit": False,
            }
            for c in question.components
        }
        return json.dumps(
            {
                "gate_passed": gate,
                "gate_reason": "r",
                "components": components,
                "do_not_credit_hits": [],
                "accepted_variant_used": "",
                "demonstrated_but_unscored": [],
                "adjudication_required": False,
                "adjudication_note": "",
            }
        )


def wait(app: QApplication, ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def settle(app: QApplication, window: MainWindow) -> None:
    """Until the window's reads and saves, which run in workers, have all come back."""
    while not window.ops.idle():
        wait(app, 20)
    app.processEvents()


def main() -> None:
    app = QApplication.instance() or QApplication(sys.argv)
    assert isinstance(app, QApplication)
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        project = ensure_sample_project(Path(tmp) / "sample")
        settings = QSettings(str(Path(tmp) / "settings.ini"), QSettings.Format.IniFormat)
        settings.setValue("reviewer/name", "Dr E. Marlowe")
        window = MainWindow(project, settings)
        window.resize(1600, 1000)
        window.show()
        settle(app, window)
        set_id = window.set_id
        assert set_id is not None
        for qid in ("A1", "A2"):
            workflow.approve(project.engine, set_id, qid, reviewer="Dr E. Marlowe", comment="checked against sources")
        window.open_set(set_id)
        settle(app, window)
        window.question_list.select("C6")
        settle(app, window)
        for name, tab in {"review": 0, "edit": 1, "calibration": 2}.items():
            window.tabs.setCurrentIndex(tab)
            settle(app, window)
            window.grab().save(str(OUT / f"{name}.png"))
        editor = window.editor
        editor.title_edit.setText("Which water level controlled oxidation at the Garibaldi?")
        editor._commit(next(b for b in editor._bindings if b.path == ("title",)))
        settle(app, window)
        window.tabs.setCurrentIndex(3)
        settle(app, window)
        window.grab().save(str(OUT / "history.png"))

        with reading(project.engine) as session:
            questions = {q.id: q for q in sets.export_rubric(session, set_id).questions}
        window.run_controller.open_backend = lambda spec: DemoBackend(spec.split(":", 1)[-1], questions)  # type: ignore[assignment,return-value]
        config = PassConfig(
            name="base vs geo-lora",
            judge="openai:http://judge#demo",
            repeats=3,
            drift_every=0,
            models=[
                ModelEntry(label="base", spec="openai:http://x#base"),
                ModelEntry(label="geo-lora", spec="openai:http://x#geo-lora"),
            ],
            sampling=Sampling(temperature=0.7, seed=1, max_tokens=256),
        )
        loop = QEventLoop()
        window.run_controller.finished.connect(lambda _message: loop.quit())
        window.start_configured_pass(config)
        loop.exec()
        settle(app, window)
        window.grab().save(str(OUT / "runs.png"))
        window.show_results(1)
        settle(app, window)
        points = window.results_view.scatter_items[0].points() if window.results_view.scatter_items else []
        if len(points):
            window.results_view._clicked([points[0]])
        app.processEvents()
        window.grab().save(str(OUT / "results.png"))
        window.close()
        project.close()
    print("\n".join(str(p) for p in sorted(OUT.glob("*.png"))))


if __name__ == "__main__":
    main()
