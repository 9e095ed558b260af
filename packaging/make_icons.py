"""Render packaging/icons/gtreview.svg to the PNG, ICO and ICNS files installers need.

Qt's own SVG renderer draws every size from the vector (no blurry downscales of one
big bitmap), so what ships is what Qt would draw at run time. Output, under
``packaging/build/icons/`` (generated, never committed):

    hicolor/<N>x<N>/apps/gtreview.png      freedesktop theme layout, N in SIZES
    hicolor/<N>x<N>@2/apps/gtreview.png    the same at twice the pixels (HiDPI)
    hicolor/scalable/apps/gtreview.svg     the source, for themes that take SVG
    gtreview-<N>.png, gtreview-<N>@2x.png  flat copies
    gtreview.iconset/                      macOS: ``iconutil -c icns gtreview.iconset``
    gtreview.ico                           Windows (Pillow; skipped without it)
    gtreview.icns                          macOS (Pillow; skipped without it)

Usage: ``python packaging/make_icons.py [--svg FILE] [--out DIR]``. Needs PySide6
(QtSvg); Pillow is optional (reportlab depends on it, so the app's venv has it).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)  # the ICO format stops at 256
ICONSET = {  # macOS iconset names -> pixels
    "icon_16x16.png": 16,
    "icon_16x16@2x.png": 32,
    "icon_32x32.png": 32,
    "icon_32x32@2x.png": 64,
    "icon_128x128.png": 128,
    "icon_128x128@2x.png": 256,
    "icon_256x256.png": 256,
    "icon_256x256@2x.png": 512,
    "icon_512x512.png": 512,
    "icon_512x512@2x.png": 1024,
}


def render_all(svg: Path, out: Path) -> dict[int, Path]:
    """Render ``svg`` at every size needed; returns pixel size -> flat PNG path."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # no display needed
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"make_icons: {svg} is not a valid SVG for Qt")

    pixels = sorted(set(SIZES) | {2 * s for s in SIZES} | set(ICONSET.values()))
    flat: dict[int, Path] = {}
    for px in pixels:
        image = QImage(px, px, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        renderer.render(painter)
        painter.end()
        path = out / f"gtreview-{px}.png"
        if not image.save(str(path), "PNG"):
            raise SystemExit(f"make_icons: could not write {path}")
        flat[px] = path
    return flat


def lay_out(svg: Path, out: Path, flat: dict[int, Path]) -> None:
    for size in SIZES:
        for suffix, px in (("", size), ("@2", 2 * size)):
            target = out / "hicolor" / f"{size}x{size}{suffix}" / "apps" / "gtreview.png"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(flat[px], target)
        shutil.copyfile(flat[2 * size], out / f"gtreview-{size}@2x.png")
    scalable = out / "hicolor" / "scalable" / "apps" / "gtreview.svg"
    scalable.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(svg, scalable)
    iconset = out / "gtreview.iconset"
    iconset.mkdir(exist_ok=True)
    for name, px in ICONSET.items():
        shutil.copyfile(flat[px], iconset / name)


def write_ico_icns(out: Path, flat: dict[int, Path]) -> list[str]:
    """The Windows .ico and macOS .icns, or a note of why they were skipped."""
    try:
        from PIL import Image
    except ImportError:
        return ["Pillow is not installed: skipped gtreview.ico and gtreview.icns (pip install pillow)"]
    notes: list[str] = []
    images = {px: Image.open(path).convert("RGBA") for px, path in flat.items()}
    largest = images[256]
    largest.save(
        out / "gtreview.ico",
        format="ICO",
        sizes=[(s, s) for s in ICO_SIZES],
        append_images=[images[s] for s in ICO_SIZES if s != 256],
    )
    try:
        images[1024].save(
            out / "gtreview.icns", format="ICNS", append_images=[images[s] for s in (32, 64, 128, 256, 512)]
        )
    except (KeyError, OSError, ValueError) as exc:  # older Pillow without an ICNS writer
        notes.append(f"skipped gtreview.icns ({exc}); on macOS use: iconutil -c icns gtreview.iconset")
    return notes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--svg", type=Path, default=HERE / "icons" / "gtreview.svg")
    parser.add_argument("--out", type=Path, default=HERE / "build" / "icons")
    args = parser.parse_args(argv)
    out: Path = args.out
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    flat = render_all(args.svg, out)
    lay_out(args.svg, out, flat)
    notes = write_ico_icns(out, flat)
    for note in notes:
        print(f"make_icons: {note}")
    extras = [name for name in ("gtreview.ico", "gtreview.icns", "gtreview.iconset") if (out / name).exists()]
    print(f"make_icons: {len(flat)} sizes ({min(flat)} to {max(flat)} px), hicolor/, {', '.join(extras)} in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
