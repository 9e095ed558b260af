"""Benchmark sets in the project: questions, their versions, the review log, calibrations.

Every function takes the ``Session`` of the intent that calls it, never an engine: an
app intent opens one unit of work (``store.db.unit_of_work``: BEGIN IMMEDIATE, committed
when the intent's block ends, rolled back if it raises), reads and checks what it
changes and writes it there, so nothing another process does can fall between a check
and its write. A reader uses ``store.db.reading``. Import from here, never from the
package's modules.
"""

from gtreview.core.review_flow import ReviewStatus
from gtreview.store.sets.calibrations import (
    add_calibration_run,
    calibrated_qids,
    calibrations_of_contents,
    latest_calibration_run,
    latest_calibration_runs,
)
from gtreview.store.sets.errors import (
    DamagedVersionError,
    EditConflictError,
    EditRefusedError,
    NoSuchSignoff,
    QuestionIdTakenError,
    ReviewConflictError,
    SetAlreadyImportedError,
    SetImportError,
)
from gtreview.store.sets.imports import import_rubric, repeated_ids
from gtreview.store.sets.models import (
    ContentCalibration,
    HistoryEntry,
    QuestionSummary,
    SavedVersion,
    SetSummary,
    SignoffInfo,
    VersionInfo,
)
from gtreview.store.sets.questions import (
    current_contents,
    export_rubric,
    get_question,
    get_set,
    list_questions,
    list_sets,
    load_current,
    load_question,
    paraphrase_ids,
    set_header,
    source_text,
)
from gtreview.store.sets.review_log import (
    CALIBRATION_NOT_REQUIRED,
    CALIBRATION_REQUIRED,
    approved_without_calibration,
    history,
    list_signoffs,
    log_project_action,
    project_log,
    question_log,
    record_review,
    record_signoff,
    review_log,
    signed_rubric_text,
    signoff_by_id,
    signoffs,
)
from gtreview.store.sets.versions import (
    Change,
    add_question,
    list_versions,
    load_version,
    save_question,
    update_question,
    versions_saved_since,
)

__all__ = [
    "CALIBRATION_NOT_REQUIRED",
    "CALIBRATION_REQUIRED",
    "Change",
    "ContentCalibration",
    "DamagedVersionError",
    "EditConflictError",
    "EditRefusedError",
    "HistoryEntry",
    "NoSuchSignoff",
    "QuestionIdTakenError",
    "QuestionSummary",
    "ReviewConflictError",
    "ReviewStatus",
    "SavedVersion",
    "SetAlreadyImportedError",
    "SetImportError",
    "SetSummary",
    "SignoffInfo",
    "VersionInfo",
    "add_calibration_run",
    "add_question",
    "approved_without_calibration",
    "calibrated_qids",
    "calibrations_of_contents",
    "current_contents",
    "export_rubric",
    "get_question",
    "get_set",
    "history",
    "import_rubric",
    "latest_calibration_run",
    "latest_calibration_runs",
    "list_questions",
    "list_sets",
    "list_signoffs",
    "list_versions",
    "load_current",
    "load_question",
    "load_version",
    "log_project_action",
    "paraphrase_ids",
    "project_log",
    "question_log",
    "record_review",
    "record_signoff",
    "repeated_ids",
    "review_log",
    "save_question",
    "set_header",
    "signed_rubric_text",
    "signoff_by_id",
    "signoffs",
    "source_text",
    "update_question",
    "versions_saved_since",
]
