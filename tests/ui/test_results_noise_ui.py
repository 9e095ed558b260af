"""Judge noise apart from model noise reads the same in the results view's Noise tab and in
the PDF report (both from gtreview.results.noise_text)."""

import json
import random
from pathlib import Path

from pypdf import PdfReader

from gtreview.inference.backend import CompletionRequest
from gtreview.results.noise_text import NOISE_HEADING
from gtreview.store import sets
from gtreview.store.db import reading
from tests.judging.scripted import ScriptedBackend
from tests.results.test_design import open_backend
from tests.ui.test_runs_ui import CONFIG
from tests.ui.waiting import settle


def _flat(text: str) -> str:
    return " ".join(text.split())


def wavering(opened):  # type: ignore[no-untyped-def]
    """The design tests' backends, with a judge whose awards move with the order it is shown
    the components in (a shuffled repeat gets another verdict now and then)."""

    def open_wavering(spec: str) -> ScriptedBackend:
        backend = opened(spec)
        if "judge" not in spec:
            return backend
        steady = backend.respond

        def respond(request: CompletionRequest) -> str:
            reply = steady(request)
            data = json.loads(reply)
            if "components" in data:
                rng = random.Random(request.messages[1].content)
                for verdict in data["components"].values():
                    verdict["awarded"] = max(0, verdict["awarded"] - rng.randint(0, 1))
            return json.dumps(data)

        backend.respond = respond
        return backend

    return open_wavering


def test_noise_reads_the_same_in_the_view_and_the_pdf(qtbot, sample_window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    engine = window.project.engine
    with reading(engine) as session:
        questions = {q.id: q for q in sets.export_rubric(session, window.set_id).questions}
    window.run_controller.open_backend = wavering(open_backend(questions))
    with qtbot.waitSignal(window.run_controller.finished, timeout=30000):
        window.start_configured_pass(CONFIG.model_copy(update={"judge_repeats": 3}))
    settle(qtbot, window)
    view = window.results_view
    window.show_results(1)
    qtbot.waitUntil(lambda: view.analysis is not None, timeout=30000)
    noise = view.noise
    assert view.tables.tabText(view.tables.indexOf(noise)) == "Noise"
    assert not noise.table.isHidden() and noise.table.rowCount() > 0
    readings = [line for line in noise.readings.text().splitlines() if line]
    assert [line.split(":")[0] for line in readings] == ["base", "lora"]
    assert all("ICC(1,1)" in line for line in readings)
    assert "95%" in noise.summary.text() and "score of record" in noise.summary.text()

    out = tmp_path / "noise.pdf"
    window.export_report(out)
    qtbot.waitUntil(lambda: "Wrote" in window.statusBar().currentMessage(), timeout=60000)
    pdf = _flat(" ".join(page.extract_text() for page in PdfReader(str(out)).pages))
    assert "Judge repeats 3 verdicts per answer (scored components shown in another order)" in pdf
    assert NOISE_HEADING in pdf and _flat(noise.summary.text()) in pdf
    for line in readings:
        assert _flat(line) in pdf, line
    first = [noise.table.item(0, c).text() for c in range(noise.table.columnCount())]
    assert _flat(" ".join(first)) in pdf  # the noisiest question's row, the same in both
