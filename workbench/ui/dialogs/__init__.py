"""Dialogs the window and the panels open: settings (with its Ollama probe), consent to run a custom chunker,
About."""
