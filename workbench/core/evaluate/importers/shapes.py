"""The JSON shapes an importer expects, checked where it reads them: a value of another type (a string where an
object belongs, an object where a list belongs, a list where text belongs) is a ``DatasetError`` naming the file
and where in it (``train.json: data[0].paragraphs[2].qas[1]: expected an object, found a string``), never a
traceback. A missing value (JSON ``null`` or an absent key) reads as empty: the importer decides whether the item is
then skipped."""

from __future__ import annotations

import math
from typing import Any

from workbench.core.evaluate.question_set import DatasetError

_KINDS = {dict: "an object", list: "a list", str: "a string", bool: "true or false", int: "a number",
          float: "a number", type(None): "null"}


def kind(value: object) -> str:
    """How a JSON value is called in a refusal (``an object``, ``a list``, ``a string``…)."""
    return _KINDS.get(type(value), type(value).__name__)


def _refuse(where: str, expected: str, value: object) -> DatasetError:
    return DatasetError(f"{where}: expected {expected}, found {kind(value)}")


def obj(value: object, where: str) -> dict[str, Any]:
    """``value`` as a JSON object (``null`` reads as an empty one)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _refuse(where, "an object", value)
    return value


def items(value: object, where: str) -> list[Any]:
    """``value`` as a JSON list (``null`` reads as an empty one)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise _refuse(where, "a list", value)
    return value


def objects(value: object, where: str) -> list[dict[str, Any]]:
    """``value`` as a list of objects (each element checked, named by its index)."""
    return [obj(v, f"{where}[{i}]") for i, v in enumerate(items(value, where))]


def text(value: object, where: str) -> str:
    """``value`` as text: a string, or a number written as one (an id); ``null`` reads as ``''``."""
    if value is None:
        return ""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise DatasetError(f"{where}: holds an unpaired surrogate ({value[exc.start:exc.end]!r}: an escape such "
                               "as \\ud800 without its pair), which is not text") from None
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return f"{value:g}"
    raise _refuse(where, "text", value)


def texts(value: object, where: str) -> list[str]:
    """``value`` as a list of texts (each element checked, named by its index)."""
    return [text(v, f"{where}[{i}]") for i, v in enumerate(items(value, where))]


def offset(value: object, where: str) -> int:
    """``value`` as a character offset: a whole number (``12`` or ``12.0``; a string of digits is read too)."""
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value.strip())
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise _refuse(where, "a whole number", value)
