#!/bin/sh
# Remove Chunk Workbench as install.sh installed it: the command, the desktop entry, the icons (the files it
# listed in .installed-files) and the bundle's folder. Your data folder and settings are kept.
set -eu
app=$(cd "$(dirname "$0")" && pwd)
quiet=0
[ "${1:-}" = "--quiet" ] && quiet=1
if [ ! -e "$app/.installed-by-chunk-workbench" ]; then
  echo "uninstall.sh: $app was not installed by install.sh: nothing removed" >&2
  exit 1
fi
if [ -f "$app/.installed-files" ]; then
  while IFS= read -r file; do
    case "$file" in
      */bin/chunk-workbench|*/chunk-workbench.desktop|*/chunk-workbench.png|*/chunk-workbench.svg) rm -f "$file" ;;
      *) echo "uninstall.sh: not removing $file (not a file install.sh writes)" >&2 ;;
    esac
  done < "$app/.installed-files"
fi
rm -rf "$app"
[ "$quiet" = 1 ] || echo "Removed Chunk Workbench from $app (your data folder and settings are kept)."
