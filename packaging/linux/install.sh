#!/bin/sh
# Install Chunk Workbench from this unpacked archive: the bundle, a `chunk-workbench` command, the desktop entry
# and the icons. Per-user into ~/.local by default; --system installs into /usr/local (run as root);
# --prefix DIR installs elsewhere. --with-llm also installs the add-on with the demo answering model
# (the folder chunk-workbench-llm/ beside this script, from the add-on archive; found there automatically).
# Undo with <prefix>/lib/chunk-workbench/uninstall.sh.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
prefix="$HOME/.local"
with_llm=auto
while [ $# -gt 0 ]; do
  case "$1" in
    --system) prefix=/usr/local; shift ;;
    --prefix) [ $# -ge 2 ] || { echo "install.sh: --prefix needs a folder" >&2; exit 2; }; prefix=$2; shift 2 ;;
    --with-llm) with_llm=yes; shift ;;
    --without-llm) with_llm=no; shift ;;
    -h|--help) sed -n '2,7p' "$0" | cut -c3-; exit 0 ;;
    *) echo "install.sh: unknown option $1 (--system, --prefix DIR, --with-llm, --without-llm)" >&2; exit 2 ;;
  esac
done
bundle="$here/chunk-workbench"
addon="$here/chunk-workbench-llm"
[ -x "$bundle/chunk-workbench" ] || { echo "install.sh: no bundle at $bundle: run me from the unpacked archive" >&2; exit 1; }
if [ "$with_llm" = yes ] && [ ! -d "$addon/_internal" ]; then
  echo "install.sh: --with-llm: no add-on at $addon: unpack the chunk-workbench-llm archive beside this script" >&2
  exit 1
fi
app="$prefix/lib/chunk-workbench"
marker="$app/.installed-by-chunk-workbench"
if [ -e "$app" ] && [ ! -e "$marker" ]; then
  echo "install.sh: $app exists and was not installed by this script: nothing changed" >&2
  exit 1
fi
if [ -e "$marker" ]; then
  "$app/uninstall.sh" --quiet  # an earlier version: replaced, not mixed
fi
mkdir -p "$prefix/lib" "$prefix/bin" "$prefix/share/applications"
cp -a "$bundle" "$app"
addon_note="without the embedded answering model (answers are extractive; add it with --with-llm)"
if [ "$with_llm" != no ] && [ -d "$addon/_internal" ]; then
  cp -a "$addon/_internal/." "$app/_internal/"
  addon_note="with the embedded answering model add-on"
fi
cp "$here/uninstall.sh" "$app/uninstall.sh"
chmod 755 "$app/uninstall.sh"
manifest="$app/.installed-files"
: > "$manifest"
ln -sf "$app/chunk-workbench" "$prefix/bin/chunk-workbench"
echo "$prefix/bin/chunk-workbench" >> "$manifest"
entry="$prefix/share/applications/chunk-workbench.desktop"
sed "s|^Exec=chunk-workbench|Exec=$app/chunk-workbench|" "$here/chunk-workbench.desktop" > "$entry"
echo "$entry" >> "$manifest"
for png in "$app"/_internal/resources/icons/chunk-workbench-*.png; do
  size=${png##*-}
  size=${size%.png}
  dir="$prefix/share/icons/hicolor/${size}x${size}/apps"
  mkdir -p "$dir"
  cp "$png" "$dir/chunk-workbench.png"
  echo "$dir/chunk-workbench.png" >> "$manifest"
done
mkdir -p "$prefix/share/icons/hicolor/scalable/apps"
cp "$app/_internal/resources/icons/chunk-workbench.svg" "$prefix/share/icons/hicolor/scalable/apps/chunk-workbench.svg"
echo "$prefix/share/icons/hicolor/scalable/apps/chunk-workbench.svg" >> "$manifest"
touch "$marker"
# Menus pick up the new entry by themselves; an icon theme with a cache (system-wide) needs it refreshed.
if [ -f "$prefix/share/icons/hicolor/index.theme" ] && command -v gtk-update-icon-cache >/dev/null 2>&1; then
  gtk-update-icon-cache -q "$prefix/share/icons/hicolor" || true
fi
echo "Installed Chunk Workbench into $app, $addon_note."
echo "Start it from the applications menu or with: chunk-workbench  (command: $prefix/bin/chunk-workbench)"
case ":$PATH:" in *":$prefix/bin:"*) ;; *) echo "Note: $prefix/bin is not on your PATH." ;; esac
echo "Uninstall with: $app/uninstall.sh"
