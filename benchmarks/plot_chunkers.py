"""Plot chunkers compared: recall against mean context tokens, one point per (chunker, size) row.

Reads the JSON rows ``chunkers_compared.py --out`` writes (any number of files, e.g. one per size) and saves
a PNG (matplotlib, Agg backend: no display needed).

    .venv/bin/python benchmarks/plot_chunkers.py benchmarks/results/chunkers-128.json \\
        benchmarks/results/chunkers-256.json --out docs/chunkers-compared.png
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main() -> int:
    """Read the rows, draw one labelled marker per row, save the figure."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("rows", nargs="+", help="JSON files written by chunkers_compared.py --out")
    p.add_argument("--out", default="docs/chunkers-compared.png")
    args = p.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5), dpi=110)
    markers = "osD^v<>p*h"
    for i, path in enumerate(args.rows):
        rows = json.loads(Path(path).read_text(encoding="utf-8"))
        xs = [r["context_tokens"] for r in rows]
        ys = [100 * r["recall"] for r in rows]
        ax.scatter(xs, ys, marker=markers[i % len(markers)], s=40, label=Path(path).stem)
        for r, x, y in zip(rows, xs, ys, strict=True):
            name = r["chunker"] if r.get("chunker") not in (None, "None") else r["label"]
            ax.annotate(name, (x, y), textcoords="offset points", xytext=(4, 3), fontsize=7)
    ax.set_xlabel("mean context tokens per question (top-5)")
    ax.set_ylabel("recall %")
    ax.set_title("Chunkers on the bundled Chroma benchmark (472 questions, MiniLM, dense top-5)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
