"""Embedding while another program keeps one core busy: torch's own threads against one thread and the lanes.

torch's threads meet after every operation, so a core held by another program slows each of them; a lane only
takes fewer batches. A busy loop in a second process holds one core while the same chunk texts are embedded
by the exact model on torch's every-core threads, on one thread, and on the workbench's lanes, ``--repeats``
times interleaved.

    .venv/bin/python benchmarks/busy_core.py [--texts 128] [--repeats 2]
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--texts", type=int, default=128)
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    import warnings

    warnings.filterwarnings("ignore")
    import torch
    from embedding_routes import chunk_texts

    from workbench.core.index.embedding import SentenceTransformerEmbedder
    from workbench.core.lanes import cores

    all_texts = chunk_texts([str(ROOT / "workbench/datasets/chroma-general/corpora")], 200)
    texts = random.Random(2).sample(all_texts, min(args.texts, len(all_texts)))
    embedder = SentenceTransformerEmbedder()
    model = embedder.model
    every = cores()
    model.encode(["warm up"] * 8)

    def on_threads(n: int) -> None:
        torch.set_num_threads(n)
        model.encode(texts, batch_size=16, show_progress_bar=False)

    routes = {f"torch's own threads ({every})": lambda: on_threads(every), "one torch thread": lambda: on_threads(1),
              f"lanes ({every}, one torch thread each)": lambda: embedder.encode(texts)}
    rates: dict[str, list[float]] = {name: [] for name in routes}
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(1)
        for _ in range(args.repeats):
            for name, run in routes.items():
                t0 = time.perf_counter()
                run()
                rates[name].append(len(texts) / (time.perf_counter() - t0))
    finally:
        busy.kill()
    print(f"{len(texts)} chunk texts of 200 tokens, exact model, one core held by a busy loop; "
          f"{args.repeats} interleaved runs\n")
    print("| route | texts/s (median) | runs |\n|---|---:|---|")
    for name, values in rates.items():
        print(f"| {name} | {statistics.median(values):.1f} | {', '.join(f'{v:.1f}' for v in values)} |")


if __name__ == "__main__":
    main()
