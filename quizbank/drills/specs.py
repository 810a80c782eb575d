"""The grading specs of every drill, looked up by name (imports torch and every topic's cases)."""

from __future__ import annotations

from collections.abc import Callable

from .judging import Spec
from .topics.absolute.cases import SPECS as ABSOLUTE
from .topics.alibi.cases import SPECS as ALIBI
from .topics.context_extension.cases import SPECS as CONTEXT_EXTENSION
from .topics.models.cases import SPECS as MODELS
from .topics.relative.cases import SPECS as RELATIVE
from .topics.rope.cases import SPECS as ROPE
from .topics.rope_variants.cases import SPECS as ROPE_VARIANTS

_SPECS: dict[str, Callable[[], Spec]] = {
    **ABSOLUTE,
    **ROPE,
    **ALIBI,
    **RELATIVE,
    **CONTEXT_EXTENSION,
    **MODELS,
    **ROPE_VARIANTS,
}


def spec_for(name: str) -> Spec:
    """A fresh `Spec` for drill `name` (KeyError for an unknown one)."""
    return _SPECS[name]()
