"""RAGBench (the Hub's Parquet files, one per subset and split, or JSON Lines): each row's
``documents_sentences`` (per document a list of ``[key, sentence]``) are joined into documents, and
``all_relevant_sentence_keys`` become references.

Several subsets hold each question once per generating model (same ``id``, same question, the relevant keys
each annotator found for that response): they are one question, its evidence the union of the rows' relevant
sentences (``base.merge_repeats``). Rows share documents only where the text is the same; a row whose
documents differ from an earlier row with its id keeps its own."""

from __future__ import annotations

from pathlib import Path

from workbench.core.evaluate.importers.base import Evidence, Item, Parsed, read_rows
from workbench.core.evaluate.importers.shapes import items, kind, text, texts
from workbench.core.evaluate.question_set import DatasetError
from workbench.core.inputs import files_under

SUFFIXES = (".jsonl", ".parquet")


def read(source: Path) -> Parsed:
    """Every row of one file, or of every ``.jsonl`` / ``.parquet`` file under a folder (the Hub's
    ``SUBSET/SPLIT-*.parquet`` or ``SUBSET/SPLIT/0000.parquet`` layouts). A row's documents are its own (one
    document per entry, sentences joined by a space); a row with no relevant key is skipped."""
    files = files_under(source, source, SUFFIXES) if source.is_dir() else [source]  # the read rules: inside it
    parsed = Parsed()
    for path in files:
        for n, row in read_rows(path):
            at = f"{path}, line {n}"
            row_id = text(row.get("id"), f"{at}: id") or f"{path.stem}:{n}"
            spans: dict[str, Evidence] = {}
            for d, sentences in enumerate(items(row.get("documents_sentences"), f"{at}: documents_sentences")):
                body = ""
                placed: list[tuple[str, str, int]] = []
                for i, pair in enumerate(items(sentences, f"{at}: documents_sentences[{d}]")):
                    where = f"{at}: documents_sentences[{d}][{i}]"
                    if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                        raise DatasetError(f"{where}: expected a [key, sentence] pair, found {kind(pair)}"
                                           + (f" of {len(pair)}" if isinstance(pair, list) else ""))
                    sentence = text(pair[1], f"{where}[1]")
                    start = len(body) + (1 if body else 0)
                    body = f"{body} {sentence}" if body else sentence
                    placed.append((text(pair[0], f"{where}[0]"), sentence, start))
                key = parsed.add_text(f"{row_id}-doc{d}", body)
                for k, sentence, start in placed:
                    spans[k] = Evidence(key, sentence, start, start + len(sentence))
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
