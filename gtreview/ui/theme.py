"""Light and dark themes that follow the system's colour scheme (Fusion style)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

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
    QPalette.ColorRole.Highlight: "#3d6fa5",
    QPalette.ColorRole.HighlightedText: "#ffffff",
    QPalette.ColorRole.Link: "#7fb2e5",
    QPalette.ColorRole.PlaceholderText: "#8a8a8a",
}


def is_dark() -> bool:
    return QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark


def apply_theme(app: QApplication) -> None:
    """Fusion with the system's scheme; re-applied when the system switches."""
    app.setStyle("Fusion")
    if is_dark():
        palette = QPalette()
        for role, colour in DARK.items():
            palette.setColor(role, QColor(colour))
        app.setPalette(palette)
    else:
        app.setPalette(app.style().standardPalette())


def follow_system_theme(app: QApplication) -> None:
    apply_theme(app)
    QGuiApplication.styleHints().colorSchemeChanged.connect(lambda _scheme: apply_theme(app))
