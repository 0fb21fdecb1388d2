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

SUFFIXES = (".jsonl", ".parquet")


def read(source: Path) -> Parsed:
    """Every row of one file, or of every ``.jsonl`` / ``.parquet`` file under a folder (the Hub's
    ``SUBSET/SPLIT-*.parquet`` or ``SUBSET/SPLIT/0000.parquet`` layouts). A row's documents are its own (one
    document per entry, sentences joined by a space); a row with no relevant key is skipped."""
    files = sorted(p for p in source.rglob("*") if p.suffix in SUFFIXES and p.is_file()) if source.is_dir() \
        else [source]
    parsed = Parsed()
    for path in files:
        for n, row in read_rows(path):
            row_id = str(row.get("id") or f"{path.stem}:{n}")
            spans: dict[str, Evidence] = {}
            for d, sentences in enumerate(row.get("documents_sentences") or []):
                text = ""
                placed: list[tuple[str, str, int]] = []
                for pair in sentences or []:
                    if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                        continue
                    start = len(text) + (1 if text else 0)
                    text = f"{text} {pair[1]}" if text else str(pair[1])
                    placed.append((str(pair[0]), str(pair[1]), start))
                key = parsed.add_text(f"{row_id}-doc{d}", text)
                for k, sentence, start in placed:
                    spans[k] = Evidence(key, sentence, start, start + len(sentence))
            keys = [str(k) for k in row.get("all_relevant_sentence_keys") or []]
            if not keys:
                parsed.skipped.append("no relevant sentence key")
                continue
            missing = [k for k in keys if k not in spans]
            if missing:
                parsed.skipped.append("a relevant sentence key names no sentence of the row's documents")
                continue
            parsed.items.append(Item(row_id, str(row.get("question") or ""), [spans[k] for k in keys],
                                     str(row.get("response") or "")))
    return parsed
