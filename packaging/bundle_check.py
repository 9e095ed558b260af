"""Checks of a frozen gtreview from the inside (``GTREVIEW_BUNDLE_CHECK=1 dist/gtreview/gtreview``).

PyInstaller finds imports by reading bytecode, so what a build most often loses is
what is loaded late or by name: modules imported inside functions or through
``importlib``, a native library that ctypes opens by path, data files read through
``__file__``, Qt plugins. The CLI smoke tests in build.sh reach only some of it; each
check here loads one such thing for real and prints one ``ok``/``FAIL`` line.

``GTREVIEW_BUNDLE_CHECK=MODEL.gguf`` also has that model answer two requests (one
grammar-constrained) in a worker process, which proves that ``spawn`` children of the
frozen executable start and that llama.cpp runs in them. build.sh writes a tiny
random-weight model for it with tests/gguf_factory.py.

Runs unfrozen too (``GTREVIEW_BUNDLE_CHECK=1 python packaging/launch.py``), for
development of the checks themselves.
"""

from __future__ import annotations

import importlib
import io
import os
import pkgutil
import sys
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path

# Loaded through Alembic by file path, never imported as modules; the __main__ modules would run the app.
NOT_MODULES = ("gtreview.store.migrations", "gtreview.__main__", "gtreview.cli.__main__")


def check_shipped_data() -> str:
    from gtreview.app.sample_project import sample_rubric_path
    from gtreview.paths import resources_dir, sample_corpus_dir
    from gtreview.store.db import MIGRATIONS_DIR, head_revision

    prompts = sorted(p.name for p in (resources_dir() / "prompts").glob("*.md"))
    assert prompts, f"no prompt templates in {resources_dir() / 'prompts'}"
    assert sample_rubric_path().is_file(), f"missing {sample_rubric_path()}"
    documents = [p for p in sample_corpus_dir().rglob("*") if p.is_file()]
    for name in ("env.py", "script.py.mako"):
        assert (MIGRATIONS_DIR / name).is_file(), f"missing {MIGRATIONS_DIR / name}"
    versions = sorted((MIGRATIONS_DIR / "versions").glob("[0-9]*.py"))
    assert versions, f"no migration scripts in {MIGRATIONS_DIR / 'versions'}"
    return (
        f"{len(prompts)} prompts, {len(documents)} sample corpus files, "
        f"{len(versions)} migrations (head {head_revision()})"
    )


def check_all_modules_import() -> str:
    import gtreview

    names = [
        info.name
        for info in pkgutil.walk_packages(gtreview.__path__, "gtreview.")
        if not info.name.startswith(NOT_MODULES)
    ]
    # Imported by name at run time (importlib), so listed here as well as walked.
    names += ["gtreview.inference.llama.engine", "gtreview.ui.main_window", "gtreview.ui.app"]
    failed = []
    for name in sorted(set(names)):
        try:
            importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001 - every failure is reported
            failed.append(f"{name} ({type(exc).__name__}: {exc})")
    assert not failed, "; ".join(failed)
    assert len(set(names)) > 40, f"only {len(set(names))} gtreview modules found: walk_packages saw too few"
    return f"{len(set(names))} gtreview modules"


def check_lazy_dependencies() -> str:
    # Third-party modules gtreview imports inside functions or that load parts lazily.
    from huggingface_hub import constants, hf_hub_download  # noqa: F401 - lazy attributes
    from huggingface_hub.errors import EntryNotFoundError  # noqa: F401

    names = ("anthropic", "httpx2", "httpx", "pypdf", "gguf", "sqlalchemy.dialects.sqlite", "alembic.op", "jinja2")
    for name in names:
        importlib.import_module(name)
    return ", ".join(("huggingface_hub", *names))


def check_llama_native() -> str:
    import llama_cpp
    import llama_cpp.llama_cpp as native

    info = llama_cpp.llama_print_system_info().decode("utf-8", "replace").strip()
    lib = Path(getattr(native._lib, "_name", "?"))
    assert lib.is_file(), f"llama.cpp library reported at {lib} is not a file"
    return f"llama-cpp-python {llama_cpp.__version__}, {lib.name} from {lib.parent}; {info[:60]}..."


def check_worker_model(model: str) -> str:
    from gtreview.inference.backend import ChatMessage, CompletionRequest, Sampling
    from gtreview.inference.worker import WorkerBackend

    schema = {
        "type": "object",
        "properties": {"verdict": {"enum": ["pass", "fail"]}},
        "required": ["verdict"],
        "additionalProperties": False,
    }
    ask = [ChatMessage(role="user", content="Is there gold in the quartz vein?")]
    requests = [
        CompletionRequest(messages=ask, sampling=Sampling(max_tokens=8)),
        CompletionRequest(messages=ask, sampling=Sampling(max_tokens=32), json_schema=schema),
    ]
    with WorkerBackend(f"llama:{model}?ctx=512&threads=2&seq=2") as backend:
        pid = backend.pid
        results = backend.complete_batch(requests)
    assert pid is not None and pid != os.getpid(), "the model did not run in a child process"
    bad = [r.error for r in results if not r.ok]
    assert not bad, f"worker errors: {bad}"
    return f"2 replies from a worker process (pid {pid}); constrained: {results[1].text.strip()[:40]!r}"


def check_pdf() -> str:
    from pypdf import PdfReader
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen import canvas

    pdfmetrics.registerFont(TTFont("Vera", "Vera.ttf"))  # from reportlab/fonts: its data
    buffer = io.BytesIO()
    page = canvas.Canvas(buffer, pagesize=A4)
    page.setFont("Helvetica-Bold", 12)
    page.drawString(72, 760, "gtreview bundle check")
    page.setFont("Vera", 10)
    page.drawString(72, 740, "oxidised zone 42 m")
    page.save()
    text = PdfReader(io.BytesIO(buffer.getvalue())).pages[0].extract_text()
    assert "bundle check" in text and "oxidised" in text, f"text not read back: {text!r}"
    return f"reportlab PDF with Helvetica and Vera.ttf ({len(buffer.getvalue())} bytes) read back by pypdf"


def check_signatures() -> str:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.generate()
    key.public_key().verify(key.sign(b"manifest"), b"manifest")
    return "Ed25519 sign and verify"


def check_qt() -> str:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QLibraryInfo
    from PySide6.QtGui import QIcon, QImageReader
    from PySide6.QtWidgets import QApplication, QStyleFactory

    app = QApplication.instance() or QApplication([sys.argv[0]])
    plugins = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath))
    wanted = {
        "platforms": ("libqxcb.so", "libqoffscreen.so"),
        "iconengines": ("libqsvgicon.so",),
        "imageformats": ("libqsvg.so", "libqjpeg.so"),
    }
    if sys.platform.startswith("linux"):
        missing = [
            f"{kind}/{name}"
            for kind, names in wanted.items()
            for name in names
            if not (plugins / kind / name).is_file()
        ]
        assert not missing, f"missing Qt plugins under {plugins}: {missing}"
    formats = {bytes(f).decode() for f in QImageReader.supportedImageFormats()}
    assert {"svg", "png", "jpg"} <= formats, f"image formats: {sorted(formats)}"
    assert "Fusion" in QStyleFactory.keys(), QStyleFactory.keys()
    with tempfile.TemporaryDirectory() as tmp:
        svg = Path(tmp) / "mark.svg"
        svg.write_text(
            '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8" fill="#c4553a"/></svg>'
        )
        pixmap = QIcon(str(svg)).pixmap(32, 32)
        assert not pixmap.isNull(), "the SVG icon engine did not render an .svg icon"
    import pyqtgraph as pg

    plot = pg.PlotWidget()
    plot.plot([1, 3, 2])
    plot.resize(200, 120)
    assert not plot.grab().isNull()
    plot.close()
    return f"{app.platformName()} platform, plugins in {plugins}, svg icons, Fusion, pyqtgraph {pg.__version__}"


def screenshot_gui(path: str, argv: list[str]) -> int:
    """Start the app as ``gtreview ARGV`` would, save its biggest window to ``path`` after 3 s, quit.

    Only the CLI contract is used (``gtreview --sample`` opens the main window), not the
    window's own API: the app reuses the QApplication made here and the timer fires in
    its event loop. The exit status is the app's, or 1 when no window could be grabbed.
    """
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from gtreview.cli.main import main

    app = QApplication.instance() or QApplication([sys.argv[0]])
    grabbed: list[str] = []

    def take() -> None:
        windows = [w for w in QApplication.topLevelWidgets() if w.isVisible()]
        if windows:
            window = max(windows, key=lambda w: w.width() * w.height())
            if window.grab().save(path):
                grabbed.append(f"{type(window).__name__} {window.width()}x{window.height()} '{window.windowTitle()}'")
        app.quit()

    QTimer.singleShot(3000, take)
    status = main(argv)
    if not grabbed:
        print(f"screenshot: no visible window to grab (the app exited with {status})", flush=True)
        return 1
    print(f"screenshot: {grabbed[0]} -> {path}", flush=True)
    return status


def run(model: str | None) -> int:
    """Run every check; 0 when all pass. ``model``: a GGUF for the worker-process check."""
    checks: list[tuple[str, Callable[[], str]]] = [
        ("shipped data", check_shipped_data),
        ("gtreview modules", check_all_modules_import),
        ("lazy dependencies", check_lazy_dependencies),
        ("llama.cpp native", check_llama_native),
        ("PDF", check_pdf),
        ("signatures", check_signatures),
        ("Qt", check_qt),
    ]
    if model:
        checks.append(("model in a worker", lambda: check_worker_model(model)))
    frozen = "frozen" if getattr(sys, "frozen", False) else "NOT frozen"
    print(f"bundle check ({frozen}, {sys.executable})", flush=True)
    failures = 0
    for name, check in checks:
        try:
            print(f"  ok    {name}: {check()}", flush=True)
        except Exception as exc:  # noqa: BLE001 - every failure is reported
            failures += 1
            print(f"  FAIL  {name}: {type(exc).__name__}: {exc}", flush=True)
            if os.environ.get("GTREVIEW_DEBUG"):
                traceback.print_exc()
    print(f"bundle check: {len(checks) - failures} passed, {failures} failed", flush=True)
    return 1 if failures else 0
