"""GUI cold start and peak memory: a fresh process opens the real window on a data folder, then runs one
search (which loads the chunk set: FAISS index + chunk table).

    .venv/bin/python benchmarks/startup_memory.py --data-dir /tmp/wb-scale/100000/data [--repeats 3]

Cold start = process start → main window shown (torch is not imported until the first embedding).
Peak memory = the process's maximum resident set size after the search (the target for 100k chunks is
1.5 GB). Use a data folder built by benchmarks/scale.py for the 100k figure.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = r"""
import json, os, resource, sys, time
t_import = time.perf_counter()
from PySide6.QtCore import QTimer
from workbench.ui.app.launch import make_app
from workbench.ui.app.settings import open_settings
from workbench.core.workspace import Workspace
from workbench.ui.window.main_window import MainWindow
app = make_app()
from workbench.core.store import Store
synthetic = any(s.model_id.startswith("synthetic") for s in Store(sys.argv[1] + "/workbench.sqlite3").sets.chunk_sets())
embedder = None
if synthetic:  # a scale data folder: synthetic chunk vectors, real MiniLM for the question
    sys.path.insert(0, "benchmarks")
    from synthetic import QueryTimedEmbedder
    from workbench.core.index.embedding import SentenceTransformerEmbedder
    embedder = QueryTimedEmbedder(SentenceTransformerEmbedder())
ws = Workspace(sys.argv[1], embedder=embedder)
window = MainWindow(ws, settings=open_settings(sys.argv[2]))
window.show()
def shown():
    print("SHOWN", flush=True)
    torch_loaded = "torch" in sys.modules
    t0 = time.perf_counter()
    from workbench.core.ingest.values import ChunkConfig
    info = next((s for s in ws.store.sets.chunk_sets() if s.state == "ready" and s.model_id == ws.embedder.model_id),
                None)
    chunks = 0
    if info is not None:
        from workbench.core.retrieve.strategy.presets import from_dict
        question = f"What did the president say about prices? ({sys.argv[3]})"  # new each run: really embedded
        res = ws.search(question, from_dict({**info.config.__dict__, "top_k": 10}))
        chunks = info.chunk_count
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"torch_at_show": torch_loaded, "search_s": time.perf_counter() - t0, "peak_rss": rss,
                      "chunks": chunks}), flush=True)
    app.quit()
QTimer.singleShot(0, shown)
app.exec()
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"), "HF_HUB_OFFLINE": "1"}
    starts, results = [], []
    for i in range(args.repeats):
        settings = Path(f"/tmp/wb-startup-settings-{i}.ini")
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", CHILD, args.data_dir, str(settings), f"{time.time()}"],
                                stdout=subprocess.PIPE,
                                text=True, env=env, cwd=ROOT)
        for line in proc.stdout:
            if line.startswith("SHOWN"):
                starts.append(time.perf_counter() - t0)
            elif line.startswith("{"):
                results.append(json.loads(line))
        proc.wait()
    r = max(results, key=lambda x: x["peak_rss"])
    print("| figure | value |\n|---|---|")
    print(f"| GUI cold start to a usable window (median of {args.repeats}; target ≤ 3 s) "
          f"| {statistics.median(starts):.2f} s |")
    print(f"| torch imported before the window was shown | {'yes' if r['torch_at_show'] else 'no'} |")
    print(f"| first search after start ({r['chunks']:,} chunks: load set + embed question) | {r['search_s']:.2f} s |")
    print(f"| peak memory, window open + {r['chunks']:,} chunks loaded (target ≤ 1.5 GB) | "
          f"{r['peak_rss'] / 1e9:.2f} GB |")


if __name__ == "__main__":
    main()
