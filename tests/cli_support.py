"""The one way tests run the ``workbench`` command in-process (not a test module itself)."""

from __future__ import annotations

from workbench.cli import main


def run_cli(capsys, *args) -> tuple[int, str, str]:  # pytest's capsys, any printable args
    """``(exit status, stdout, stderr)`` of ``workbench ARGS`` run in this process (arguments as ``str``)."""
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err
