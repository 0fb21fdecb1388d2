"""Write docs/cli.md, the reference of every ``workbench`` sub-command and option, from the parser itself.

    .venv/bin/python scripts/cli_reference.py          # rewrite docs/cli.md
    .venv/bin/python scripts/cli_reference.py --check  # exit 1 when docs/cli.md is out of date
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "docs" / "cli.md"


def render() -> str:
    """The Markdown reference."""
    import os

    os.environ["COLUMNS"] = "100"  # usage lines wrap at a fixed width, whatever the terminal
    from workbench.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {c.dest: c.help for c in sub._choices_actions}
    lines = ["# `workbench` command reference", "",
             "Generated from the argument parser by `scripts/cli_reference.py`; the tests fail when it is stale.",
             "Every data command takes `--data-dir DIR` (default `$WORKBENCH_DATA`, else the per-user data folder) "
             "and `--trust-custom TARGET`: allow a custom chunker (`module:function`) or a local embedding-model "
             "folder that data read by the run names (a run record, saved settings, a strategy); only a whole value "
             "typed in the command allows code by itself (`--chunker custom:M:F`, a strategy JSON's `chunker` "
             "field, `--model FOLDER`), and in the window a dialog asks. Values that name a file, folder or record "
             "are never empty, counts and sizes are range-checked, and `--yes` confirms work that states a large "
             "estimate first.",
             "Every LLM-using command takes `--llm`, `--llm-model`, `--llm-host` and `--allow-remote`; `--model` is "
             "always the embedding model. The old spellings (`--backend`, `--host`, `--embed-model`, `--model` naming "
             "the LLM) still work for one release with a one-line deprecation notice and are not listed here.",
             "An error is one line on stderr (exit status 1; 2 for a usage error, 130 when cancelled). "
             "`WORKBENCH_DEBUG=1` in the environment also prints the traceback of an unexpected one (a value, "
             "database or file error), for a bug report.",
             ""]
    for name, p in sorted(sub.choices.items()):
        lines += [f"## `workbench {name}`", "", helps.get(name) or "", "", "```", p.format_usage().strip(), "```", ""]
        lines += _arguments(p)
        actions = next((a for a in p._actions if isinstance(a, argparse._SubParsersAction)), None)
        if actions is not None:  # a command with actions of its own (workbench questions add …)
            action_helps = {c.dest: c.help for c in actions._choices_actions}
            for action_name, ap in actions.choices.items():
                lines += [f"### `workbench {name} {action_name}`", "", action_helps.get(action_name) or "", "",
                          "```", ap.format_usage().strip(), "```", "", *_arguments(ap)]
    lines += exit_status_section()
    return "\n".join(lines).rstrip() + "\n"


def _arguments(p: argparse.ArgumentParser) -> list[str]:
    """The table of a parser's arguments."""
    rows = []
    for action in p._actions:
        if isinstance(action, argparse._HelpAction) or action.help == argparse.SUPPRESS:
            continue  # deprecated spellings are hidden from --help and from this reference
        flag = ", ".join(action.option_strings) or action.dest.upper()
        metavar = "" if action.nargs == 0 else (action.metavar or action.dest.upper())
        text = (action.help or "").replace("|", "\\|").replace("%%", "%")
        rows.append(f"| `{flag}{' ' + str(metavar) if action.option_strings and metavar else ''}` | {text} |")
    return ["| argument | meaning |", "|---|---|", *rows, ""] if rows else []


def exit_status_section() -> list[str]:
    """The exit statuses (``workbench.cli.EXIT_STATUSES``, also in ``workbench --help``) as a table."""
    from workbench.cli import EXIT_STATUSES

    return ["## Exit statuses", "",
            "A path named on the command line that does not exist (or is of the wrong kind) is refused before the "
            "store is touched. Files inside a folder that fail or are skipped are listed with their reasons and do "
            "not change the status, unless `index --strict`.", "",
            "| status | meaning |", "|---|---|",
            *[f"| {code} | {meaning.replace('|', chr(92) + '|')} |" for code, meaning in EXIT_STATUSES], ""]


def main() -> int:
    text = render()
    if "--check" in sys.argv:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            print("docs/cli.md is out of date: run .venv/bin/python scripts/cli_reference.py", file=sys.stderr)
            return 1
        return 0
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
