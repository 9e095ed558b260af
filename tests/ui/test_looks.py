"""Layout and looks: long messages never widen the window, live validation keeps the field
being typed in place, and the HTML views, charts and theme choice follow the palette."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QLabel

from gtreview.core.corpus import PageText
from gtreview.core.findings import Finding, Severity
from gtreview.ui.theme import DARK, THEME_KEY, apply_theme
from gtreview.ui.widgets import html
from tests.ui.test_runs_ui import CONFIG, scripted_open
from tests.ui.waiting import settle

LONG = ("A pass failed: " + "the judge at http://judge.example/v1 refused the request " * 40)[:1900] + "x" * 100


@pytest.fixture()
def light_after(qapp: QApplication) -> Iterator[QApplication]:
    """The test may switch the theme; every later test starts light again."""
    yield qapp
    apply_theme(qapp, "light")


def _message_labels(window) -> list[QLabel]:  # type: ignore[no-untyped-def]
    """Every label that shows a message, a result or a finding (not the fixed field names)."""
    view = window.results_view
    labels = [
        view.status,
        view.finding,
        view.samples.count,
        window.runs_view.phase,
        window.fixtures.role,
        window.fixtures.sum_label,
        window.fixtures.findings,
        window.editor.general_findings,
        window.source_pane.page_label,
        window.corpus_view.summary,
        window.status_label,
    ]
    return [label for label in labels if isinstance(label, QLabel)]


def _widest(window) -> list[str]:  # type: ignore[no-untyped-def]
    """The widgets that ask for more than the screen: what a failure names."""
    from PySide6.QtWidgets import QWidget

    return [
        f"{type(w).__name__}:{w.objectName()}:{w.minimumSizeHint().width()}"
        for w in window.findChildren(QWidget)
        if w.minimumSizeHint().width() > 1280
    ][-6:]


def test_long_messages_never_widen_the_window(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    window.run_controller.open_backend = scripted_open(window)
    with qtbot.waitSignal(window.run_controller.finished, timeout=20000):
        window.start_configured_pass(CONFIG)
    settle(qtbot, window)
    window.show_results(1)
    qtbot.waitUntil(lambda: window.pages.currentWidget() is window.results_view, timeout=20000)
    settle(qtbot, window)
    labels = _message_labels(window)
    assert len(labels) >= 10
    for number, label in enumerate(labels):
        label.setObjectName(label.objectName() or f"label{number}")
    pages = [window.work_splitter, window.runs_view, window.results_view, window.corpus_view]
    for page in pages:
        window.pages.setCurrentWidget(page)
        for tab in range(window.tabs.count()) if page is window.work_splitter else [None]:
            if tab is not None:
                window.tabs.setCurrentIndex(tab)
            window.statusBar().showMessage(LONG)
            for label in labels:
                label.setText(LONG)
                label.setVisible(True)
                QApplication.processEvents()
                hint = window.minimumSizeHint()
                where = f"{type(page).__name__} tab {tab}: {type(label.parent()).__name__}.{label.objectName()}"
                assert hint.width() <= 1280 and hint.height() <= 720, (where, hint, _widest(window))
                assert window.width() <= 1600, where
    window.resize(1280, 720)
    qtbot.waitUntil(lambda: window.size().toTuple() == (1280, 720), timeout=5000)
    assert window.results_view.status.text() == LONG  # shortened on screen, whole in the text and tooltip
    window.pages.setCurrentWidget(window.results_view)
    QApplication.processEvents()
    assert window.results_view.status.toolTip() == LONG


def test_live_validation_keeps_the_field_being_typed_in_place(qtbot, sample_window) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    window.resize(1280, 720)
    window.tabs.setCurrentWidget(window.editor)
    editor = window.editor
    field = editor.pass_condition
    editor.ensureWidgetVisible(field)
    field.setFocus()
    qtbot.waitUntil(field.hasFocus, timeout=5000)
    before = field.mapTo(editor.viewport(), field.rect().topLeft()).y()
    findings = [
        Finding(code=f"X{n}", severity=Severity.ERROR, question_id="A1", path="$.x_elsewhere", message="m " * 30)
        for n in range(25)
    ]
    editor.show_findings(findings)
    assert editor.general_findings.isVisible()
    qtbot.waitUntil(lambda: abs(field.mapTo(editor.viewport(), field.rect().topLeft()).y() - before) <= 2, timeout=3000)


def _css(style: str, selector: str) -> dict[str, str]:
    body = re.search(rf"(?m)^{re.escape(selector)} \{{([^}}]*)\}}", style)
    assert body is not None, selector
    return dict(
        (k.strip(), v.strip()) for k, v in (item.split(":", 1) for item in body.group(1).split(";") if ":" in item)
    )


def _contrast(first: str, second: str) -> float:
    def luminance(colour: str) -> float:
        c = QColor(colour)
        channels = []
        for value in (c.redF(), c.greenF(), c.blueF()):
            channels.append(value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4)
        return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]

    high, low = sorted((luminance(first), luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_html_colours_follow_a_dark_palette(light_after: QApplication) -> None:
    apply_theme(light_after, "dark")
    palette = light_after.palette()
    base, text = palette.color(QPalette.ColorRole.Base).name(), palette.color(QPalette.ColorRole.Text).name()
    assert base == DARK[QPalette.ColorRole.Base]
    page = PageText(number=1, lines=("first line", "cited line", "third"))
    fragment = html.page_html(page, {2})
    style = fragment[: fragment.index("</style>")]
    assert _css(style, "body")["color"] == text
    for selector in (".cited", ".gate", "th"):  # highlights, the gate box, table key cells
        rules = _css(style, selector)
        assert rules["color"] == text, selector
        assert QColor(rules["background"]).lightness() < 110, selector  # no light background in the dark
        assert _contrast(rules["background"], text) >= 4.5, selector
    assert _contrast(_css(style, "h3")["color"], base) >= 4.5  # headings readable on the dark base
    assert "<span class='cited'>" in fragment
    apply_theme(light_after, "light")
    light = html.style()
    assert QColor(_css(light, ".cited")["background"]).lightness() > 180
    assert _css(light, "body")["color"] == light_after.palette().color(QPalette.ColorRole.Text).name()


def test_views_and_charts_redraw_in_the_new_palette(qtbot, light_after: QApplication) -> None:  # type: ignore[no-untyped-def]
    from gtreview.ui.widgets.results_view import ResultsView
    from gtreview.ui.widgets.screen_fit import legend_html

    browser = html.HtmlBrowser()
    qtbot.addWidget(browser)
    page = PageText(number=1, lines=("a", "b"))
    browser.setHtml(html.page_html(page, {1}))
    view = ResultsView()
    qtbot.addWidget(view)
    view.legend.setText(legend_html(["base", "lora"]))  # the models' legend, made in the light theme
    apply_theme(light_after, "dark")
    QApplication.processEvents()
    # only the swatches are coloured: the names are in the theme's text colour, not black on dark
    names = [part.split("</span>")[-1] for part in view.legend.text().split("&nbsp;&nbsp;&nbsp;")]
    assert names == ["&nbsp;base", "&nbsp;lora"]
    text = light_after.palette().color(QPalette.ColorRole.WindowText)
    assert view.legend.palette().color(QPalette.ColorRole.WindowText) == text
    dark = html.colours()
    assert dark.dark and dark.cited in browser.toHtml()  # the shown page took the dark highlight
    base = light_after.palette().color(QPalette.ColorRole.Base)
    for plot in (view.distribution, view.scatter, view.pairwise):
        assert plot.backgroundBrush().color() == base  # charts are not left white
    apply_theme(light_after, "light")
    QApplication.processEvents()
    assert view.scatter.backgroundBrush().color() == light_after.palette().color(QPalette.ColorRole.Base)
    assert html.colours().cited in browser.toHtml()


def test_theme_chosen_in_preferences_is_saved_and_applied_at_once(qtbot, settings, light_after) -> None:  # type: ignore[no-untyped-def]
    from gtreview.ui.dialogs.preferences import PreferencesDialog
    from gtreview.ui.theme import theme_choice

    dialog = PreferencesDialog(settings)
    qtbot.addWidget(dialog)
    assert [dialog.theme.itemText(i) for i in range(dialog.theme.count())] == ["System", "Light", "Dark"]
    dialog.theme.setCurrentIndex(dialog.theme.findData("dark"))
    dialog._save()
    assert settings.value(THEME_KEY) == "dark" and theme_choice(settings) == "dark"
    assert light_after.palette().color(QPalette.ColorRole.Base).name() == DARK[QPalette.ColorRole.Base]
    again = PreferencesDialog(settings)
    qtbot.addWidget(again)
    assert again.theme.currentData() == "dark"


def test_the_window_never_opens_larger_than_its_screen(qtbot) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtWidgets import QWidget

    from gtreview.ui.app import fit_to_screen

    window = QWidget()  # the main window fits 1280x720 (its minimum is tested above); the rule itself:
    qtbot.addWidget(window)
    window.resize(3000, 2000)  # a size saved on a large monitor
    fit_to_screen(window)
    screen = window.screen().availableGeometry().size()
    assert (window.width(), window.height()) == (min(3000, screen.width()), min(2000, screen.height()))
    window.show()
    window.resize(600, 500)
    window.move(screen.width() - 300, screen.height() - 100)  # half off the screen, the status bar below it
    fit_to_screen(window)
    frame, available = window.frameGeometry(), window.screen().availableGeometry()
    assert available.contains(frame), (frame, available)


def test_an_unchecked_box_stands_out_on_a_dark_window(qtbot, light_after: QApplication) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtWidgets import QCheckBox

    def darkest_contrast_of_the_box(box: QCheckBox) -> float:
        """The strongest contrast between the window and any pixel of the box's indicator."""
        image = box.grab().toImage()
        window = box.palette().color(QPalette.ColorRole.Window).name()
        side = min(image.height(), 20)
        pixels = {QColor(image.pixel(x, y)).name() for x in range(side) for y in range(side)}
        return max(_contrast(window, colour) for colour in pixels)

    apply_theme(light_after, "dark")
    box = QCheckBox("Has findings")
    qtbot.addWidget(box)
    box.show()
    dark_contrast = darkest_contrast_of_the_box(box)
    apply_theme(light_after, "light")
    light_contrast = darkest_contrast_of_the_box(box)
    assert dark_contrast >= 2.5  # the outline is seen (Fusion's own: about 1.2, on either window)
    assert light_contrast >= 2.5


def test_unresolved_evidence_is_read_in_the_dark_theme(qtbot, light_after: QApplication) -> None:  # type: ignore[no-untyped-def]
    from gtreview.core.corpus import LocatorResolution, LocatorStatus
    from gtreview.core.rubric import Evidence
    from gtreview.ui.widgets.source_pane import SourcePane

    apply_theme(light_after, "dark")
    pane = SourcePane()
    qtbot.addWidget(pane)
    item = Evidence(
        claim="A claim", source="reports/none.txt", locator="page=99", authority="primary", confidence="HIGH"
    )
    unresolved = LocatorResolution(
        source="reports/none.txt", locator="page=99", status=LocatorStatus.UNRESOLVED, reason="no page 99"
    )
    pane.show_evidence([item], [unresolved])
    entry = pane.evidence_list.item(0)
    ground = pane.evidence_list.palette().color(QPalette.ColorRole.Base).name()
    assert _contrast(entry.foreground().color().name(), ground) >= 4.5  # WCAG AA for text


def _line_backgrounds(view: object) -> dict[str, str]:
    """Each diff line's background as drawn by the highlighter (no format: none)."""
    from gtreview.ui.widgets.history_view import HistoryView

    assert isinstance(view, HistoryView)
    out: dict[str, str] = {}
    block = view.diff.document().firstBlock()
    while block.isValid():
        ranges = block.layout().formats()
        brush = ranges[0].format.background() if ranges else None
        out[block.text()] = (
            brush.color().name() if brush is not None and brush.style() != Qt.BrushStyle.NoBrush else "none"
        )
        block = block.next()
    return out


def test_history_diff_marks_added_and_removed_lines_in_the_themes_tints(  # type: ignore[no-untyped-def]
    qtbot, light_after: QApplication
) -> None:
    from gtreview.ui.widgets.history_view import HistoryView

    view = HistoryView()
    qtbot.addWidget(view)
    view.diff.setPlainText('--- A1 v1\n+++ A1 v2\n@@ -1 +1 @@\n-  "title": "old"\n+  "title": "new"\n   same')
    light = _line_backgrounds(view)
    assert light['+  "title": "new"'] == html.colours().added_back
    assert light['-  "title": "old"'] == html.colours().removed_back
    assert light["   same"] == "none" and light["+++ A1 v2"] == "none"  # the file header is bold, not tinted
    apply_theme(light_after, "dark")
    QApplication.processEvents()
    dark = _line_backgrounds(view)
    assert dark['+  "title": "new"'] == html.colours().added_back != light['+  "title": "new"']
    assert QColor(dark['+  "title": "new"']).lightness() < 110  # a dark tint on the dark ground
