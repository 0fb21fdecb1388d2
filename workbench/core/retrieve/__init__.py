"""Stage 3, retrieve: strategies, the loaded chunk set, first-stage search (vector, BM25, hybrid), rerank,
section summaries, expansion of hits into passages, assembly and the pipeline that runs them in order."""
