"""The one way tests run the ``workbench`` command in-process (not a test module itself)."""

from __future__ import annotations

from workbench.cli import main


def run_cli(capsys, *args) -> tuple[int, str, str]:  # pytest's capsys, any printable args
    """``(exit status, stdout, stderr)`` of ``workbench ARGS`` run in this process (arguments as ``str``)."""
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def searched_both_ways(capsys, data_dir, corpus, *option: str) -> tuple[list[tuple[int, int]], list[dict]]:
    """Index ``corpus`` into ``data_dir``, then search one question without and with ``option``: the first run's
    passages as ``(doc_id, start)`` and the second run's JSON rows."""
    import json

    data = str(data_dir)
    assert run_cli(capsys, "index", str(corpus), "--data-dir", data, "--quiet")[0] == 0
    question = ["search", "How do I flush the cache?", "--data-dir", data, "--json", "--window", "0", "--top-k", "4"]
    code, out, err = run_cli(capsys, *question)
    assert code == 0, err
    forward = [(h["doc_id"], h["start"]) for h in json.loads(out)]
    code, out, err = run_cli(capsys, *question, *option)
    assert code == 0, err
    return forward, json.loads(out)
