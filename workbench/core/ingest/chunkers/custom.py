"""A user's own chunker, named ``module:function``, verified like every built-in one.

The function is called as ``function(text, headings)`` (``headings`` a sequence of ``Heading``) and returns
an iterable of ``(start, end)`` spans, ``(start, end, chunk_text)`` triples (the text is checked against the
span), objects with ``start``/``end``, or plain chunk texts (mapped back by the rule of
``spans_from_texts``). Its identity is the target plus a hash of the function's source code (when Python can
read it), so editing the function makes a new chunk set rather than silently reusing old chunks.

Naming a custom chunker loads nothing: its module is imported only when a chunk set's identity or chunks are
needed, and only when the user allowed the target in this run (``workbench.core.consent``); otherwise
``CustomNotTrusted`` says how to allow it.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
from collections.abc import Callable, Sequence

from workbench.core.consent import NotTrusted, is_trusted
from workbench.core.ingest.chunkers.errors import ChunkerError
from workbench.core.ingest.chunkers.protocol import Chunker, ChunkerKind, ChunkerResources, ChunkerSpec
from workbench.core.ingest.headings import Heading

UserFunction = Callable[[str, Sequence[Heading]], object]


class CustomNotTrusted(ChunkerError, NotTrusted):
    """A custom chunker named by data, not allowed in this run (see ``workbench.core.consent``)."""


def check_target(target: str) -> tuple[str, str]:
    """``(module, attribute path)`` of ``module:function`` (nothing is imported)."""
    module_name, sep, attr_path = target.partition(":")
    if not sep or not module_name or not attr_path:
        raise ChunkerError(f"custom chunker {target!r}: write it as module:function")
    return module_name, attr_path


def load_function(target: str) -> UserFunction:
    """The callable named by ``module:function`` (dots after the colon reach attributes); refused with
    ``CustomNotTrusted`` unless the user allowed ``target`` in this run."""
    module_name, attr_path = check_target(target)
    if not is_trusted(target):
        raise CustomNotTrusted(target, f"the custom chunker custom:{target} (it imports the Python module "
                                       f"{module_name!r} and calls {attr_path!r})")
    try:
        obj: object = importlib.import_module(module_name)
    except ImportError as exc:
        raise ChunkerError(f"custom chunker {target!r}: cannot import {module_name!r} ({exc})") from exc
    for attr in attr_path.split("."):
        if not hasattr(obj, attr):
            raise ChunkerError(f"custom chunker {target!r}: {module_name!r} has no {attr_path!r}")
        obj = getattr(obj, attr)
    if not callable(obj):
        raise ChunkerError(f"custom chunker {target!r}: {attr_path!r} is not callable")
    return obj


def source_version(function: UserFunction) -> str:
    """``src-`` and 12 hex digits of the function's source hash (``unknown`` when the source is unreadable)."""
    try:
        source = inspect.getsource(function)
    except (OSError, TypeError):
        return "unknown"
    return "src-" + hashlib.sha256(source.encode()).hexdigest()[:12]


class CustomChunker:
    """A ``module:function`` chunker; its raw output is verified by ``chunk_verified``."""

    def __init__(self, spec: ChunkerSpec, function: UserFunction) -> None:
        self.spec = spec
        self._function = function

    def chunk(self, text: str, headings: Sequence[Heading]) -> list[object]:
        """Whatever the function returned, as a list (``verify_spans`` checks and converts it)."""
        result = self._function(text, headings)
        if isinstance(result, str) or not hasattr(result, "__iter__"):
            raise ChunkerError(f"custom chunker {self.spec.name!r} returned {type(result).__name__}, "
                               "not a list of spans or chunk texts")
        return list(result)


def custom_kind(target: str) -> ChunkerKind:
    """The registry entry for the user function ``target`` (``module:function``). Nothing is imported here:
    the function is loaded (with the consent check) when the kind's version or a chunker is needed."""
    module_name, _ = check_target(target)

    def build(spec: ChunkerSpec, resources: ChunkerResources) -> Chunker:
        return CustomChunker(spec, load_function(target))

    return ChunkerKind(f"custom:{target}", f"your own chunker {target}",
                       (),
                       build, library=module_name.split(".")[0],
                       version=lambda: source_version(load_function(target)))
