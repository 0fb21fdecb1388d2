"""Chunk Workbench: explore how chunking and context expansion change retrieval-augmented answers."""

__version__ = "0.1.0"
