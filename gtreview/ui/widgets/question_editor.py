"""Every field of a question, editable, with the validator's findings beside each field.

Typing validates the pending text at once; the change is committed (saved as a new
version, one undo step) when the field loses focus or the typist pauses, so a crash
loses at most the field being typed. The Id is the exception: a rename is committed only
when the field is left or Return is pressed, never half-typed on a pause.

A reload (the save of an edit, an undo or a redo coming back) leaves the keyboard focus
where it was: keys typed after an undo go on to the field the expert was in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QPoint, QTimer, Signal
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QScrollArea,
    QSpinBox,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from gtreview.core.findings import Finding
from gtreview.core.jsonpath import MISSING, Path, get_at, json_path, set_at
from gtreview.core.validation import validate_question
from gtreview.ui.widgets import html
from gtreview.ui.widgets.fields import (
    Binding,
    ColumnSpec,
    PlainTextField,
    RecordTable,
    components_title,
    findings_label,
    give_focus_back,
    one_line,
)
from gtreview.ui.widgets.undo_keys import route_undo_keys

COMMIT_DELAY_MS = 700
DIFFICULTIES = ("Easy", "Moderate", "Hard")


class QuestionEditor(QScrollArea):
    """Emits ``edit_requested(path, old, new, label)``; the session saves it."""

    edit_requested = Signal(object, object, object, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self._content: dict[str, Any] = {}
        #: the findings shown live: the validator's, and whatever the page adds (the
        #: question controller adds unresolved evidence locators once the corpus is indexed)
        self.checks: Callable[[dict[str, Any]], list[Finding]] = validate_question
        self._bindings: list[Binding] = []
        self._pending: Binding | None = None
        self._timer = QTimer(self, singleShot=True, interval=COMMIT_DELAY_MS)
        self._timer.timeout.connect(self.commit_pending)

        body = QWidget()
        self._layout = QVBoxLayout(body)
        # why the fields cannot be edited (a retired question): readable, not greyed with them
        self.locked_notice = QLabel(wordWrap=True)
        self.locked_notice.setVisible(False)
        self._layout.addWidget(self.locked_notice)
        self.general_findings = findings_label()
        self._layout.addWidget(self.general_findings)
        self._build()
        self._layout.addStretch(1)
        self.setWidget(body)
        self._undo_keys = route_undo_keys(body)

    def set_locked(self, why: str) -> None:
        """Fields editable (``why`` empty), or read-only with ``why`` said above them."""
        self.setEnabled(True)
        self.locked_notice.setText(why)
        self.locked_notice.setVisible(bool(why))
        for position in range(self._layout.count()):
            item = self._layout.itemAt(position)
            widget = item.widget() if item is not None else None
            if widget is not None and widget is not self.locked_notice:
                widget.setEnabled(not why)

    # -- construction -------------------------------------------------------
    def _group(self, title: str) -> QFormLayout:
        box = QGroupBox(title)
        form = QFormLayout(box)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self._layout.addWidget(box)
        return form

    def _bind(self, form: QFormLayout, label: str, path: Path, widget: QWidget, read: Any, write: Any) -> Binding:
        findings = findings_label()
        holder = QWidget()
        column = QVBoxLayout(holder)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(widget)
        column.addWidget(findings)
        form.addRow(label, holder)
        binding = Binding(path, label, widget, read, write, findings, json_path(path))
        self._bindings.append(binding)
        return binding

    def _line(self, form: QFormLayout, label: str, path: Path, *, on_pause: bool = True) -> QLineEdit:
        edit = QLineEdit()
        binding = self._bind(
            form, label, path, edit, lambda: one_line(edit.text()), lambda v: edit.setText("" if v is None else str(v))
        )
        edit.textEdited.connect(lambda _t: self._changed(binding, on_pause=on_pause))
        edit.editingFinished.connect(self.commit_pending)
        return edit

    def _text(
        self, form: QFormLayout, label: str, path: Path, *, lines: bool = False, height: int = 70
    ) -> PlainTextField:
        edit = PlainTextField()
        edit.setMinimumHeight(height)
        if lines:
            binding = self._bind(
                form,
                label,
                path,
                edit,
                lambda: [line.strip() for line in edit.toPlainText().splitlines() if line.strip()],
                lambda v: edit.setPlainText("\n".join(str(x) for x in v) if isinstance(v, list) else ""),
            )
            edit.setPlaceholderText("one item per line")
        else:
            binding = self._bind(
                form, label, path, edit, edit.toPlainText, lambda v: edit.setPlainText("" if v is None else str(v))
            )
        edit.textChanged.connect(lambda: self._changed(binding) if edit.hasFocus() else None)
        edit.focus_lost.connect(self.commit_pending)
        return edit

    def _table(self, form: QFormLayout, label: str, path: Path, table: RecordTable) -> RecordTable:
        binding = self._bind(
            form, label, path, table, table.records, lambda v: table.set_records(v if isinstance(v, list) else [])
        )
        table.edited.connect(lambda: self._commit(binding))
        return table

    def _build(self) -> None:
        form = self._group("Question")
        self.id_edit = self._line(form, "Id", ("id",), on_pause=False)  # a rename waits for Return or Tab
        self.section_edit = self._line(form, "Section", ("section",))
        self.title_edit = self._line(form, "Title", ("title",))
        self.type_edit = self._line(form, "Type", ("type",))
        self.mode_edit = self._line(form, "Mode", ("mode",))
        self.difficulty = QComboBox(editable=True)
        self.difficulty.addItems(DIFFICULTIES)
        difficulty = self._bind(
            form,
            "Difficulty",
            ("difficulty",),
            self.difficulty,
            self.difficulty.currentText,
            lambda v: self.difficulty.setCurrentText("" if v is None else str(v)),
        )
        self.difficulty.activated.connect(lambda _i: self._commit(difficulty))
        self.question_edit = self._text(form, "Question", ("question",), height=90)
        self.answer_edit = self._text(form, "Model answer", ("model_answer",), height=120)
        self.principle_edit = self._text(form, "Principle", ("principle",))

        form = self._group("Gate (C1)")
        self.gate_points = QSpinBox(minimum=0, maximum=10)
        gate_points = self._bind(
            form,
            "Points",
            ("gate", "points"),
            self.gate_points,
            self.gate_points.value,
            lambda v: self.gate_points.setValue(v if isinstance(v, int) else 0),
        )
        self.gate_points.editingFinished.connect(lambda: self._commit(gate_points))
        self.pass_condition = self._text(form, "Pass condition", ("gate", "pass_condition"))
        self.fail_examples = self._text(form, "Fail examples", ("gate", "fail_examples"), lines=True)

        form = self._group(components_title([]))
        self.components_box = form.parentWidget()
        self.components = self._table(
            form,
            "Components",
            ("components",),
            RecordTable(
                [
                    ColumnSpec("id", "Id"),
                    ColumnSpec("points", "Points", "number"),
                    ColumnSpec("is_gate", "Gate", "bool"),
                    ColumnSpec("credit_if", "Credit if"),
                ],
                lambda n: {"id": f"C{n + 1}", "points": 1, "is_gate": False, "credit_if": ""},
            ),
        )

        form = self._group("Concepts and variants")
        self.required = self._text(form, "Required concepts", ("required_concepts",), lines=True)
        self.variants = self._table(
            form,
            "Accepted variants",
            ("accepted_variants",),
            RecordTable(
                [
                    ColumnSpec("canonical", "Canonical"),
                    ColumnSpec("accepted_variants", "Accepted variants"),
                    ColumnSpec("note", "Note"),
                ],
                lambda _n: {"canonical": "", "accepted_variants": ""},
            ),
        )
        self.variant_lines = self._text(form, "Accepted variants (text)", ("accepted_variants",), lines=True)
        self.indicative = self._text(form, "Indicative terms", ("indicative_terms",), lines=True)
        self.do_not_credit = self._text(form, "Do not credit", ("do_not_credit",), lines=True, height=90)

        form = self._group("Evidence")
        self.evidence = self._table(
            form,
            "Evidence",
            ("evidence",),
            RecordTable(
                [
                    ColumnSpec(k, k.capitalize())
                    for k in ("claim", "source", "locator", "authority", "confidence", "notes")
                ],
                lambda _n: {"claim": "", "source": "", "locator": "", "authority": "primary", "confidence": "HIGH"},
            ),
        )

    def changeEvent(self, event: QEvent) -> None:
        """A new theme: the findings are written again in its colours."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self._content:
            self._show_checks()

    # -- loading and validation --------------------------------------------
    def load(self, content: dict[str, Any], *, same_question: bool = False) -> None:
        """Show ``content`` (the saved version) without emitting edits.

        When it is a refresh of the question being edited, the field still being
        typed in keeps its text and its pending commit.
        """
        if not same_question:
            self.commit_pending()
        elif content == self._content:
            self._show_checks()  # what was just saved is what the fields show: only the findings
            return
        self._content = content
        self._keep_focus(QApplication.focusWidget())
        string_variants = any(isinstance(v, str) for v in content.get("accepted_variants") or [])
        self._row_visible(self.variants, not string_variants)
        self._row_visible(self.variant_lines, string_variants)
        for binding in self._bindings:
            if binding is self._pending or (
                binding.widget.hasFocus() and binding.read() == get_at(content, binding.path)
            ):
                continue  # do not move the cursor of the field being typed in
            binding.widget.blockSignals(True)
            binding.write(get_at(content, binding.path))
            binding.widget.blockSignals(False)
        self._show_checks()
        if not same_question:  # another question starts at its top, tables at their first column
            self.verticalScrollBar().setValue(0)
            for table in self.findChildren(QTableWidget):
                table.horizontalScrollBar().setValue(0)
                table.verticalScrollBar().setValue(0)

    def _keep_focus(self, focused: QWidget | None) -> None:
        """After this reload, the focus goes back to ``focused`` (a field of the form) if
        anything moved it: to the table whose cell editor closed, never to the Id."""
        body = self.widget()
        if focused is None or body is None or not body.isAncestorOf(focused):
            return
        owner = next((b.widget for b in self._bindings if b.widget is focused or b.widget.isAncestorOf(focused)), None)
        give_focus_back(body, focused, owner.table if isinstance(owner, RecordTable) else owner)

    def clear(self) -> None:
        """No question: every field empty, no findings (what was being typed is committed first)."""
        self.commit_pending()
        self._content = {}
        for binding in self._bindings:
            binding.widget.blockSignals(True)
            binding.write(None)
            binding.widget.blockSignals(False)
        self.show_findings([])

    def _show_checks(self) -> None:
        """The findings of what the fields show: the saved content with the pending field's text."""
        pending = self._pending
        shown = set_at(self._content, pending.path, pending.read()) if pending is not None else self._content
        if isinstance(self.components_box, QGroupBox):
            self.components_box.setTitle(components_title(shown.get("components")))
        self.show_findings(self.checks(shown))

    def _row_visible(self, widget: QWidget, visible: bool) -> None:
        binding = next(b for b in self._bindings if b.widget is widget)
        holder = widget.parentWidget()
        box = holder.parentWidget() if holder is not None else None
        form = box.layout() if box is not None else None
        if holder is not None and isinstance(form, QFormLayout):
            form.setRowVisible(holder, visible)
        binding.widget.setEnabled(visible)

    def show_findings(self, findings: list[Finding]) -> None:
        focused, body = QApplication.focusWidget(), self.widget()
        inside = focused is not None and body is not None and body.isAncestorOf(focused)
        before = focused.mapTo(body, QPoint(0, 0)).y() if inside and focused is not None and body is not None else None
        self._show_findings(findings)
        if focused is not None and before is not None:  # the field being typed in stays where it is on screen
            QTimer.singleShot(0, lambda: self._keep_in_place(focused, before))

    def _keep_in_place(self, widget: QWidget, before: int) -> None:
        body = self.widget()
        if body is not None and body.isAncestorOf(widget):
            layout = body.layout()
            if layout is not None:
                layout.activate()  # the findings just shown have their places now
            bar = self.verticalScrollBar()
            bar.setValue(bar.value() + widget.mapTo(body, QPoint(0, 0)).y() - before)
            typed = next((b for b in self._bindings if b.widget is widget or b.widget.isAncestorOf(widget)), None)
            if typed is not None and typed.findings.isVisible():  # its finding in view, below it
                self.ensureWidgetVisible(typed.findings, 0, 4)

    def _show_findings(self, findings: list[Finding]) -> None:
        shown: set[int] = set()
        for binding in self._bindings:
            if binding.widget.isEnabled():
                binding.show_findings(findings)
                shown.update(id(f) for f in findings if binding.matches(f))
        rest = [f for f in findings if id(f) not in shown]
        self.general_findings.setVisible(bool(rest))
        self.general_findings.setText(
            "<br>".join(f"<span style='color:{html.colours().error}'>● {f.path}: {f.message}</span>" for f in rest)
        )

    # -- edits ---------------------------------------------------------------
    def _changed(self, binding: Binding, *, on_pause: bool = True) -> None:
        """Live validation of what is being typed; the commit waits for a pause (or, not
        ``on_pause``, for the field to be left)."""
        if self._pending is not None and self._pending is not binding:
            self.commit_pending()
        self._pending = binding
        self._show_checks()
        if on_pause:
            self._timer.start()
        else:
            self._timer.stop()

    def _field(self, path: Path) -> Binding | None:
        return next((b for b in self._bindings if b.path == path and b.widget.isEnabled()), None)

    def shows_field(self, path: Path) -> bool:
        return self._field(path) is not None

    def keep_unsaved(self, path: Path, value: Any) -> bool:
        """Put back ``value`` (an edit that was refused) in its field, pending: a reload
        leaves it there, and it is saved when the field is committed again. False when
        no field shows ``path``."""
        binding = self._field(path)
        if binding is None:
            return False
        if self._pending is not None and self._pending is not binding:
            self.commit_pending()
        binding.widget.blockSignals(True)
        binding.write(value)
        binding.widget.blockSignals(False)
        self._pending = binding  # no timer: it waits for the expert, who has just been told
        self._show_checks()
        return True

    def commit_pending(self) -> None:
        self._timer.stop()
        binding, self._pending = self._pending, None
        if binding is not None:
            self._commit(binding)

    def _commit(self, binding: Binding) -> None:
        old = get_at(self._content, binding.path, MISSING)
        new = binding.read()
        if old == new or (old is MISSING and new in ("", [], None)):
            return
        self._content = set_at(self._content, binding.path, new)
        self.edit_requested.emit(binding.path, old, new, f"edit {binding.label.lower()}")
        self._show_checks()  # at once, not when the save comes back
