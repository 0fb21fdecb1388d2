"""The workspace: one data folder, its facade (``Workspace``) and the parts it owns, one module each:
``records``, ``chunk_sets``, ``question_sets``, ``cuts``, ``corpus`` (cached lookups) and ``cache``."""

from workbench.core.workspace.facade import Workspace

__all__ = ["Workspace"]
