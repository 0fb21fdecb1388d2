"""Colours that stay apart: one colour per configuration line of a lab run, and the arithmetic that checks a
palette for people with colour-vision deficiencies (CIELAB ΔE, under simulated protan, deutan and tritan
vision).

Configuration colours come from the Okabe–Ito set (chosen to stay distinct for the common colour-vision
deficiencies), then Paul Tol's muted set, then evenly spaced hues; every line of a run gets its own.
The simulation is Machado, Oliveira and Fernandes (2009) at full severity, applied in linear sRGB.
"""

from __future__ import annotations

import colorsys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.core.evaluate.sweep import SweepConfig

# Okabe–Ito without its yellow (too light on white) and black (the text colour), then Tol's muted set
LINE_COLOURS = ("#0072b2", "#e69f00", "#009e73", "#d55e00", "#56b4e9", "#cc79a7",
                "#332288", "#117733", "#999933", "#882255", "#44aa99", "#aa4499")
GOLDEN = 0.381966  # hue step (in turns) for colours beyond the fixed list

Rgb = tuple[float, float, float]
Lab = tuple[float, float, float]

CVD_MATRICES: dict[str, tuple[Rgb, Rgb, Rgb]] = {
    "protan": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "deutan": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "tritan": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
}
VISIONS = ("normal", *CVD_MATRICES)


def line_colour(n: int) -> str:
    """The ``n``-th line colour (0-based): the fixed list, then evenly spaced hues (all distinct)."""
    if n < len(LINE_COLOURS):
        return LINE_COLOURS[n]
    r, g, b = colorsys.hls_to_rgb(((n - len(LINE_COLOURS)) * GOLDEN) % 1.0, 0.45, 0.65)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


def configuration_colours(configs: Sequence[SweepConfig]) -> dict[str, str]:
    """Configuration key → the colour of the plot line it lies on (``export.configuration_lines``: the same
    grouping both plots draw), one distinct colour per line, in the run's order."""
    from workbench.core.evaluate.export import configuration_lines

    lines = configuration_lines(configs)
    order = list(dict.fromkeys(lines.values()))
    return {key: line_colour(order.index(line)) for key, line in lines.items()}


# ----- colour arithmetic ---------------------------------------------------------------------------
def hex_rgb(colour: str) -> Rgb:
    """``#rrggbb`` → sRGB components in 0–1."""
    text = colour.lstrip("#")
    return int(text[0:2], 16) / 255, int(text[2:4], 16) / 255, int(text[4:6], 16) / 255


def _linear(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _encoded(c: float) -> float:
    c = min(1.0, max(0.0, c))
    return 12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055


def simulate(colour: str, vision: str) -> Rgb:
    """``colour`` as seen with ``vision`` (``normal``, ``protan``, ``deutan``, ``tritan``), as sRGB 0–1."""
    rgb = hex_rgb(colour)
    if vision == "normal":
        return rgb
    m = CVD_MATRICES[vision]
    lin = [_linear(c) for c in rgb]
    return tuple(_encoded(sum(m[i][j] * lin[j] for j in range(3))) for i in range(3))  # type: ignore[return-value]


def lab(rgb: Rgb) -> Lab:
    """sRGB (0–1, D65) → CIELAB."""
    r, g, b = (_linear(c) for c in rgb)
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def delta_e(first: str, second: str, vision: str = "normal") -> float:
    """CIE76 ΔE*ab between two colours as seen with ``vision`` (about 2.3 is just noticeable; 10 is plainly
    different at a glance)."""
    a, b = lab(simulate(first, vision)), lab(simulate(second, vision))
    return float(sum((p - q) ** 2 for p, q in zip(a, b, strict=True)) ** 0.5)


def least_difference(colours: Sequence[str]) -> tuple[float, str, str, str]:
    """The smallest ΔE between any two of ``colours`` under any vision: ``(ΔE, vision, colour, colour)``."""
    worst = (float("inf"), "", "", "")
    for vision in VISIONS:
        for i, first in enumerate(colours):
            for second in colours[i + 1:]:
                d = delta_e(first, second, vision)
                if d < worst[0]:
                    worst = (d, vision, first, second)
    return worst


__all__ = ["CVD_MATRICES", "LINE_COLOURS", "VISIONS", "configuration_colours", "delta_e", "hex_rgb", "lab",
           "least_difference", "line_colour", "simulate"]
