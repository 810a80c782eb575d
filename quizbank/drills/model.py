"""The plain data of the drills feature: a drill, one graded case, a whole report. No torch."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Drill:
    """One coding exercise. Text fields are `{"en": ..., "zh": ...}`; `statement` is Markdown."""

    name: str
    topic: str
    difficulty: int
    function: str
    title: dict[str, str]
    statement: dict[str, str]
    hints: tuple[dict[str, str], ...]
    starter: str
    solution: str
    minutes: int

    def text(self, field: str, lang: str) -> str:
        """`title` or `statement` in `lang`, falling back to English."""
        value: dict[str, str] = getattr(self, field)
        return value.get(lang) or value["en"]


@dataclass(frozen=True)
class CaseResult:
    name: str
    passed: bool
    message: str
    elapsed_ms: float


@dataclass(frozen=True)
class DrillReport:
    """The grade of one file. `output` is the program's own stdout/stderr, truncated and escaped."""

    drill: str
    passed: bool
    cases: tuple[CaseResult, ...]
    elapsed_ms: float
    output: str = ""

    @property
    def cases_passed(self) -> int:
        return sum(case.passed for case in self.cases)

    def to_json(self) -> dict[str, Any]:
        return {
            "drill": self.drill,
            "passed": self.passed,
            "cases": [{"name": c.name, "passed": c.passed, "message": c.message} for c in self.cases],
            "elapsed_ms": round(self.elapsed_ms, 1),
        }
