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
# faster machine). A measurement outside them is not kept, and a kept value outside them (an older version's,
# or a hand-edited table) is ignored and measured again: no estimate divides by ~0 or plans years of work, and
# the workbench never calls its own measurement damaged.
MIN_CHARS_PER_S = 100.0
MAX_CHARS_PER_S = 1e8
# A measurement of fewer characters is too short to mean anything: the model's fixed cost per call outweighs the
# text (indexing a one-byte file on a busy machine measured 67 characters/s).
MIN_MEASURED_CHARS = 500


def evidence_name(model_id: str) -> str:
    """The meta key of the seconds of embedding behind a model's kept rate."""
    return f"embed_seconds:{model_id}"


RATE_PREFIX = "embed_chars_per_s:"


def rate_name(model_id: str) -> str:
    """The meta key of a model's embedding rate."""
    return f"{RATE_PREFIX}{model_id}"


def plausible(rate: float) -> bool:
    """True for a rate (characters per second) within ``MIN_CHARS_PER_S`` to ``MAX_CHARS_PER_S``."""
    return MIN_CHARS_PER_S <= rate <= MAX_CHARS_PER_S


def implausible_rate(store: Store, model_id: str) -> float | None:
    """The kept rate of ``model_id`` when it lies outside the plausible range (ignored: measured again by the next
    build or estimate), else None."""
    rate = store.caches.rate(rate_name(model_id))
    return rate if rate is not None and not plausible(rate) else None


def embedding_rate(store: Store, model_id: str) -> float | None:
    """Characters per second this machine embedded with ``model_id``: None before any measurement, and when the
    kept value lies outside the plausible range (ignored, so that it is measured again)."""
    rate = store.caches.rate(rate_name(model_id))
    return rate if rate is not None and plausible(rate) else None


def _evidence(store: Store, model_id: str) -> float:
    """The seconds of embedding behind the kept rate, within (0, ``EVIDENCE_CAP_S``]."""
    seconds = store.caches.rate(evidence_name(model_id))
    return EVIDENCE_CAP_S if seconds is None else min(EVIDENCE_CAP_S, seconds)


def keep_rate(store: Store, model_id: str, meter: EmbedMeter, least_seconds: float = 1.0) -> float | None:
    """Fold ``meter``'s rate into the kept one; returns the rate kept, or None when nothing was kept: below
    ``least_seconds`` of embedding or ``MIN_MEASURED_CHARS`` characters (too short to mean anything), a measured
    rate outside the plausible range, or a store that cannot be written."""
    measured = meter.rate(least_seconds)
    if measured is None or meter.chars < MIN_MEASURED_CHARS or not plausible(measured):
        return None
    old = embedding_rate(store, model_id)  # None too for a kept value outside the plausible range: replaced
    behind = 0.0 if old is None else _evidence(store, model_id)
    weight = meter.seconds / (meter.seconds + behind) if behind > 0 else 1.0
    new = measured if old is None else (1 - weight) * old + weight * measured
    store.caches.keep_rate(rate_name(model_id), new)
    store.caches.keep_rate(evidence_name(model_id), min(EVIDENCE_CAP_S, behind + meter.seconds))
    return new
