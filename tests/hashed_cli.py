"""``python tests/hashed_cli.py ARGS…``: the ``workbench`` command in a process of its own, embedding with
``fake_embedder.HashEmbedder`` wherever it would open the default model (as the ``hash_cli`` fixture does
in-process; other model specs open as usual).

For tests whose point is the process boundary (SIGKILL mid-write, two processes on one data folder, the exit
code and stderr of a real process, the terminal encoding) but not the model: the child starts in well under
a second instead of loading MiniLM. Progress is reported as the real model reports it, and
``WORKBENCH_TEST_EMBED_DELAY`` (seconds, default 0) makes every 64 vectors take that long, so a test can
still kill the child in the middle of embedding.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]  # this checkout's workbench package, then the test helpers


def use_hashed_embedder() -> None:
    """From now on this process opens the hashed embedder wherever it would open the default model."""
    from fake_embedder import HashEmbedder

    import workbench.core.index.embedder_pool as pool
    from workbench.core.jobs import Reporter

    delay = float(os.environ.get("WORKBENCH_TEST_EMBED_DELAY", "0"))

    class SlowHashEmbedder(HashEmbedder):
        def encode(self, texts, progress=None, cancel=None):
            report = Reporter(progress, "embedding", len(texts))
            for i in range(0, len(texts), 16):  # progress as the real model reports it, 16 texts at a time
                if cancel is not None:
                    cancel.check()
                time.sleep(delay * min(16, len(texts) - i) / 64)
                report(min(len(texts), i + 16))
            return super().encode(texts, None, cancel)

    fake = SlowHashEmbedder()
    real = pool.open_embedder

    def open_embedder(spec, host=None, allow_remote=False):
        return fake if not pool.normalise_model_spec(spec) else real(spec, host, allow_remote)

    pool.open_embedder = open_embedder


def main(argv: list[str] | None = None) -> int:
    """``workbench ARGV`` with the hashed embedder."""
    use_hashed_embedder()
    from workbench.cli import main as cli

    return cli(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
