"""Documents and a scripted LLM for the contextual-retrieval tests (the core's and the window's dialog)."""

from __future__ import annotations

from pathlib import Path

from workbench.core.index import situating as ctx
from workbench.core.jobs import CancelToken

SIZE = 64
ALPHA = """# Deploying Orbit

## Rolling back

If the error rate rises above two percent within fifteen minutes, roll back with `orbit-admin rollback --to previous`.
Rolling back does not undo migrations, which is safe because migrations only add columns.

## Flushing the cache

Flush only the page cache after every replica runs the new version; the session cache must stay, or every user
is logged out. Pages rendered by old replicas may link to removed assets.
"""
BETA = """# Greenhouse sensors

Each bench carries a soil moisture probe and a thermometer. The probes report every five minutes to the
gateway in the potting shed, which keeps a week of readings.

## Calibration

Calibrate a probe in dry sand and then in water once a season. A probe that reads above 90 percent in dry
sand is faulty and must be replaced, not recalibrated.
"""


def write_docs(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "alpha.md").write_text(ALPHA, encoding="utf-8")
    (folder / "beta.md").write_text(BETA, encoding="utf-8")
    return folder


class ScriptedLLM:
    """A stand-in backend: ``complete()`` returns fixed text (tests the clean-up and the bookkeeping)."""

    name, model, label = "scripted", "scripted-v1", "scripted stand-in"

    def __init__(self, text: str = 'Sentence: "This chunk is from a test document." Extra words.',
                 cancel_on: tuple[int, CancelToken] | None = None) -> None:
        self.text, self.calls, self.cancel_on = text, 0, cancel_on

    def complete(self, messages, max_tokens=256, temperature=0.0, cancel=None):
        self.calls += 1
        assert len(messages[-1]["content"]) < ctx.CONTEXT_CHARS + ctx.CHUNK_CHARS + 400
        if self.cancel_on and self.calls == self.cancel_on[0]:
            self.cancel_on[1].cancel()  # the user cancels while this call runs
        return self.text
