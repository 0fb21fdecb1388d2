"""Stage 2, index: the SQLite store (schema, connection, tables, locks), embeddings with their cache, the
FAISS vector files, building and verifying chunk sets, and the text each chunk is embedded with
(heading-path prefixes, LLM context sentences)."""
