"""Small reusable widgets that know no panel: slider rows, labels and combo boxes that elide or wrap, a pane
that scrolls, UTF-16 offset helpers."""
