"""LegalBench-RAG: ``benchmarks/NAME.json`` = ``{"tests": [{"query", "snippets": [{"file_path", "span": [start,
end], "answer"}]}]}`` with the contracts under ``corpus/``. The searched corpus is every file under the corpus
folders the benchmark's snippets point into (distractors included); file paths are compared NFC-normalised."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from workbench.core.evaluate.importers.base import Evidence, Item, Parsed, read_json
from workbench.core.evaluate.question_set import DatasetError
from workbench.core.inputs import files_under


def _nfc(path: str) -> str:
    return unicodedata.normalize("NFC", path.replace("\\", "/")).strip("/")


def read(source: Path) -> Parsed:
    """``source``: one benchmark file (``…/benchmarks/NAME.json``, its corpus in ``../corpus``) or the folder
    holding ``benchmarks/`` and ``corpus/`` (every benchmark in it)."""
    if source.is_file():
        root, benchmarks = source.parent.parent, [source]
    else:
        root, benchmarks = source, files_under(source / "benchmarks", source, (".json",), recursive=False)
    corpus = root / "corpus"
    if not benchmarks or not corpus.is_dir():
        raise DatasetError(f"{source}: expected benchmarks/NAME.json and a corpus/ folder beside it")
    on_disk = {_nfc(str(p.relative_to(corpus))): p for p in files_under(corpus, root)}  # no link out, no FIFO
    parsed = Parsed()
    folders: set[str] = set()
    for bench in benchmarks:
        data = read_json(bench)
        tests = data.get("tests") if isinstance(data, dict) else None
        if not isinstance(tests, list):
            raise DatasetError(f"{bench}: no \"tests\" list")
        for n, test in enumerate(tests):
            item_id = f"{bench.stem}#{n}"
            try:
                query = str(test["query"])
                evidence = [Evidence(_nfc(str(s["file_path"])), str(s.get("answer") or ""), int(s["span"][0]),
                                     int(s["span"][1])) for s in test["snippets"]]
            except (KeyError, TypeError, ValueError, IndexError):
                parsed.skipped.append("a test without query or snippets with file_path and span")
                continue
            if not evidence:
                parsed.skipped.append("no snippet")
                continue
            folders |= {e.doc.split("/", 1)[0] for e in evidence}
            parsed.items.append(Item(item_id, query, evidence))
    parsed.files = {rel: p for rel, p in on_disk.items() if rel.split("/", 1)[0] in folders}
    return parsed
