"""This machine's measured embedding rate per model, kept in the data folder (the store's meta table).

Every chunk-set build adds up the characters it embedded and the seconds the model took (``EmbedMeter``);
``keep_rate`` folds that into the kept rate, each side weighed by the seconds of embedding behind it (the kept
side counts at most ``EVIDENCE_CAP_S``): a build of a minute moves an established rate halfway, so the rate
follows the machine without jumping on one busy run, and the first real build outweighs the second-long
measurement taken before it. The cost estimate of the next build (``estimate``) divides the characters it
expects to embed by this rate.
"""

from __future__ import annotations

from workbench.core.index.embedding import EmbedMeter
from workbench.core.store import Store

EVIDENCE_CAP_S = 60.0  # seconds of embedding a kept rate stands for, at most
# The plausible range of a kept rate, in characters per second. Measured: MiniLM ~5,200 on a busy 2-core
# laptop (docs/performance.md: ~1,300 tokens/s), the hashed test embedder ~3,000,000. The bounds leave a
# wide margin each way (a model 50x slower than MiniLM, such as a large one on a slow Ollama server; a far
# faster machine); a kept value outside them (a damaged or hand-edited table) is clamped with a warning, so
# no estimate divides by ~0 or plans years of work.
MIN_CHARS_PER_S = 100.0
MAX_CHARS_PER_S = 1e8


def evidence_name(model_id: str) -> str:
    """The meta key of the seconds of embedding behind a model's kept rate."""
    return f"embed_seconds:{model_id}"


RATE_PREFIX = "embed_chars_per_s:"


def rate_name(model_id: str) -> str:
    """The meta key of a model's embedding rate."""
    return f"{RATE_PREFIX}{model_id}"


def embedding_rate(store: Store, model_id: str) -> float | None:
    """Characters per second this machine embedded with ``model_id`` (None before any measurement), within
    the plausible range: a kept value outside it is clamped and named in ``store.bad_values``."""
    rate = store.caches.rate(rate_name(model_id))
    if rate is None:
        return None
    clamped = min(MAX_CHARS_PER_S, max(MIN_CHARS_PER_S, rate))
    if clamped != rate:
        store.bad_values.note(f"meta 'rate:{rate_name(model_id)}'",
                              f"{rate!r} characters/s is outside the plausible {MIN_CHARS_PER_S:g} to "
                              f"{MAX_CHARS_PER_S:g}; read as {clamped:g} until this machine's rate is measured again")
    return clamped


def _evidence(store: Store, model_id: str) -> float:
    """The seconds of embedding behind the kept rate, within (0, ``EVIDENCE_CAP_S``]."""
    seconds = store.caches.rate(evidence_name(model_id))
    return EVIDENCE_CAP_S if seconds is None else min(EVIDENCE_CAP_S, seconds)


def keep_rate(store: Store, model_id: str, meter: EmbedMeter, least_seconds: float = 1.0) -> float | None:
    """Fold ``meter``'s rate into the kept one (skipped below ``least_seconds`` of embedding, and where the
    store cannot be written); returns the rate kept, or None."""
    measured = meter.rate(least_seconds)
    if measured is None:
        return None
    old = embedding_rate(store, model_id)
    if old is not None and old != store.caches.rate(rate_name(model_id)):
        old = None  # a kept value outside the plausible range is replaced by this measurement, not blended
    behind = 0.0 if old is None else _evidence(store, model_id)
    weight = meter.seconds / (meter.seconds + behind) if behind > 0 else 1.0
    new = measured if old is None else (1 - weight) * old + weight * measured
    store.caches.keep_rate(rate_name(model_id), new)
    store.caches.keep_rate(evidence_name(model_id), min(EVIDENCE_CAP_S, behind + meter.seconds))
    return new
