"""Views of a chunk set that are not retrieval: its map of cuts and their diagnostics, its vectors in 2-D, two
sets' cuts compared, its chunks exported and read back."""
