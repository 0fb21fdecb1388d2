"""RAGBench (JSON Lines, or Parquet when pyarrow is installed): each row's ``documents_sentences`` (per document a
list of ``[key, sentence]``) are joined into documents, and ``all_relevant_sentence_keys`` become references."""

from __future__ import annotations

from pathlib import Path

from workbench.core.evaluate.importers.base import Evidence, Item, Parsed, read_rows
from workbench.core.evaluate.importers.shapes import items, kind, text, texts
from workbench.core.evaluate.question_set import DatasetError


def read(source: Path) -> Parsed:
    """Every row of one file, or of every ``.jsonl`` / ``.parquet`` file in a folder. A row's documents are
    its own (one document per entry, sentences joined by a space); a row with no relevant key is skipped."""
    files = sorted(p for p in source.iterdir() if p.suffix in (".jsonl", ".parquet")) if source.is_dir() \
        else [source]
    parsed = Parsed()
    for path in files:
        for n, row in read_rows(path):
            at = f"{path}, line {n}"
            row_id = text(row.get("id"), f"{at}: id") or f"{path.stem}:{n}"
            spans: dict[str, Evidence] = {}
            for d, sentences in enumerate(items(row.get("documents_sentences"), f"{at}: documents_sentences")):
                key, body = f"{row_id}-doc{d}", ""
                for i, pair in enumerate(items(sentences, f"{at}: documents_sentences[{d}]")):
                    where = f"{at}: documents_sentences[{d}][{i}]"
                    if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                        raise DatasetError(f"{where}: expected a [key, sentence] pair, found {kind(pair)}"
                                           + (f" of {len(pair)}" if isinstance(pair, list) else ""))
                    sentence = text(pair[1], f"{where}[1]")
                    start = len(body) + (1 if body else 0)
                    body = f"{body} {sentence}" if body else sentence
                    spans[text(pair[0], f"{where}[0]")] = Evidence(key, sentence, start, start + len(sentence))
                parsed.texts[key] = body
            keys = texts(row.get("all_relevant_sentence_keys"), f"{at}: all_relevant_sentence_keys")
            if not keys:
                parsed.skipped.append("no relevant sentence key")
                continue
            missing = [k for k in keys if k not in spans]
            if missing:
                parsed.skipped.append("a relevant sentence key names no sentence of the row's documents")
                continue
            parsed.items.append(Item(row_id, text(row.get("question"), f"{at}: question"), [spans[k] for k in keys],
                                     text(row.get("response"), f"{at}: response")))
    return parsed
