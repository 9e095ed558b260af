"""Every sample of a pass as a table (question, model, sample, score, gate, status), read from
the one results loader, with a filter by text, model and status."""

from __future__ import annotations

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)

from gtreview.core import numbering
from gtreview.core.rubric import Question
from gtreview.results.loader import RunResults, SampleResult, SampleStatus

COLUMNS = ("Question", "Model", "Sample", "Score", "Gate", "Status")
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
SAMPLE_ROLE = Qt.ItemDataRole.UserRole + 2

_Index = QModelIndex | QPersistentModelIndex


def sample_number(sample: SampleResult) -> int:
    """The number a user reads: samples count from 1 (the store's index from 0)."""
    return numbering.sample_number(sample.sample_index)


def score_text(sample: SampleResult) -> str:
    if sample.total is None:
        return "–"
    return f"{sample.total:g}"


def gate_text(sample: SampleResult) -> str:
    if sample.gate_passed is None:
        return "–"
    return "passed" if sample.gate_passed else "failed"


def status_text(sample: SampleResult) -> str:
    return f"{sample.status.value} (settled)" if sample.adjudicated else sample.status.value


def _title(question: Question) -> str:
    """A paraphrase's title says which question it rewords."""
    title = question.title or ""
    return f"(rewords {question.paraphrase_of}) {title}".strip() if question.paraphrase_of else title


class SampleTableModel(QAbstractTableModel):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.samples: list[SampleResult] = []
        self._titles: dict[str, str] = {}
        self._haystacks: list[str] = []

    def set_results(self, results: RunResults | None) -> None:
        self.beginResetModel()
        # the paraphrases' answers too (after the originals'), so any answer can be opened
        self.samples = results.every_sample() if results is not None else []
        self._titles = {q.id: _title(q) for q in results.every_question()} if results is not None else {}
        self._haystacks = [
            " ".join(
                (
                    s.qid,
                    self._titles.get(s.qid, ""),
                    s.model,
                    s.answer_clean or s.answer_raw,
                    s.error,
                    s.unscored_reason,
                )
            ).casefold()
            for s in self.samples
        ]
        self.endResetModel()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self.samples)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        sample = self.samples[index.row()]
        column = index.column()
        if role == SAMPLE_ROLE:
            return sample
        if role == Qt.ItemDataRole.DisplayRole:
            return (
                sample.qid,
                sample.model,
                str(sample_number(sample)),
                score_text(sample),
                gate_text(sample),
                status_text(sample),
            )[column]
        if role == SORT_ROLE:
            if column == 2:
                return sample_number(sample)
            if column == 3:
                return -1.0 if sample.total is None else sample.total
            return self.data(index, Qt.ItemDataRole.DisplayRole)
        if role == Qt.ItemDataRole.ToolTipRole and column == 0:
            return self._titles.get(sample.qid) or None
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (2, 3):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def haystack(self, row: int) -> str:
        return self._haystacks[row]


class SampleFilter(QSortFilterProxyModel):
    """Rows whose question, title, model or answer holds the text, of one model and status."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.text = ""
        self.model_label = ""  # "": every model
        self.status: SampleStatus | None = None
        self.setSortRole(SORT_ROLE)

    def set_filter(self, text: str, model_label: str, status: SampleStatus | None) -> None:
        self.beginFilterChange()
        self.text, self.model_label, self.status = text.strip().casefold(), model_label, status
        self.endFilterChange()

    def filterAcceptsRow(self, source_row: int, source_parent: _Index) -> bool:
        source = self.sourceModel()
        assert isinstance(source, SampleTableModel)
        sample = source.samples[source_row]
        if self.model_label and sample.model != self.model_label:
            return False
        if self.status is not None and sample.status is not self.status:
            return False
        return not self.text or all(word in source.haystack(source_row) for word in self.text.split())
