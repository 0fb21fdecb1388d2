"""Expansion values, one module per kind; importing this package registers them all.

A new expansion: a module with a frozen ``Expansion`` subclass decorated with ``@register``, imported here.
"""

from workbench.core.retrieve.expansions.base import EXPANSION_TYPES, Expansion, Knob, register
from workbench.core.retrieve.expansions.neighbours import Neighbours
from workbench.core.retrieve.expansions.none import NoExpansion
from workbench.core.retrieve.expansions.parent import Parent
from workbench.core.retrieve.expansions.segments import Segments
from workbench.core.retrieve.expansions.selective import Selective
from workbench.core.retrieve.expansions.tokens import TokenWindow

__all__ = ["EXPANSION_TYPES", "Expansion", "Knob", "NoExpansion", "Neighbours", "Parent", "Segments", "Selective",
           "TokenWindow", "register"]
