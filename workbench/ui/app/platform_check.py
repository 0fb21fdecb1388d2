"""Before the window opens: can Qt's X11 platform plugin (``xcb``, also used under XWayland) load here?

Qt aborts (exit 134) when a system library its ``xcb`` plugin needs is missing, and says why only through
its message handler. ``platform_problem`` asks ``ldd`` about the plugin before Qt is loaded and returns one
line naming the missing libraries and the command that installs them (Debian / Ubuntu, Fedora; macOS needs
none), or "" when the plugin can load (or another platform is used: offscreen, Wayland, macOS, Windows).
No Qt module is imported here. The package lists are the README's and docs/setup.md's (a test keeps them in
step).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

# library file → (Debian / Ubuntu package, Fedora package)
PACKAGES: dict[str, tuple[str, str]] = {
    "libEGL.so.1": ("libegl1", "mesa-libEGL"),
    "libGL.so.1": ("libgl1", "mesa-libGL"),
    "libOpenGL.so.0": ("libopengl0", "libglvnd-opengl"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig"),
    "libfreetype.so.6": ("libfreetype6", "freetype"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs"),
    "libglib-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libX11.so.6": ("libx11-6", "libX11"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb"),
    "libxcb.so.1": ("libxcb1", "libxcb"),
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor"),
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-randr.so.0": ("libxcb-randr0", "libxcb"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil"),
    "libxcb-render.so.0": ("libxcb-render0", "libxcb"),
    "libxcb-shape.so.0": ("libxcb-shape0", "libxcb"),
    "libxcb-shm.so.0": ("libxcb-shm0", "libxcb"),
    "libxcb-sync.so.1": ("libxcb-sync1", "libxcb"),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util"),
    "libxcb-xfixes.so.0": ("libxcb-xfixes0", "libxcb"),
    "libxcb-xinerama.so.0": ("libxcb-xinerama0", "libxcb"),
    "libxcb-xinput.so.0": ("libxcb-xinput0", "libxcb"),
    "libxcb-xkb.so.1": ("libxcb-xkb1", "libxcb"),
}
LDD_TIMEOUT_S = 10.0
Runner = Callable[[list[str]], str]  # runs a command, returns its standard output ("" when it cannot run)


def uses_xcb(env: Mapping[str, str], platform: str = sys.platform) -> bool:
    """Whether Qt will load its ``xcb`` plugin: on Linux, ``QT_QPA_PLATFORM`` names it first (or is unset) and
    an X display is there (a Wayland session without ``QT_QPA_PLATFORM`` still uses xcb through XWayland)."""
    if not platform.startswith("linux"):
        return False
    chosen = env.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip()
    if chosen:
        return chosen == "xcb"
    return bool(env.get("DISPLAY"))


def xcb_plugin() -> Path | None:
    """The ``libqxcb.so`` of the installed PySide6 (None when PySide6 or the plugin is not there)."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    plugin = Path(next(iter(spec.submodule_search_locations))) / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    return plugin if plugin.is_file() else None


def run_command(command: list[str]) -> str:
    """``command``'s standard output ("" when it cannot run)."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=LDD_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout


def missing_libraries(ldd_output: str) -> list[str]:
    """The libraries ``ldd`` reports as ``not found`` (each once, in its order)."""
    found = [line.split("=>")[0].strip() for line in ldd_output.splitlines() if "not found" in line]
    return list(dict.fromkeys(name for name in found if name))


def install_line(libraries: list[str]) -> str:
    """One line: what is missing and the command that installs it (Debian / Ubuntu, Fedora)."""
    debian = list(dict.fromkeys(PACKAGES[name][0] for name in libraries if name in PACKAGES))
    fedora = list(dict.fromkeys(PACKAGES[name][1] for name in libraries if name in PACKAGES))
    unknown = [name for name in libraries if name not in PACKAGES]
    how = (f"Debian/Ubuntu: sudo apt-get install {' '.join(debian)} · Fedora: sudo dnf install {' '.join(fedora)}"
           if debian else "install the packages that provide them")
    if unknown and debian:
        how += f" (and whatever provides {', '.join(unknown)})"
    return (f"workbench: the window cannot open: Qt's X11 platform plugin needs {', '.join(libraries)}, not "
            f"installed on this machine. {how}. macOS needs nothing. The command line works without them "
            "(.venv/bin/workbench --help).")


def platform_problem(env: Mapping[str, str] | None = None, run: Runner = run_command,
                     plugin: Path | None = None) -> str:
    """"" when the window's platform plugin can load here, else the one line to print (see the module doc)."""
    env = os.environ if env is None else env
    if not uses_xcb(env):
        return ""
    plugin = plugin or xcb_plugin()
    ldd = shutil.which("ldd")
    if plugin is None or ldd is None:
        return ""
    missing = missing_libraries(run([ldd, str(plugin)]))
    return install_line(missing) if missing else ""


__all__ = ["PACKAGES", "install_line", "missing_libraries", "platform_problem", "run_command", "uses_xcb",
           "xcb_plugin"]
