"""Coding drills: a catalogue of exercises graded against posenc_ref; the code runs in a contained child.

Importing this package and listing drills never imports torch (grading does, here and in the child)::

    from quizbank.drills import DRILL_NAMES, get_drill, grade_file
    report = grade_file("rope-half", "my_rope.py")
    print(report.passed, [c.message for c in report.cases if not c.passed])
"""

from __future__ import annotations

import importlib
from typing import Any

from .catalogue import DRILL_NAMES, FIXED_DRILL_NAMES, drills, get_drill
from .codeoff import CodeOff, code_off
from .model import CaseResult, Drill, DrillReport

_LAZY: dict[str, str] = {
    "grade_file": "grader",
    "grade_source": "grader",
    "GradeCancelled": "grader",
    "WarmGrader": "grader",
}

__all__ = [
    "DRILL_NAMES",
    "FIXED_DRILL_NAMES",
    "CaseResult",
    "CodeOff",
    "Drill",
    "DrillReport",
    "GradeCancelled",
    "WarmGrader",
    "code_off",
    "drills",
    "get_drill",
    "grade_file",
    "grade_source",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'quizbank.drills' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
