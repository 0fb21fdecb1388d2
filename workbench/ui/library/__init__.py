"""The library panel: indexed documents, the welcome page and the guided benchmark tour."""
