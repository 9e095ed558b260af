"""Light and dark themes (Fusion style): the system's colour scheme, or the one chosen in
Preferences. The HTML views and the charts take their colours from the palette set here."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSettings, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPainter, QPalette
from PySide6.QtWidgets import QApplication, QProxyStyle, QStyle, QStyleOption, QWidget

from gtreview.ui.widgets import html

THEME_KEY = "preferences/theme"
THEMES = {"system": "System", "light": "Light", "dark": "Dark"}

DARK = {
    QPalette.ColorRole.Window: "#2b2d30",
    QPalette.ColorRole.WindowText: "#e6e6e6",
    QPalette.ColorRole.Base: "#1e1f22",
    QPalette.ColorRole.AlternateBase: "#26282b",
    QPalette.ColorRole.ToolTipBase: "#3c3f41",
    QPalette.ColorRole.ToolTipText: "#e6e6e6",
    QPalette.ColorRole.Text: "#e6e6e6",
    QPalette.ColorRole.Button: "#35373b",
    QPalette.ColorRole.ButtonText: "#e6e6e6",
    QPalette.ColorRole.BrightText: "#ff7b86",
    QPalette.ColorRole.Highlight: "#3d6fa5",
    QPalette.ColorRole.HighlightedText: "#ffffff",
    QPalette.ColorRole.Link: "#7fb2e5",
    QPalette.ColorRole.LinkVisited: "#b39ddb",
    QPalette.ColorRole.PlaceholderText: "#8a8a8a",
    QPalette.ColorRole.Mid: "#4a4d52",
    QPalette.ColorRole.Midlight: "#3a3d41",
    QPalette.ColorRole.Dark: "#1a1b1e",
    QPalette.ColorRole.Shadow: "#111111",
}
DISABLED = {
    QPalette.ColorRole.WindowText: "#7a7a7a",
    QPalette.ColorRole.Text: "#7a7a7a",
    QPalette.ColorRole.ButtonText: "#7a7a7a",
}


def is_dark() -> bool:
    return QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark


def theme_choice(settings: QSettings) -> str:
    """The theme chosen in Preferences (``system`` when none or an unknown one is stored)."""
    choice = str(settings.value(THEME_KEY, "system") or "system")
    return choice if choice in THEMES else "system"


def dark_palette() -> QPalette:
    palette = QPalette()
    for role, colour in DARK.items():
        palette.setColor(role, QColor(colour))
    for role, colour in DISABLED.items():
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(colour))
    return palette


LIGHT_HIGHLIGHT = "#1f6aa5"  # Fusion's #308cc6 under white text is 3.7:1; this is 5.9:1 (WCAG AA)


def light_palette(standard: QPalette) -> QPalette:
    """Fusion's light palette with a selection dark enough for its white text."""
    palette = QPalette(standard)
    for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
        palette.setColor(group, QPalette.ColorRole.Highlight, QColor(LIGHT_HIGHLIGHT))
    return palette


class OutlinedIndicators(QProxyStyle):
    """Fusion with check boxes and radio buttons outlined in a colour that stands out.

    Fusion outlines them in a shade darker than the window: on a dark window (a menu's
    checkable items, the list's "Has findings") an unchecked box is a dark square on a
    dark ground, not seen at all, and on a light one it is faint (contrast about 1.2)."""

    def drawPrimitive(
        self,
        element: QStyle.PrimitiveElement,
        option: QStyleOption,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        super().drawPrimitive(element, option, painter, widget)
        round_box = element == QStyle.PrimitiveElement.PE_IndicatorRadioButton
        if round_box or element == QStyle.PrimitiveElement.PE_IndicatorCheckBox:
            painter.save()
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(option.palette.color(QPalette.ColorRole.PlaceholderText))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            box = QRectF(option.rect).adjusted(0.5, 0.5, -0.5, -0.5)
            if round_box:
                painter.drawEllipse(box)
            else:
                painter.drawRoundedRect(box, 2.0, 2.0)
            painter.restore()


def apply_theme(app: QApplication, choice: str = "system") -> None:
    """Fusion in the chosen scheme (``system``, ``light`` or ``dark``); every widget is told."""
    dark = is_dark() if choice not in ("light", "dark") else choice == "dark"
    app.setStyle(OutlinedIndicators("Fusion"))
    palette = dark_palette() if dark else light_palette(app.style().standardPalette())
    html.use_palette(palette)  # before the widgets hear of the change and draw again
    app.setPalette(palette)


def follow_system_theme(app: QApplication, settings: QSettings) -> None:
    """The chosen theme now; when it is ``system``, again whenever the system switches."""
    apply_theme(app, theme_choice(settings))

    def switched(_scheme: Qt.ColorScheme) -> None:
        if theme_choice(settings) == "system":
            apply_theme(app, "system")

    QGuiApplication.styleHints().colorSchemeChanged.connect(switched)
