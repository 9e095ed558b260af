"""The sample project: the shipped sample corpus and benchmark set, ready to review."""

from __future__ import annotations

from pathlib import Path

from gtreview.app.corpus_import import import_corpus
from gtreview.interop.rubric_files import read_rubric_file, to_rubric
from gtreview.paths import sample_corpus_dir
from gtreview.store import sets
from gtreview.store.db import unit_of_work
from gtreview.store.project import DB_FILE, Project, create_project, open_project
from gtreview.store.settings_repo import APPROVAL_REQUIRES_CALIBRATION, set_setting

SAMPLE_ACTOR = "gtreview (sample)"
SAMPLE_RUBRIC = Path("benchmark") / "Sample_goldfield_grading_key.json"
SAMPLE_CORPUS_FOLDERS = ("reports", "tables")


def sample_rubric_path() -> Path:
    return sample_corpus_dir() / SAMPLE_RUBRIC


def ensure_sample_project(folder: Path) -> Project:
    """Open ``folder`` as the sample project, filling it on first use.

    Safe to call every start: the corpus import skips files already present and
    the set is imported only when the project has none.
    """
    # asking for the sample is asking for a new project where there is none yet
    project = open_project(folder) if (folder.expanduser() / DB_FILE).exists() else create_project(folder)
    root = sample_corpus_dir()
    import_corpus(project.engine, [root / name for name in SAMPLE_CORPUS_FOLDERS if (root / name).is_dir()])
    rubric_file = read_rubric_file(sample_rubric_path())
    with unit_of_work(project.engine) as tx:  # the check and the import in one transaction: one sample set
        imported = not sets.list_sets(tx)
        if imported:
            sets.import_rubric(
                tx,
                to_rubric(rubric_file),
                source_name=SAMPLE_RUBRIC.name,
                source_sha256=rubric_file.sha256,
                actor=SAMPLE_ACTOR,
            )
            # The sample ships no judge model, so its questions can be approved without a
            # calibration run; new projects require one (Review menu to change).
            set_setting(tx, APPROVAL_REQUIRES_CALIBRATION, False)
    return project
