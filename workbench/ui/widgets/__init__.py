"""Small reusable widgets: slider rows, the span-highlighting text view, UTF-16 offset helpers."""
