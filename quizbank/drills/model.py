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
    diagnosis: str = ""  # the known mistake the output matched, if any (also part of `message`)

    def message_without(self, diagnosis: str) -> str:
        """`message` less its "Likely mistake: ..." sentence (shown once for all cases)."""
        return self.message.replace(f" Likely mistake: {diagnosis}.", "").replace(
            f"Likely mistake: {diagnosis}.", ""
        )


@dataclass(frozen=True)
class DrillReport:
    """The grade of one file. `output` is the program's own stdout/stderr, truncated and escaped."""

    drill: str
    passed: bool
    cases: tuple[CaseResult, ...]
    elapsed_ms: float
    output: str = ""
    network: str = (
        ""  # "cut" when the program ran without a network, "open" where the kernel did not allow it
    )

    @property
    def cases_passed(self) -> int:
        return sum(case.passed for case in self.cases)

    @property
    def common_diagnosis(self) -> str:
        """The known mistake every failing case matched, when there are two or more of them; else ''."""
        failing = [c for c in self.cases if not c.passed]
        found = {c.diagnosis for c in failing}
        return failing[0].diagnosis if len(failing) >= 2 and len(found) == 1 else ""

    def to_json(self) -> dict[str, Any]:
        return {
            "drill": self.drill,
            "passed": self.passed,
            "cases": [{"name": c.name, "passed": c.passed, "message": c.message} for c in self.cases],
            "elapsed_ms": round(self.elapsed_ms, 1),
        }
