#!/usr/bin/env bash
# Install the built one-folder app for the current user (no root), or remove it.
#
#   packaging/install-linux.sh [--dist DIR] [--icons DIR] [--prefix DIR]
#   packaging/install-linux.sh --uninstall [--prefix DIR]
#
# Installs:
#   $PREFIX/opt/gtreview/                      the folder built by build.sh (dist/gtreview)
#   $PREFIX/bin/gtreview                       a link to its executable (the CLI as well)
#   $DATA/icons/hicolor/<N>x<N>/apps/gtreview.png, .../scalable/apps/gtreview.svg
#   $DATA/applications/gtreview.desktop        with Exec/TryExec pointing at the install
# where PREFIX defaults to ~/.local and DATA to ${XDG_DATA_HOME:-~/.local/share}.
# Projects and settings (~/.local/share/gtreview, ~/.config/gtreview) are never touched.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PREFIX="$HOME/.local"
DIST="$HERE/dist/gtreview"
ICONS="$HERE/build/icons"
UNINSTALL=0

usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; }
while [[ $# -gt 0 ]]; do
    case "$1" in
        --prefix) PREFIX="$2"; shift 2 ;;
        --dist) DIST="$2"; shift 2 ;;
        --icons) ICONS="$2"; shift 2 ;;
        --uninstall) UNINSTALL=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install-linux.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
done

DATA="${XDG_DATA_HOME:-$HOME/.local/share}"
APP_DIR="$PREFIX/opt/gtreview"
BIN_LINK="$PREFIX/bin/gtreview"
HICOLOR="$DATA/icons/hicolor"
DESKTOP_FILE="$DATA/applications/gtreview.desktop"
SIZES=(16 24 32 48 64 128 256 512)

refresh_caches() {
    # Menus and icon themes pick changes up by themselves on most desktops; these only speed it up.
    if command -v gtk-update-icon-cache >/dev/null && [[ -f "$HICOLOR/index.theme" ]]; then
        gtk-update-icon-cache -q -t -f "$HICOLOR" || true
    fi
    if command -v update-desktop-database >/dev/null; then
        update-desktop-database -q "$DATA/applications" 2>/dev/null || true
    fi
}

if [[ $UNINSTALL == 1 ]]; then
    if [[ -L "$BIN_LINK" && "$(readlink "$BIN_LINK")" == "$APP_DIR/gtreview" ]]; then
        rm -f "$BIN_LINK"
    fi
    rm -rf "$APP_DIR"
    rm -f "$DESKTOP_FILE"
    folders=("$HICOLOR/scalable")
    for size in "${SIZES[@]}"; do
        folders+=("$HICOLOR/${size}x${size}" "$HICOLOR/${size}x${size}@2")
    done
    for folder in "${folders[@]}"; do
        rm -f "$folder/apps/gtreview.png" "$folder/apps/gtreview.svg"
        rmdir "$folder/apps" "$folder" 2>/dev/null || true # only when nothing else is in them
    done
    refresh_caches
    echo "gtreview removed from $PREFIX and $DATA (projects and settings kept)"
    exit 0
fi

if [[ ! -x "$DIST/gtreview" ]]; then
    echo "install-linux.sh: no built app at $DIST (run packaging/build.sh first)" >&2
    exit 1
fi

# Copy beside the old install, then swap, so a failed copy never leaves half an app.
mkdir -p "$PREFIX/opt" "$PREFIX/bin"
staging="$(mktemp -d "$PREFIX/opt/.gtreview-install.XXXXXX")"
trap 'rm -rf "$staging"' EXIT
cp -a "$DIST/." "$staging/"
rm -rf "$APP_DIR"
mv "$staging" "$APP_DIR"
trap - EXIT
chmod 755 "$APP_DIR"
ln -sfn "$APP_DIR/gtreview" "$BIN_LINK"

installed_icons=0
for size in "${SIZES[@]}"; do
    for scale in "" "@2"; do
        src="$ICONS/hicolor/${size}x${size}${scale}/apps/gtreview.png"
        if [[ -f "$src" ]]; then
            install -D -m 644 "$src" "$HICOLOR/${size}x${size}${scale}/apps/gtreview.png"
            installed_icons=$((installed_icons + 1))
        fi
    done
done
install -D -m 644 "$HERE/icons/gtreview.svg" "$HICOLOR/scalable/apps/gtreview.svg"
if [[ $installed_icons == 0 ]]; then
    echo "install-linux.sh: no PNG icons under $ICONS (run packaging/make_icons.py); installed the SVG only" >&2
fi

# Exec by absolute path: ~/.local/bin is not on every desktop session's PATH.
mkdir -p "$(dirname "$DESKTOP_FILE")"
sed -e "s|^Exec=gtreview|Exec=\"$APP_DIR/gtreview\"|" \
    -e "s|^TryExec=gtreview|TryExec=$APP_DIR/gtreview|" \
    "$HERE/gtreview.desktop" > "$DESKTOP_FILE"
chmod 644 "$DESKTOP_FILE"
refresh_caches

echo "gtreview installed:"
echo "  app      $APP_DIR ($(du -sh "$APP_DIR" | cut -f1))"
echo "  command  $BIN_LINK$([[ ":$PATH:" == *":$PREFIX/bin:"* ]] || echo "  (add $PREFIX/bin to PATH)")"
echo "  menu     $DESKTOP_FILE"
echo "  icons    $installed_icons PNG sizes and the SVG under $HICOLOR"
