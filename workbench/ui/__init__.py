"""The Qt desktop app (PySide6), organised by panel over a small observable model."""
