"""Time to first token and generation speed of the embedded model for a ~500- and a ~2,500-token context.

Usage: ``.venv/bin/python benchmarks/llm_latency.py [--runs 3] [--max-tokens 64] [--threads N]``

Contexts are numbered passages cut from the sample corpus and counted with the model's own tokenizer;
each run starts with a different first line so llama.cpp's prompt cache cannot help. Prints one line per
size (medians) and, with ``--json``, the raw runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.core.answer.prompt import NumberedPassage, render_messages  # noqa: E402
from workbench.core.ingest.documents import load_file  # noqa: E402
from workbench.core.llm import GenerateOptions  # noqa: E402
from workbench.core.llm.embedded import EmbeddedBackend  # noqa: E402
from workbench.core.spans import Span  # noqa: E402

QUESTION = "How do I flush the cache after a deploy?"


def corpus_paragraphs() -> list[tuple[str, str]]:
    """``(file name, paragraph)`` pairs of the sample corpus."""
    out = []
    for path in sorted((ROOT / "resources" / "sample").iterdir()):
        doc = load_file(path).document
        if doc is not None:
            out += [(path.name, p.strip()) for p in doc.text.split("\n\n") if len(p.strip()) > 40]
    return out


def context_of(backend: EmbeddedBackend, target: int) -> list[NumberedPassage]:
    """Numbered passages of about ``target`` tokens (paragraphs repeat when the corpus is shorter)."""
    paragraphs = corpus_paragraphs()
    passages: list[NumberedPassage] = []
    total, i = 0, 0
    while total < target:
        name, text = paragraphs[i % len(paragraphs)]
        block = " ".join(t for _, t in paragraphs[i % len(paragraphs): i % len(paragraphs) + 3])
        p = NumberedPassage(len(passages) + 1, len(passages) + 1, Span(0, 0, len(block)), f"[{name}]", block)
        p_tokens = backend.count_tokens(p.block + "\n\n")
        if total + p_tokens > target * 1.05 and passages:
            block = block[: int(len(block) * (target - total) / p_tokens)]
            p = NumberedPassage(p.number, p.rank, Span(0, 0, len(block)), p.label, block)
            p_tokens = backend.count_tokens(p.block + "\n\n")
        passages.append(p)
        total += p_tokens
        i += 3
    return passages


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--max-tokens", type=int, default=64)
    ap.add_argument("--threads", type=int, default=None, help="default: physical cores")
    ap.add_argument("--sizes", default="500,2500")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    backend = EmbeddedBackend(threads=args.threads)
    t = time.perf_counter()
    backend.complete([{"role": "user", "content": "Hi"}], max_tokens=2)
    print(f"model {backend.model}, {backend.threads} thread(s), load + warm-up {time.perf_counter() - t:.2f} s, "
          f"load average {os.getloadavg()[0]:.2f}", flush=True)
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        passages = context_of(backend, size)
        runs = []
        for r in range(args.runs):
            messages = render_messages(QUESTION, passages)
            messages[0]["content"] = f"Run {r} of {size}. " + messages[0]["content"]  # defeat the prompt cache
            gen = backend.generate(messages, GenerateOptions(max_tokens=args.max_tokens, repeat_penalty=1.1))
            gen.run()
            runs.append(gen.stats.to_dict())
        row = {
            "context_tokens": sum(backend.count_tokens(p.block + "\n\n") for p in passages),
            "prompt_tokens": runs[0]["prompt_tokens"],
            "ttft_s": statistics.median(r["time_to_first_token_s"] for r in runs),
            "tokens_per_s": statistics.median(r["tokens_per_s"] for r in runs),
            "output_tokens": statistics.median(r["output_tokens"] for r in runs),
            "prompt_tokens_per_s": (runs[0]["prompt_tokens"]
                                    / statistics.median(r["time_to_first_token_s"] for r in runs)),
            "runs": runs,
        }
        rows.append(row)
        print(f"~{size:>5}-token context: {row['prompt_tokens']} prompt tokens, time to first token "
              f"{row['ttft_s']:.2f} s ({row['prompt_tokens_per_s']:.0f} prompt tokens/s), generation "
              f"{row['tokens_per_s']:.1f} tokens/s over {row['output_tokens']:.0f} tokens (median of {args.runs})",
              flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
