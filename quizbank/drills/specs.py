"""The grading specs of every drill, looked up by name (imports torch and every topic's `cases.py`, found by
`topics.topic_modules`: a new topic needs no edit here)."""

from __future__ import annotations

from collections.abc import Callable

from .judging import Spec
from .topics import topic_modules

_SPECS: dict[str, Callable[[], Spec]] = {}
for _module in topic_modules("cases"):
    _twice = set(_SPECS) & set(_module.SPECS)
    if _twice:
        raise ValueError(f"{_module.__name__} grades drills another topic grades too: {sorted(_twice)}")
    _SPECS.update(_module.SPECS)


def spec_for(name: str) -> Spec:
    """A fresh `Spec` for drill `name` (KeyError for an unknown one)."""
    return _SPECS[name]()
