"""This machine's measured embedding rate per model, kept in the data folder (the store's meta table).

Every chunk-set build adds up the characters it embedded and the seconds the model took (``EmbedMeter``);
``keep_rate`` folds that into the kept rate (half the old, half the new, so it follows the machine without
jumping on one busy run). The cost estimate of the next build (``estimate``) divides the characters it
expects to embed by this rate.
"""

from __future__ import annotations

from workbench.core.index.embedding import EmbedMeter
from workbench.core.store import Store

KEEP_WEIGHT = 0.5  # share of a new measurement in the kept rate


def rate_name(model_id: str) -> str:
    """The meta key of a model's embedding rate."""
    return f"embed_chars_per_s:{model_id}"


def embedding_rate(store: Store, model_id: str) -> float | None:
    """Characters per second this machine embedded with ``model_id`` (None before any measurement)."""
    return store.rate(rate_name(model_id))


def keep_rate(store: Store, model_id: str, meter: EmbedMeter, least_seconds: float = 1.0) -> float | None:
    """Fold ``meter``'s rate into the kept one (skipped below ``least_seconds`` of embedding, and where the
    store cannot be written); returns the rate kept, or None."""
    measured = meter.rate(least_seconds)
    if measured is None:
        return None
    old = embedding_rate(store, model_id)
    new = measured if old is None else (1 - KEEP_WEIGHT) * old + KEEP_WEIGHT * measured
    store.keep_rate(rate_name(model_id), new)
    return new
