"""Architecture rules: core never imports Qt, and importing core loads no heavy library."""

import subprocess
import sys
from pathlib import Path

from conftest import ROOT


def test_import_linter_contract_holds():
    lint = Path(sys.executable).parent / "lint-imports"
    proc = subprocess.run([str(lint), "--no-cache"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "KEPT" in proc.stdout and "BROKEN" not in proc.stdout


def test_core_imports_are_light():
    code = (
        "import sys, pkgutil, importlib, workbench.core as c\n"
        "for m in pkgutil.walk_packages(c.__path__, 'workbench.core.'): importlib.import_module(m.name)\n"
        "heavy = [m for m in ('torch', 'sentence_transformers', 'faiss', 'PySide6', 'xllamacpp', 'transformers') "
        "if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "", f"imported eagerly: {proc.stdout}"


def test_every_ui_package_has_a_layer():
    """The window's layers contract names every package and module directly under ``workbench/ui``, so a new one
    cannot sit outside the order (import-linter ignores what a contract does not name)."""
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    ui = next(c for c in contracts if c.get("containers") == ["workbench.ui"])
    assert ui["type"] == "layers"
    named = {name.strip() for layer in ui["layers"] for name in layer.split("|")}
    here = ROOT / "workbench" / "ui"
    present = {p.stem for p in here.iterdir()
               if (p.is_dir() and (p / "__init__.py").exists()) or (p.suffix == ".py" and p.stem != "__init__")}
    assert named == present


def test_architecture_md_names_every_module_of_core_and_ui():
    """``docs/architecture.md`` stays true to the code: every module and package of ``core/`` and ``ui/`` is named
    there (in backticks, as ``name``, ``name/`` or a path ending in it), and every ``core/…`` or ``ui/…`` path it
    names exists."""
    import re

    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    quoted = set(re.findall(r"`([^`\n]+)`", text))
    names = {q.rstrip("/").split("/")[-1].removesuffix(".py") for q in quoted} | {
        part for q in quoted for part in re.split(r"[\s.()/,:]+", q) if part}
    package = ROOT / "workbench"
    unnamed = sorted(str(p.relative_to(package)) for top in ("core", "ui") for p in (package / top).rglob("*")
                     if "__pycache__" not in p.parts and p.name != "__init__.py"
                     and (p.suffix == ".py" or (p.is_dir() and (p / "__init__.py").exists()))
                     and p.stem not in names)
    assert not unnamed, f"name these in docs/architecture.md's module table: {unnamed}"
    stale = sorted(q for q in quoted if re.fullmatch(r"(core|ui)/[\w/]+(\.py)?/?", q)
                   and not (package / q).exists() and not (package / f"{q.rstrip('/')}.py").exists())
    assert not stale, f"docs/architecture.md names paths that do not exist: {stale}"
