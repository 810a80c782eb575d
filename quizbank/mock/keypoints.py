"""The simple view of the open-answer judge: one pre-tick per key point, True only when it is covered.

Quiz, Study and Mock use `quizbank.judge` directly for the three verdicts (covered, contradicted, not
found) with their evidence and corrections; `match_key_points` stays for callers that only need ticks.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..judge import judge_answer, judge_point

__all__ = ["covered", "match_key_points"]


def covered(point: Any, answer: str) -> bool:
    """Whether the judge finds `point` covered by `answer`."""
    return bool(answer and answer.strip()) and judge_point(point, answer).covered


def match_key_points(points: Sequence[Any] | Iterable[Any], answer: str) -> list[bool]:
    """One pre-tick per key point, in order: True only for a covered point."""
    return [verdict.covered for verdict in judge_answer(list(points), answer)]
