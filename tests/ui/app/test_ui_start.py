"""Start failures say why: before Qt loads, ``workbench-gui`` (and ``scripts/start``, which runs it) asks ``ldd``
whether Qt's X11 platform plugin can load and, when a system library is missing, prints one line naming the
libraries and the commands that install them, and exits 1 — instead of Qt's silent abort (exit 134, the reason
only in the log file). The package names are the README's and docs/setup.md's."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT

from workbench.ui.app.platform_check import (
    PACKAGES,
    install_line,
    missing_libraries,
    platform_problem,
    uses_xcb,
    xcb_plugin,
)

LDD = """\tlinux-vdso.so.1 (0x00007ffd)
\tlibQt6XcbQpa.so.6 => /venv/PySide6/Qt/lib/libQt6XcbQpa.so.6 (0x00007f1)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibxcb.so.1 => /lib/x86_64-linux-gnu/libxcb.so.1 (0x00007f2)
\tlibxcb-icccm.so.4 => not found
"""


def test_missing_libraries_are_read_from_ldd_and_named_with_their_packages():
    missing = missing_libraries(LDD)
    assert missing == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]
    line = install_line(missing)
    assert "\n" not in line and line.startswith("workbench: the window cannot open")
    assert "libxcb-icccm.so.4, libxcb-keysyms.so.1" in line
    assert "sudo apt-get install libxcb-icccm4 libxcb-keysyms1" in line
    assert "sudo dnf install xcb-util-wm xcb-util-keysyms" in line and "macOS needs nothing" in line


def test_only_the_x11_plugin_is_checked():
    assert uses_xcb({"DISPLAY": ":0"}, "linux") and uses_xcb({"QT_QPA_PLATFORM": "xcb"}, "linux")
    assert not uses_xcb({"DISPLAY": ":0", "QT_QPA_PLATFORM": "offscreen"}, "linux")
    assert not uses_xcb({"QT_QPA_PLATFORM": "wayland;xcb"}, "linux") and not uses_xcb({}, "linux")
    assert not uses_xcb({"DISPLAY": ":0"}, "darwin")
    assert platform_problem({"QT_QPA_PLATFORM": "offscreen"}, run=lambda _cmd: LDD) == ""
    if sys.platform.startswith("linux") and xcb_plugin() is not None:
        assert "libxcb-icccm.so.4" in platform_problem({"DISPLAY": ":0"}, run=lambda _cmd: LDD)


def test_the_gui_entry_point_prints_the_line_and_exits_before_qt_loads(monkeypatch, capsys):
    from workbench.ui.app import launch, platform_check

    monkeypatch.setattr(platform_check, "platform_problem", lambda: install_line(missing_libraries(LDD)))
    assert launch.main([]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "sudo apt-get install libxcb-icccm4 libxcb-keysyms1" in err


def _listed(text: str, command: str) -> set[str]:
    """The packages after ``command`` in ``text`` (the README / setup page code blocks)."""
    start = text.index(command) + len(command)
    block = text[start:start + 400].split("```")[0].split("`")[0]
    return {w for w in re.split(r"[\s\\]+", block) if w and not w.startswith("#")}


@pytest.mark.parametrize("page", ["README.md", "docs/setup.md"])
def test_the_packages_named_are_the_ones_the_docs_list(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    debian, fedora = _listed(text, "sudo apt-get install"), _listed(text, "sudo dnf install")
    known_debian = {deb for deb, _fed in PACKAGES.values()}
    known_fedora = {fed for _deb, fed in PACKAGES.values()}
    assert debian and debian <= known_debian, debian - known_debian
    assert fedora and fedora <= known_fedora, fedora - known_fedora


@pytest.mark.skipif(not sys.platform.startswith("linux") or xcb_plugin() is None
                    or not missing_libraries(subprocess.run(["ldd", str(xcb_plugin() or "")], capture_output=True,
                                                            text=True, check=False).stdout),
                    reason="this machine has every library Qt's X11 plugin needs")
def test_on_a_machine_without_the_libraries_the_start_says_why(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env |= {"DISPLAY": ":99", "WORKBENCH_LOG_DIR": str(tmp_path), "WORKBENCH_DATA": str(tmp_path / "data")}
    done = subprocess.run([sys.executable, "-m", "workbench"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 1, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "sudo apt-get install" in lines[0] and "not installed" in lines[0], done.stderr
