"""Documentation stays true: the README is short and leads to every page of docs/; every relative link and
heading anchor resolves; every ``workbench`` command shown names a real sub-command and options its parser
accepts; every benchmark or script invocation names a script that exists and options it defines; every
repository path named in code exists; and the CLI reference is generated from the parser."""

from __future__ import annotations

import argparse
import functools
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

DOCS = ROOT / "docs"
README = ROOT / "README.md"
README_MAX_LINES = 200


def pages() -> list[Path]:
    """README.md and every Markdown page of docs/."""
    return [README, *sorted(DOCS.glob("*.md"))]


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


# --- Markdown structure -------------------------------------------------------------------------------------

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
INLINE_CODE = re.compile(r"(`+)(.+?)\1", re.S)


def split_fences(text: str) -> tuple[str, list[tuple[str, str]]]:
    """``(prose, blocks)``: the text with fenced code blocks blanked out (lines kept, so the rest keeps its line
    structure) and each block as ``(info string, body)``."""
    prose: list[str] = []
    blocks: list[tuple[str, str]] = []
    fence: str | None = None
    info = ""
    body: list[str] = []
    for line in text.splitlines():
        m = FENCE.match(line)
        if fence is None and m:
            fence, info, body = m.group(1), m.group(2).strip(), []
            prose.append("")
        elif fence is not None and m and m.group(1).startswith(fence) and not m.group(2).strip():
            blocks.append((info, "\n".join(body)))
            fence = None
            prose.append("")
        elif fence is not None:
            body.append(line)
            prose.append("")
        else:
            prose.append(line)
    assert fence is None, "an unclosed code fence"
    return "\n".join(prose), blocks


def code_spans(prose: str) -> list[str]:
    """The inline code spans of ``prose`` (fenced blocks already removed)."""
    return [m.group(2).strip() for m in INLINE_CODE.finditer(prose)]


def without_code(prose: str) -> str:
    return INLINE_CODE.sub("", prose)


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: link syntax and backticks dropped, lower case, every character that is
    not a letter, digit, space, hyphen or underscore removed, spaces as hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


@functools.cache
def anchors(path: Path) -> frozenset[str]:
    """Every heading anchor of a Markdown file (repeated headings get -1, -2 … as on GitHub)."""
    prose, _ = split_fences(path.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    out: set[str] = set()
    for line in prose.splitlines():
        m = re.match(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = github_slug(m.group(1))
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return frozenset(out)


LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'][^\"']*[\"'])?\s*\)")
REF_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M)


def links(path: Path) -> list[str]:
    """Every link and image target of a Markdown file outside code."""
    prose = without_code(split_fences(path.read_text(encoding="utf-8"))[0])
    return [m.group(1) for m in LINK.finditer(prose)] + REF_DEFINITION.findall(prose)


def broken_link(page: Path, target: str) -> str | None:
    """Why ``target`` (a link in ``page``) does not resolve, or None."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
        return None  # http:, https:, mailto: … are not checked offline
    path_part, _, anchor = target.partition("#")
    dest = (page.parent / path_part).resolve() if path_part else page
    if not dest.is_relative_to(ROOT):
        return "points outside the repository"
    if not dest.exists():
        return "no such file"
    if anchor and dest.suffix == ".md" and anchor not in anchors(dest):
        return f"no heading #{anchor} in {rel(dest)}"
    return None


# --- commands shown in the docs ------------------------------------------------------------------------------

QUOTED = re.compile(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"")
OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")
SHELL_BREAK = re.compile(r"\s(?:\|\|?|>>?|2>|&&|;)\s|\s#.*$")
WORKBENCH = re.compile(r"^(?:\S*/)?workbench(?:\s+(\S+))?(.*)$", re.S)
SCRIPT = re.compile(r"^(?:\S*python3?\s+)?((?:benchmarks|scripts|packaging)/[\w./-]+)(.*)$", re.S)


@functools.cache
def parser() -> argparse.ArgumentParser:
    from workbench.cli import build_parser

    return build_parser()


def subparsers() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def accepted(p: argparse.ArgumentParser) -> set[str]:
    """Options ``p`` accepts, those of its actions' own parsers included (``workbench questions add --quote``)."""
    nested = {s for a in p._actions if isinstance(a, argparse._SubParsersAction)
              for child in a.choices.values() for s in accepted(child)}
    return {s for a in p._actions for s in a.option_strings} | nested


def shell_commands(block: str) -> list[str]:
    """The commands of a shell code block: continuation lines joined, quoted text blanked (so a ``#`` or ``>``
    inside JSON is not read as shell), comments, redirections and pipes cut off, ``VAR=value`` prefixes and a
    ``$`` prompt dropped."""
    out = []
    for line in re.sub(r"\\\n", " ", block).splitlines():
        line = " ".join(QUOTED.sub("''", line).split())
        line = re.sub(r"^\$\s+", "", line)
        line = SHELL_BREAK.split(line, maxsplit=1)[0].strip()
        line = re.sub(r"^(?:[A-Za-z_]\w*=\S*\s+)+", "", line)
        if line and not line.startswith("#"):
            out.append(line)
    return out


def shown_commands() -> list[tuple[str, str]]:
    """``(where, command)`` for every command shown in a shell code block and every inline code span that is a
    ``workbench`` command (or starts with a sub-command and an option, as in ``eval --answers``)."""
    names = "|".join(re.escape(n) for n in subparsers())
    found = []
    for page in pages():
        prose, blocks = split_fences(page.read_text(encoding="utf-8"))
        for info, body in blocks:
            if info.split()[:1] in ([], ["bash"], ["sh"], ["shell"], ["console"]):
                found += [(rel(page), cmd) for cmd in shell_commands(body)]
        for span in code_spans(prose):
            span = span.replace("\\|", "|")
            if re.match(r"^workbench\s", span):
                found.append((rel(page), QUOTED.sub("''", span)))
            elif re.match(rf"^(?:{names})\s+--", span):
                found.append((rel(page), "workbench " + QUOTED.sub("''", span)))
    return found


def command_problem(cmd: str) -> str | None:
    """What is wrong with one shown command, or None (commands of other tools are not checked)."""
    m = WORKBENCH.match(cmd)
    if m and re.match(r"^(?:\S*/)?workbench(?:\s|$)", cmd):
        name, rest = m.group(1), m.group(2)
        if name is None:
            return None
        if name.startswith("-"):
            target, rest = parser(), f" {name}{rest}"
        elif name not in subparsers():
            return f"no sub-command {name!r}"
        else:
            target = subparsers()[name]
        unknown = sorted({o.split("=")[0] for o in OPTION.findall(rest)} - accepted(target))
        return f"options not accepted by 'workbench {name}': {unknown}" if unknown else None
    m = SCRIPT.match(cmd)
    if m:
        script = ROOT / m.group(1)
        if not script.is_file():
            return f"no such script {m.group(1)}"
        source = script.read_text(encoding="utf-8", errors="replace")
        unknown = sorted({o.split("=")[0] for o in OPTION.findall(m.group(2)) if o.startswith("--")}
                         - {o for o in re.findall(r"[\"'](--[\w-]+)[\"']", source)})
        return f"options {unknown} not defined in {m.group(1)}" if unknown and script.suffix == ".py" else None
    return None


REPO_PATH = re.compile(r"^\.?(?:workbench|tests|benchmarks|scripts|docs|packaging|resources|core|ui|commands|ci)/"
                       r"[\w./-]*$")


def named_paths() -> list[tuple[str, str]]:
    """``(where, path)`` for every inline code span that is a path into the repository (``core/…``, ``ui/…`` and
    ``commands/…`` are under ``workbench/``), not a pattern or placeholder."""
    found = []
    for page in pages():
        prose, _ = split_fences(page.read_text(encoding="utf-8"))
        found += [(rel(page), span) for span in code_spans(prose) if REPO_PATH.match(span)]
    return found


def path_exists(span: str) -> bool:
    first = span.split("/", 1)[0]
    base = ROOT / "workbench" if first in ("core", "ui", "commands") else ROOT
    return (base / span).exists()


# --- the tests -----------------------------------------------------------------------------------------------


def test_cli_reference_is_up_to_date():
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "cli_reference.py"), "--check"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr


def test_readme_is_short_and_has_the_quick_start():
    readme = README.read_text(encoding="utf-8")
    lines = len(readme.splitlines())
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; the rest belongs in docs/"
    assert "## Quick start" in readme and "scripts/start" in readme and "scripts/test" in readme
    assert "](docs/cli.md)" in readme


def test_readme_links_every_docs_page():
    linked = {(README.parent / t.partition("#")[0]).resolve() for t in links(README)}
    missing = [rel(p) for p in sorted(DOCS.glob("*.md")) if p.resolve() not in linked]
    assert not missing, f"README.md does not link: {missing}"


def test_every_sub_command_is_documented():
    cli_md = (DOCS / "cli.md").read_text(encoding="utf-8")
    overview = (DOCS / "command-line.md").read_text(encoding="utf-8")
    assert not [n for n in subparsers() if f"## `workbench {n}`" not in cli_md], "docs/cli.md is stale"
    missing = [n for n in subparsers() if f"`workbench {n}" not in overview]
    assert not missing, f"docs/command-line.md does not list: {missing}"


@pytest.mark.parametrize("page", pages(), ids=rel)
def test_every_relative_link_and_anchor_resolves(page):
    broken = [f"{t}: {why}" for t in links(page) if (why := broken_link(page, t))]
    assert not broken, f"{rel(page)}: {broken}"


def test_every_shown_command_names_real_sub_commands_and_options():
    shown = shown_commands()
    assert sum("workbench " in cmd for _, cmd in shown) > 20, "the command scanner found too few commands"
    wrong = [f"{where}: {cmd[:80]!r}: {why}" for where, cmd in shown if (why := command_problem(cmd))]
    assert not wrong, "\n".join(wrong)


def test_every_repository_path_named_in_code_exists():
    named = named_paths()
    assert len(named) > 20, "the path scanner found too few paths"
    missing = [f"{where}: {span}" for where, span in named if not path_exists(span)]
    assert not missing, missing


# --- the checkers catch what they are for ---------------------------------------------------------------------


def test_the_checkers_catch_broken_links_commands_and_paths(tmp_path):
    assert github_slug("Strategy panel (sides A and B)") == "strategy-panel-sides-a-and-b"
    assert github_slug("## `workbench search`".lstrip("# ")) == "workbench-search"
    assert github_slug("Chroma's general benchmark") == "chromas-general-benchmark"
    guide = DOCS / "guide.md"
    assert broken_link(guide, "evaluation.md#metrics") is None
    assert broken_link(guide, "evaluation.md#no-such-heading")
    assert broken_link(guide, "no-such-page.md")
    assert broken_link(guide, "#answers-without-ollama") is None
    assert broken_link(guide, "../../outside.md")
    assert broken_link(guide, "https://example.org/x") is None
    assert command_problem("workbench search '' --window 1 --top-k 3") is None
    assert command_problem("workbench serach ''") == "no sub-command 'serach'"
    assert "--no-such-flag" in command_problem("workbench eval chroma-general --no-such-flag")
    assert command_problem("workbench --help") is None
    assert command_problem("python benchmarks/scale.py --sizes 100000") is None
    assert "--frobnicate" in command_problem("python benchmarks/scale.py --frobnicate")
    assert command_problem("python benchmarks/no_such.py")
    assert shell_commands("workbench eval x --strategy '{\"a\": \"#x > y\"}' \\\n  --json > out.json  # note") \
        == ["workbench eval x --strategy '' --json"]
    assert path_exists("core/retrieve/lexical.py") and not path_exists("core/retrieve/no_such.py")
