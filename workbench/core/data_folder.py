"""Where a workspace keeps its data: ``--data-dir``, else ``$WORKBENCH_DATA``, else the per-user data folder."""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "chunk-workbench"


def resolve_data_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """``--data-dir`` if given, else ``$WORKBENCH_DATA``, else the per-user data folder."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("WORKBENCH_DATA")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
