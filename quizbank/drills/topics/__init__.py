"""The drills by topic: each package holds its drills (`drills.py`, no torch) and their cases (`cases.py`).

`topic_modules` finds them: a new topic package (with both files) is picked up by the catalogue and the grader
with no list to edit."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from types import ModuleType


def topic_modules(
    leaf: str, path: Iterable[str] = __path__, prefix: str = __name__ + "."
) -> list[ModuleType]:
    """Module `leaf` (``"drills"`` or ``"cases"``) of every topic package under the folders `path` (package
    `prefix`), packages in name order; a package named ``_*`` is skipped."""
    return [
        importlib.import_module(f"{info.name}.{leaf}")
        for info in sorted(pkgutil.iter_modules(list(path), prefix), key=lambda i: i.name)
        if info.ispkg and not info.name.rpartition(".")[2].startswith("_")
    ]
