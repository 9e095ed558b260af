"""WCAG contrast of the theme's text colours (AA: 4.5:1 for text), light and dark, and
colours already drawn follow a switch of theme (unresolved evidence was #B00020 on the
dark #1E1F22: 2.25:1)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtGui import QColor, QPalette, QTextDocument, QTextFormat
from PySide6.QtWidgets import QApplication

from gtreview.core.corpus import LocatorResolution, LocatorStatus, PageText
from gtreview.core.rubric import Evidence
from gtreview.ui.theme import apply_theme
from gtreview.ui.widgets import html
from gtreview.ui.widgets.notice import _kind_colour

AA = 4.5


def contrast(first: str, second: str) -> float:
    """The WCAG 2 contrast ratio of two sRGB colours."""

    def luminance(colour: str) -> float:
        c = QColor(colour)
        linear = [
            v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in (c.redF(), c.greenF(), c.blueF())
        ]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    high, low = sorted((luminance(first), luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_contrast_formula_gives_the_known_ratios() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    assert contrast("#b00020", "#1e1f22") == pytest.approx(2.25, abs=0.01)  # the figure


@pytest.fixture()
def themes(qapp: QApplication) -> Iterator[QApplication]:
    yield qapp
    apply_theme(qapp, "light")


def _drawn_pairs(fragment: str, text: str, base: str) -> list[tuple[str, str, str]]:
    """Each run of text of an HTML fragment as Qt draws it: (text, colour, background);
    a run with no colour of its own is drawn in the palette's text colour."""
    document = QTextDocument()
    document.setHtml(fragment)
    pairs = []
    block = document.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            part = it.fragment()
            if part.isValid() and part.text().strip():
                fmt = part.charFormat()
                ground = fmt.background().color().name() if fmt.background().style().value else base
                own = fmt.hasProperty(QTextFormat.Property.ForegroundBrush)
                pairs.append((part.text().strip()[:20], fmt.foreground().color().name() if own else text, ground))
            it += 1
        block = block.next()
    return pairs


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_text_colour_of_the_theme_reads_at_aa(themes: QApplication, theme: str) -> None:
    apply_theme(themes, theme)
    c, palette = html.colours(), themes.palette()
    window = palette.color(QPalette.ColorRole.Window).name()
    pairs = {
        "text": (c.text, c.base),
        "heading": (c.heading, c.base),
        "muted": (c.muted, c.base),
        "error": (c.error, c.base),
        "error on the window (field findings)": (c.error, window),
        "warning": (c.warning, c.base),
        "warning on the window": (c.warning, window),
        "link": (palette.color(QPalette.ColorRole.Link).name(), c.base),
        "selected row": (
            palette.color(QPalette.ColorRole.HighlightedText).name(),
            palette.color(QPalette.ColorRole.Highlight).name(),
        ),
        **{
            f"{kind} notice": (_kind_colour(kind, palette).name(), window)  # type: ignore[union-attr]
            for kind in ("error", "warning", "success")
        },
    }
    cited_page = html.page_html(PageText(number=1, lines=("context", "the cited line", "after")), {2})
    for words, colour, ground in _drawn_pairs(cited_page, c.text, c.base):
        pairs[f"page text {words!r}"] = (colour, ground)
    low = {name: round(contrast(*pair), 2) for name, pair in pairs.items() if contrast(*pair) < AA}
    assert low == {}


def test_unresolved_evidence_takes_the_new_theme_s_red_when_the_theme_switches(qtbot, themes) -> None:  # type: ignore[no-untyped-def]
    from gtreview.ui.widgets.source_pane import SourcePane

    apply_theme(themes, "light")
    pane = SourcePane()
    qtbot.addWidget(pane)
    unresolved = LocatorResolution(
        source="reports/none.txt", locator="page=99", status=LocatorStatus.UNRESOLVED, reason="no page 99"
    )
    pane.show_evidence([Evidence(claim="A claim", source="reports/none.txt", locator="page=99")], [unresolved])
    apply_theme(themes, "dark")
    ground = html.colours().base
    qtbot.waitUntil(lambda: pane.evidence_list.palette().color(QPalette.ColorRole.Base).name() == ground)
    entry = pane.evidence_list.item(0)
    assert contrast(entry.foreground().color().name(), ground) >= AA


def test_the_editor_s_findings_take_the_new_theme_s_colours(qtbot, sample_window, themes) -> None:  # type: ignore[no-untyped-def]
    editor = sample_window.editor
    editor.load(
        {**editor._content, "gate": {**editor._content.get("gate", {}), "pass_condition": ""}}, same_question=False
    )
    label = next(b.findings for b in editor._bindings if b.widget is editor.pass_condition)
    assert html.colours().error in label.text()
    apply_theme(themes, "dark")
    qtbot.waitUntil(lambda: html.colours().error in label.text())
