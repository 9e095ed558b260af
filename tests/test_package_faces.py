"""Module families live in sub-packages with a face, and modules stay readable in size.

A family of modules spelled as a name prefix (``stats_*``) hides what belongs together
and what is internal. Each such family is a sub-package whose ``__init__`` is its face: it
declares ``__all__`` and the rest of the product imports only from it, never from the
modules behind it (tests and benchmarks may reach in: they test the parts).
"""

import ast
from pathlib import Path

from tests.test_architecture import PACKAGE

FACED_PACKAGES = ("gtreview.core.stats", "gtreview.corpus.inventory", "gtreview.inference.llama", "gtreview.store.sets")
FAMILY_SIZE = 3  # this many modules with one name prefix in one folder make a family
MAX_LINES = 400

# Modules over MAX_LINES today, each with the most lines it may keep. The list only
# shrinks: a module may not grow past its figure, and one back under MAX_LINES leaves it.
OVERSIZE = {
    "gtreview/core/stats/raters.py": 778,
    "gtreview/core/validation.py": 568,
    "gtreview/inference/llama/engine.py": 475,
    "gtreview/inference/worker.py": 726,
    "gtreview/report/release.py": 492,
    "gtreview/results/loader.py": 552,
    "gtreview/runs/probes.py": 455,
    "gtreview/ui/ops.py": 453,
    "gtreview/ui/widgets/results_view.py": 420,
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(dotted: str) -> bool:
    path = PACKAGE.parent / dotted.replace(".", "/")
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def reaches_behind_a_face(source: str, here: str) -> list[str]:
    """The imports in ``source`` (module ``here``) of a faced package's modules from outside it."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            targets = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            continue
        for face in FACED_PACKAGES:
            inside = here == face or here.startswith(face + ".")
            behind = [t for t in targets if t.startswith(face + ".") and _is_module(t)]
            if behind and not inside:
                found.append(f"{here} imports {behind[0]} (import from {face})")
    return found


def test_the_product_imports_families_only_through_their_faces() -> None:
    offenders = [
        line
        for path in sorted(PACKAGE.rglob("*.py"))
        for line in reaches_behind_a_face(path.read_text(encoding="utf-8"), _module_name(path))
    ]
    assert offenders == []


def test_the_face_check_catches_a_reach_behind() -> None:
    behind = "from gtreview.core.stats.base import opt\nfrom gtreview.inference.llama import engine\n"
    assert len(reaches_behind_a_face(behind, "gtreview.results.figures")) == 2
    assert reaches_behind_a_face(behind, "gtreview.core.stats.scores") == [
        "gtreview.core.stats.scores imports gtreview.inference.llama.engine (import from gtreview.inference.llama)"
    ]
    through = "from gtreview.core.stats import opt\nfrom gtreview.inference.llama import LlamaBackend\n"
    assert reaches_behind_a_face(through, "gtreview.results.figures") == []


def test_every_face_declares_what_it_offers() -> None:
    for face in FACED_PACKAGES:
        init = PACKAGE.parent / face.replace(".", "/") / "__init__.py"
        tree = ast.parse(init.read_text(encoding="utf-8"))
        declared = [
            node
            for node in tree.body
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets)
        ]
        assert declared, f"{face} has no __all__"
        names = ast.literal_eval(declared[0].value)
        assert names and len(names) == len(set(names)), face


def test_no_module_family_is_spelled_as_a_name_prefix() -> None:
    families = []
    for folder in sorted(p for p in PACKAGE.rglob("*") if (p / "__init__.py").exists()):
        stems = [p.stem for p in folder.glob("*.py") if "_" in p.stem.strip("_")]
        prefixes = {stem.split("_")[0] for stem in stems}
        for prefix in sorted(prefixes):
            members = sorted(s for s in stems if s.split("_")[0] == prefix)
            if len(members) >= FAMILY_SIZE:
                families.append(f"{folder.relative_to(PACKAGE.parent)}: {', '.join(members)}")
    assert families == [], "make each family a sub-package with a face"


def test_modules_keep_to_the_line_guide() -> None:
    sizes = {
        path.relative_to(PACKAGE.parent).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in PACKAGE.rglob("*.py")
    }
    too_long = {path: n for path, n in sizes.items() if n > OVERSIZE.get(path, MAX_LINES)}
    assert too_long == {}, f"split these modules (at most {MAX_LINES} lines, or their OVERSIZE figure)"
    back_under = sorted(path for path in OVERSIZE if sizes.get(path, 0) <= MAX_LINES)
    assert back_under == [], "remove these from OVERSIZE: they are within the guide (or gone)"


def test_the_llama_face_loads_nothing_native_until_a_name_is_used() -> None:
    """Importing the face (as the app's process does through the specs) must not load
    llama.cpp: code built for another CPU may only ever run in a worker."""
    import subprocess
    import sys

    script = (
        "import sys, gtreview.inference.llama as llama, gtreview.inference.specs, gtreview.app.passes\n"
        "print('llama_cpp' in sys.modules)\n"
        "llama.DecodeError\n"
        "print('llama_cpp' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.split() == ["False", "True"]
