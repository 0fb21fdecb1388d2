"""Documentation stays true: the CLI reference is generated from the parser, and the README names every
sub-command and the two Quick-start commands."""

import subprocess
import sys

from conftest import ROOT


def test_cli_reference_is_up_to_date():
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "cli_reference.py"), "--check"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr


def test_readme_mentions_every_command_and_the_quick_start():
    from workbench.cli import build_parser

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    missing = [name for name in sub.choices if f"workbench {name}" not in readme]
    assert not missing, f"README does not mention: {missing}"
    assert "## Quick start" in readme and "scripts/start" in readme and "scripts/test" in readme
