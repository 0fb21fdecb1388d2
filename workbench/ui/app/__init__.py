"""Application bootstrap: the entry point, self-test, theme, settings and the settings dialog, logs."""
