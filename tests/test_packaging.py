"""The packaging recipe stays valid without building the (slow) bundle: the spec parses, the files it
names exist, the desktop entry is well formed and the icons are there."""

import ast
import configparser

from conftest import ROOT

SPEC = ROOT / "packaging" / "chunk-workbench.spec"


def _assignments(tree: ast.Module) -> dict:
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue
    return out


def test_spec_parses_and_names_existing_paths():
    tree = ast.parse(SPEC.read_text(), filename=str(SPEC))
    values = _assignments(tree)
    assert (ROOT / values["ENTRY"]).is_file()
    for src, dest in values["DATA_SOURCES"]:
        assert (ROOT / src).exists(), src
        assert not dest.startswith("/")
    assert "PySide6.QtWebEngineCore" in values["EXCLUDES"]
    calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    assert {"Analysis", "PYZ", "EXE", "COLLECT"} <= calls


def test_launcher_dispatches_to_cli(capsys):
    import runpy
    import sys

    argv = sys.argv
    sys.argv = ["chunk-workbench", "cli", "strategies"]
    try:
        runpy.run_path(str(ROOT / "packaging" / "launcher.py"), run_name="not-main")["run"]()
    finally:
        sys.argv = argv
    assert "sentence-window" in capsys.readouterr().out


def test_desktop_entry_and_icons():
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str
    entry.read(ROOT / "packaging" / "chunk-workbench.desktop")
    section = entry["Desktop Entry"]
    assert section["Type"] == "Application" and section["Exec"].startswith("chunk-workbench")
    assert section["Icon"] == "chunk-workbench"
    icons = ROOT / "resources" / "icons"
    assert (icons / "chunk-workbench.svg").is_file()
    for size in (16, 32, 48, 64, 128, 256):
        png = icons / f"chunk-workbench-{size}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
