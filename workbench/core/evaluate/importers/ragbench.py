"""RAGBench (JSON Lines, or Parquet when pyarrow is installed): each row's ``documents_sentences`` (per document a
list of ``[key, sentence]``) are joined into documents, and ``all_relevant_sentence_keys`` become references."""

from __future__ import annotations

from pathlib import Path

from workbench.core.evaluate.importers.base import Evidence, Item, Parsed, read_rows
from workbench.core.inputs import files_under


def read(source: Path) -> Parsed:
    """Every row of one file, or of every ``.jsonl`` / ``.parquet`` file in a folder. A row's documents are
    its own (one document per entry, sentences joined by a space); a row with no relevant key is skipped."""
    files = files_under(source, source, (".jsonl", ".parquet"), recursive=False) if source.is_dir() else [source]
    parsed = Parsed()
    for path in files:
        for n, row in read_rows(path):
            row_id = str(row.get("id") or f"{path.stem}:{n}")
            spans: dict[str, Evidence] = {}
            for d, sentences in enumerate(row.get("documents_sentences") or []):
                key, text = f"{row_id}-doc{d}", ""
                for pair in sentences or []:
                    if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                        continue
                    start = len(text) + (1 if text else 0)
                    text = f"{text} {pair[1]}" if text else str(pair[1])
                    spans[str(pair[0])] = Evidence(key, str(pair[1]), start, start + len(str(pair[1])))
                parsed.texts[key] = text
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
