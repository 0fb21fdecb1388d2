"""The Qt desktop app (PySide6). Importing this package applies the binding work-arounds of ``qt_compat``."""

from workbench.ui.qt_compat import guard_none_refcount

NONE_GUARD_APPLIED = guard_none_refcount()
