"""The compare view: two strategy sides, their knobs, ranked passages, the document pane and span diffs."""
