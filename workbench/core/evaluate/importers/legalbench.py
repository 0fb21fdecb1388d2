"""LegalBench-RAG: ``benchmarks/NAME.json`` = ``{"tests": [{"query", "snippets": [{"file_path", "span": [start,
end], "answer"}]}]}`` with the contracts under ``corpus/``. The searched corpus is every file under the corpus
folders the benchmark's snippets point into (distractors included); file paths are compared NFC-normalised."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from workbench.core.evaluate.importers.base import Evidence, Item, Parsed, read_json
from workbench.core.evaluate.importers.shapes import items, obj, objects, offset, text
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
        for n, raw in enumerate(tests):
            at = f"{bench}: tests[{n}]"
            item_id = f"{bench.stem}#{n}"
            test = obj(raw, at)
            snippets = objects(test.get("snippets"), f"{at}.snippets")
            if test.get("query") is None or test.get("snippets") is None \
                    or any(s.get("file_path") is None or s.get("span") is None for s in snippets):
                parsed.skipped.append("a test without query or snippets with file_path and span")
                continue
            query = text(test["query"], f"{at}.query")
            evidence = []
            for k, snippet in enumerate(snippets):
                where = f"{at}.snippets[{k}]"
                span = items(snippet["span"], f"{where}.span")
                if len(span) != 2:
                    raise DatasetError(f"{where}.span: expected [start, end], found a list of {len(span)}")
                evidence.append(Evidence(_nfc(text(snippet["file_path"], f"{where}.file_path")),
                                         text(snippet.get("answer"), f"{where}.answer"),
                                         offset(span[0], f"{where}.span[0]"), offset(span[1], f"{where}.span[1]")))
            if not evidence:
                parsed.skipped.append("no snippet")
                continue
            folders |= {e.doc.split("/", 1)[0] for e in evidence}
            parsed.items.append(Item(item_id, query, evidence))
    parsed.files = {rel: p for rel, p in on_disk.items() if rel.split("/", 1)[0] in folders}
    for item in parsed.items:
        for e in item.evidence:
            if e.doc not in on_disk:
                parsed.missing[e.doc] = f"corpus/{e.doc} is missing (the benchmark names it, the corpus lacks it)"
    return parsed
