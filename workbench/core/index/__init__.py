"""Stage 2, index: the data folder's writer lock, embeddings with their cache, the FAISS vector files, building,
estimating, removing and verifying chunk sets, and the text each chunk is embedded with (heading-path prefixes,
LLM context sentences). The SQLite store it writes through is the stage below (``workbench.core.store``)."""
