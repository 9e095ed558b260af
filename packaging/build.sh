#!/usr/bin/env bash
# Build the one-folder desktop app from a checkout and smoke-test it headless.
#
#   packaging/build.sh [--reuse-venv] [--no-smoke]
#
#   1. a fresh venv in packaging/build/venv with `pip install '.[packaging]'` (not
#      editable: the spec must see gtreview as an installed package with its data);
#      --reuse-venv keeps an existing one (and reinstalls gtreview into it)
#   2. icons: packaging/make_icons.py -> packaging/build/icons/
#   3. PyInstaller with packaging/gtreview.spec -> packaging/dist/gtreview/
#   4. smoke tests of the built app, offscreen, in a throwaway HOME/XDG tree:
#      --version; the in-bundle checks (bundle_check.py, with a tiny random GGUF model
#      answering in a worker process); the GUI on a fresh sample project, which must
#      still be running after 5 s, and a screenshot of its main window
#      (packaging/build/smoke/gui-sample.png); `rubric validate` on the bundled sample
#      rubric; `corpus list`/`corpus import` on a new project
#
# Exits non-zero as soon as a step fails. Environment: PYTHON (default python3, 3.11+).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PKG="$ROOT/packaging"
BUILD="$PKG/build"
DIST="$PKG/dist"
APP="$DIST/gtreview"
VENV="$BUILD/venv"
PYTHON="${PYTHON:-python3}"
REUSE_VENV=0
SMOKE=1
for arg in "$@"; do
    case "$arg" in
        --reuse-venv) REUSE_VENV=1 ;;
        --no-smoke) SMOKE=0 ;;
        -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "build.sh: unknown option $arg" >&2; exit 2 ;;
    esac
done

START=$SECONDS
TIMINGS=()
STEP_NAME=""
STEP_START=0
step() {
    finish_step
    STEP_NAME="$1"
    STEP_START=$SECONDS
    printf '\n==> %s\n' "$STEP_NAME"
}
finish_step() {
    if [[ -n "$STEP_NAME" ]]; then
        TIMINGS+=("$(printf '%5ds  %s' $((SECONDS - STEP_START)) "$STEP_NAME")")
    fi
    STEP_NAME=""
}
fail() {
    echo "build.sh: FAILED: $*" >&2
    exit 1
}
# pip's config on some machines names local index folders that lack most packages;
# its warnings about them are noise here.
quiet_pip() { "$@" 2> >(grep -v "is ignored: it is neither a file nor a directory" >&2); }

cd "$ROOT"

# -- 1. build environment ------------------------------------------------------------
step "venv: pip install '.[packaging]' into packaging/build/venv"
if [[ $REUSE_VENV == 0 || ! -x "$VENV/bin/python" ]]; then
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -c 'import sys; assert sys.version_info >= (3, 11), sys.version' \
    || fail "gtreview needs Python 3.11+ (set PYTHON=...)"
quiet_pip "$VENV/bin/python" -m pip install -q --upgrade pip
# --force-reinstall --no-deps on reuse: the checkout may have changed since the venv was made.
if [[ $REUSE_VENV == 1 ]]; then
    quiet_pip "$VENV/bin/python" -m pip install -q '.[packaging]'
    quiet_pip "$VENV/bin/python" -m pip install -q --force-reinstall --no-deps .
else
    quiet_pip "$VENV/bin/python" -m pip install -q '.[packaging]'
fi
# From here on, work outside the checkout: with the checkout as the current folder,
# Python would import its gtreview/ rather than the installed one.
mkdir -p "$BUILD"
cd "$BUILD"
"$VENV/bin/python" - <<'EOF' || fail "gtreview is not installed as a regular package in the build venv"
import gtreview, pathlib, sys
where = pathlib.Path(gtreview.__file__).resolve()
assert "site-packages" in where.parts, f"gtreview imports from {where}, not from the venv's site-packages"
print(f"gtreview {gtreview.__version__} from {where.parent}; python {sys.version.split()[0]}")
EOF

# -- 2. icons ------------------------------------------------------------------------
step "icons: packaging/make_icons.py"
QT_QPA_PLATFORM=offscreen "$VENV/bin/python" "$PKG/make_icons.py"

# -- 3. PyInstaller ------------------------------------------------------------------
step "PyInstaller: packaging/gtreview.spec"
"$VENV/bin/pyinstaller" --noconfirm --clean --log-level WARN \
    --distpath "$DIST" --workpath "$BUILD/pyinstaller" "$PKG/gtreview.spec"
[[ -x "$APP/gtreview" ]] || fail "no executable at $APP/gtreview"

# -- 4. smoke tests ------------------------------------------------------------------
if [[ $SMOKE == 1 ]]; then
    step "smoke tests (offscreen, throwaway HOME)"
    SMOKE_DIR="$(mktemp -d "${TMPDIR:-/tmp}/gtreview-smoke.XXXXXX")"
    trap 'rm -rf "$SMOKE_DIR"' EXIT
    export HOME="$SMOKE_DIR/home"
    export XDG_DATA_HOME="$SMOKE_DIR/data" XDG_CONFIG_HOME="$SMOKE_DIR/config"
    export XDG_CACHE_HOME="$SMOKE_DIR/cache" XDG_STATE_HOME="$SMOKE_DIR/state"
    export XDG_RUNTIME_DIR="$SMOKE_DIR/runtime"
    export QT_QPA_PLATFORM=offscreen
    export HF_HUB_OFFLINE=1
    mkdir -p "$HOME" "$XDG_RUNTIME_DIR"
    chmod 700 "$XDG_RUNTIME_DIR"
    unset GTREVIEW_DEBUG PYTHONPATH PYTHONHOME
    GTR="$APP/gtreview"
    BUNDLED_RUBRIC="$APP/_internal/gtreview/sample_corpus/benchmark/Sample_goldfield_grading_key.json"
    PASSED=0

    echo "-- gtreview --version"
    version_out="$("$GTR" --version)" || fail "--version exited $?"
    expected="gtreview $("$VENV/bin/python" -c 'import gtreview; print(gtreview.__version__)')"
    [[ "$version_out" == "$expected" ]] || fail "--version printed '$version_out', expected '$expected'"
    echo "$version_out"
    PASSED=$((PASSED + 1))

    echo "-- in-bundle checks (GTREVIEW_BUNDLE_CHECK)"
    model="1"
    if [[ -f "$ROOT/tests/gguf_factory.py" ]]; then
        model="$SMOKE_DIR/tiny-random-llama.gguf"
        PYTHONPATH="$ROOT" "$VENV/bin/python" -c \
            "import sys; from tests.gguf_factory import write_tiny_llama_gguf; write_tiny_llama_gguf(sys.argv[1])" \
            "$model" || fail "could not write the tiny test model"
    else
        echo "(tests/gguf_factory.py not found: the model-in-a-worker check is skipped)"
    fi
    GTREVIEW_BUNDLE_CHECK="$model" timeout 300 "$GTR" || fail "in-bundle checks failed"
    PASSED=$((PASSED + 1))

    echo "-- GUI: gtreview --sample must still be running after 5 s"
    set +e
    timeout --kill-after=10 6 "$GTR" --sample > "$SMOKE_DIR/gui.out" 2> "$SMOKE_DIR/gui.err"
    gui_rc=$?
    set -e
    # The offscreen platform cannot size native windows; that warning is expected.
    grep -v "does not support propagateSizeHints" "$SMOKE_DIR/gui.err" | sed 's/^/   gui: /' || true
    [[ $gui_rc == 124 ]] || fail "the GUI exited with status $gui_rc before 5 s (124, killed by timeout, is success)"
    if grep -qE "Traceback|Fatal|Segmentation|Aborted|could not (load|find) the Qt platform plugin" "$SMOKE_DIR/gui.err"; then
        fail "the GUI reported an error (see above)"
    fi
    sample_project="$XDG_DATA_HOME/gtreview/projects/sample"
    "$GTR" corpus list --project "$sample_project" --json > "$SMOKE_DIR/sample.json" \
        || fail "corpus list on the sample project the GUI created exited $?"
    documents=$("$VENV/bin/python" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$SMOKE_DIR/sample.json")
    [[ $documents -gt 0 ]] || fail "the GUI left no sample project at $sample_project"
    echo "GUI stayed up (exit 124 from timeout); the sample project it made has $documents documents"
    PASSED=$((PASSED + 1))

    echo "-- GUI screenshot: the main window as the frozen app draws it"
    mkdir -p "$BUILD/smoke"
    GTREVIEW_BUNDLE_SCREENSHOT="$BUILD/smoke/gui-sample.png" timeout 120 "$GTR" --sample 2> "$SMOKE_DIR/shot.err" \
        || { cat "$SMOKE_DIR/shot.err" >&2; fail "the screenshot run exited $?"; }
    PASSED=$((PASSED + 1))

    echo "-- gtreview rubric validate <bundled sample rubric>"
    "$GTR" rubric validate "$BUNDLED_RUBRIC" || fail "rubric validate exited $?"
    PASSED=$((PASSED + 1))

    echo "-- gtreview corpus list / import --project <new project>"
    project="$SMOKE_DIR/project"
    "$GTR" corpus list --project "$project" || fail "corpus list on a new project exited $?"
    "$GTR" corpus import --project "$project" "$APP/_internal/gtreview/sample_corpus/tables" \
        || fail "corpus import exited $?"
    "$GTR" corpus list --project "$project" || fail "corpus list exited $?"
    PASSED=$((PASSED + 1))

    echo "-- system libraries the Qt platform plugins need (warnings only)"
    missing="$(for plugin in "$APP"/_internal/PySide6/Qt/plugins/platforms/*.so; do
        ldd "$plugin" | awk -v p="$(basename "$plugin")" '/not found/ {print "   " p ": " $1}'
    done | sort -u)"
    if [[ -n "$missing" ]]; then
        echo "not on this machine (install them where the app runs; see packaging/README.md):"
        echo "$missing"
    else
        echo "all found"
    fi
    echo "smoke: $PASSED passed, 0 failed"
fi
finish_step

# -- summary -------------------------------------------------------------------------
printf '\n==> built %s\n' "$APP"
echo "bundle size: $(du -sh "$APP" | cut -f1) on disk, $(find "$APP" -type f | wc -l) files"
echo "timings:"
printf '%s\n' "${TIMINGS[@]}"
printf '%5ds  total\n' $((SECONDS - START))
