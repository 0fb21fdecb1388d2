"""Issue #48 item 17: the small messages say what truly happened, in one line: a ``--ref`` offset written with a
digit that is no ASCII digit, an unpaired surrogate escape in JSON, a Ray client address on the loopback address,
a Ray host that does not resolve (exit 2, as docs/cluster.md says), an empty ``--quote``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_cli

from workbench.commands.common import exception_sentence

SAMPLE = Path(__file__).resolve().parents[2] / "resources" / "sample" / "deploy-guide.md"


@pytest.fixture
def data(tmp_path, capsys, hash_cli):
    d = tmp_path / "data"
    assert run_cli(capsys, "index", SAMPLE, "--data-dir", d, "--quiet")[0] == 0
    assert run_cli(capsys, "questions", "new", "s", "--data-dir", d)[0] == 0
    return d


@pytest.mark.parametrize(("ref", "says"), [
    ("1:²:3", "write DOC:START:END"), ("1:0:³", "write DOC:START:END"), ("1:٣:9", "write DOC:START:END"),
    ("²:0:3", "no stored document '²'"),
])
def test_a_ref_with_a_digit_int_cannot_read_is_one_line(data, capsys, ref, says):
    code, _, err = run_cli(capsys, "questions", "add", "s", "Why?", "--ref", ref, "--data-dir", data)
    assert code == 1 and says in err and len(err.strip().splitlines()) == 1, err
    assert "invalid literal" not in err


def test_an_empty_quote_is_said_to_be_empty(data, capsys):
    for quote in ("", "   "):
        code, _, err = run_cli(capsys, "questions", "add", "s", "Why?", "--quote", quote, "--data-dir", data)
        assert code == 1 and "the quote is empty" in err and len(err.strip().splitlines()) == 1, err


def test_an_unpaired_surrogate_is_named_as_such():
    try:
        "a\ud800b".encode("utf-8")
    except UnicodeEncodeError as exc:
        said = exception_sentence(exc)
    assert "unpaired surrogate" in said and "not valid utf-8" not in said.lower(), said


def test_an_unpaired_surrogate_escape_in_a_benchmark_names_the_place(tmp_path, capsys, hash_cli):
    source = tmp_path / "s.json"
    source.write_text(json.dumps({"data": [{"title": "t", "paragraphs": [{"context": "ab \ud800 the answer", "qas": [
        {"id": "1", "question": "q?", "answers": [{"text": "the answer", "answer_start": 5}]}]}]}]}),
        encoding="utf-8")
    assert "\\ud800" in source.read_text(encoding="utf-8")  # valid UTF-8: the escape is JSON's
    code, _, err = run_cli(capsys, "import-questions", "squad", source, "--set", "s", "--data-dir", tmp_path / "d")
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert "unpaired surrogate" in err and "data[0].paragraphs[0].context" in err, err
    assert not (tmp_path / "d").exists()


def test_a_ray_client_on_the_loopback_address_is_described_truly(tmp_path, capsys, hash_cli):
    data = tmp_path / "data"
    for host in ("127.0.0.1", "localhost", "[::1]"):
        code, out, err = run_cli(capsys, "index", SAMPLE, "--cluster", f"ray://{host}:10001", "--data-dir", data)
        assert code == 1 and len(err.strip().splitlines()) == 1 and not out, err
        assert "is not this machine" not in err and "loopback" in err and "--cluster local" in err, err
    assert not data.exists()


def test_a_ray_host_that_does_not_resolve_exits_2_with_or_without_consent(tmp_path, capsys, hash_cli):
    data = tmp_path / "data"
    for extra in ([], ["--allow-remote"]):
        code, _, err = run_cli(capsys, "index", SAMPLE, "--cluster", "ray://nohost.invalid:10001", *extra,
                               "--data-dir", data)
        assert code == 2 and "unknown host" in err and len(err.strip().splitlines()) == 1, err
    assert not data.exists()


def test_digits_int_cannot_read_are_refused_where_a_number_is_parsed():
    """Beyond the issue: every other ``str.isdigit()`` before an ``int()`` took '²' (a digit to ``isdigit``, not
    to ``int``) and ended in 'invalid literal for int()' or an uncaught ``ValueError``."""
    from workbench.core.evaluate.baseline import resolve_baseline
    from workbench.core.retrieve.rerank import parse_ranking
    from workbench.core.retrieve.strategy.search_config import parse_coarse
    from workbench.core.store.readback import counter

    assert parse_ranking('["²", "1"]', 3) == (None, "the LLM's ranking could not be parsed")
    with pytest.raises(ValueError, match="must look like 100:2"):
        parse_coarse("²:2")
    assert counter("²")[0] is None
    with pytest.raises(ValueError) as caught:
        resolve_baseline(["a", "b"], "²")
    assert "invalid literal" not in str(caught.value)
