"""Every SQL statement of the application lives in the store package (issue #14 item 6).

The string constants of every module under ``workbench/`` are read with ``ast`` (docstrings included, f-string
pieces included); any that reads as SQL must be in the store package, ``workbench/core/store/``.
"""

import ast
import re
from pathlib import Path

from conftest import ROOT

PACKAGE = Path(ROOT) / "workbench"
SQL_HOME = PACKAGE / "core" / "store"
SQL = re.compile(
    r"(?-i:\bSELECT\b)[\s\S]*?\bFROM\b"  # upper case only: "select ... from" is also English
    r"|\bINSERT\s+(?:OR\s+\w+\s+)?INTO\b"
    r"|\bUPDATE\s+\w+\s+SET\b"
    r"|\bDELETE\s+FROM\b"
    r"|\bCREATE\s+(?:UNIQUE\s+|VIRTUAL\s+|TEMP\s+|TEMPORARY\s+)?(?:TABLE|INDEX|VIEW|TRIGGER)\b"
    r"|\bPRAGMA\s+\w+",
    re.IGNORECASE,
)


def _allowed(path: Path) -> bool:
    return path.parent == SQL_HOME


def _sql_strings(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.search(node.value)]


def test_the_pattern_finds_sql_and_spares_prose():
    for sql in ("SELECT id FROM chunks", "SELECT count(*)\nfrom t", "insert into t values (1)",
                "INSERT OR REPLACE INTO x (a) VALUES (?)",
                "UPDATE runs SET x = 1", "DELETE FROM problems WHERE path = ?", "CREATE VIRTUAL TABLE f USING fts5",
                "PRAGMA quick_check(5)", "DELETE FROM chunks WHERE id IN ("):
        assert SQL.search(sql), sql
    for prose in ("select a run to delete it", "Delete the run", "update the index", "create a chunk set",
                  "Select the text, then copy it from the panel"):
        assert not SQL.search(prose), prose


def test_no_sql_outside_the_store_package():
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 50 and any(_allowed(p) for p in modules)
    found = [f"{p.relative_to(ROOT)}:{line}: {text[:60]!r}"
             for p in modules if not _allowed(p) for line, text in _sql_strings(p)]
    assert not found, "SQL outside workbench/core/store/:\n" + "\n".join(found)


def test_the_store_package_does_hold_the_sql():
    held = [s for p in sorted(SQL_HOME.glob("*.py")) for _, s in _sql_strings(p)]
    assert any("FROM chunks" in s for s in held) and any("FROM runs" in s for s in held)
