"""What every part of the window uses (the bottom of its layers, importing no other ui package): theme,
configuration colours, settings, wording, where the bundled sample lies."""
