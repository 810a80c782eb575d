"""Grading answers, one function per question type. Pure Python (no textual, no pydantic import).

Each grader takes the question (a `quizbank.schema` model) and what the user entered, and returns
a `Grade`: whether it is correct and the response as recorded in the progress store.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .safetext import shorten

__all__ = [
    "Grade",
    "choice_credit",
    "grade_choices",
    "grade_cloze",
    "grade_numeric",
    "grade_truefalse",
    "normalize_blank",
    "parse_number",
]


@dataclass(frozen=True)
class Grade:
    """The outcome of one answer. `correct` is None when the user revealed without answering."""

    correct: bool | None
    response: str
    details: dict[str, Any] = field(default_factory=dict)


def grade_choices(question: Any, selected: set[int] | frozenset[int]) -> Grade:
    """mcq / multi: `selected` holds indices into `question.choices` (the bank order).

    Correct means exactly the set of correct choices was selected. `details["credit"]` is the partial
    credit a score uses (`choice_credit`): 0.75 for 3 of 4 right picks and no wrong one.
    """
    correct_set = {i for i, c in enumerate(question.choices) if c.correct}
    ok = set(selected) == correct_set
    response = ",".join(str(i + 1) for i in sorted(selected))
    details: dict[str, Any] = {"selected": sorted(selected), "correct": sorted(correct_set)}
    details["credit"] = choice_credit(correct_set, selected)
    return Grade(ok, response, details)


def choice_credit(correct: set[int] | frozenset[int], selected: set[int] | frozenset[int]) -> float:
    """The share of a choice question earned: (right picks − wrong picks) / correct choices, at least 0, so
    3 of 4 right picks score 0.75, and picking everything scores no more than the wrong picks allow. An
    mcq (one correct choice) scores 1 or 0."""
    if not correct:
        return 1.0 if not selected else 0.0
    right = len(set(selected) & set(correct))
    wrong = len(set(selected) - set(correct))
    return max(0.0, (right - wrong) / len(correct))


def grade_truefalse(question: Any, value: bool) -> Grade:
    return Grade(value == bool(question.correct), "true" if value else "false", {"value": value})


_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "0123456789+-")
_SUPERSCRIPT_RUN = re.compile("[⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻]+")
_NUMBER_RE = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def parse_number(raw: str) -> float:
    """Read a number the way people type it: `0.5`, `.5`, `1e-4`, `1/2`, `1,024`, `50%`, `−3`,
    full-width digits, and arithmetic (`2^-8`, `2**-8`, `2⁻⁸`, `1/(2*128)`: quizbank.arithmetic). Raises
    ValueError with a short, user-facing message, and nothing else, whatever the text."""
    try:
        return _parse_number(raw)
    except ValueError as exc:
        if str(exc).startswith("Exceeds the limit"):  # int() of over 4,300 digits
            raise ValueError(f"{shorten(raw.strip())} has too many digits") from None
        raise
    except (OverflowError, ZeroDivisionError, ArithmeticError):
        # 1 with 309 zeros /1: the fraction is past the largest float
        raise ValueError(f"{shorten(raw.strip())} is too large a number") from None


def _parse_number(raw: str) -> float:
    # a run of superscripts is a power: 2⁻⁸ is 2^-8 (NFKC alone would read 2-8, and 10⁴ as 104)
    raw = _SUPERSCRIPT_RUN.sub(lambda m: "^" + m.group().translate(_SUPERSCRIPTS), raw)
    text = unicodedata.normalize("NFKC", raw).strip().replace("−", "-").replace("×10^", "e")
    if not text:
        raise ValueError("enter a number")
    percent = text.endswith("%")
    if percent:
        text = text[:-1].strip()
    if re.fullmatch(r"[+-]?\d{1,3}(,\d{3})+(\.\d*)?", text):
        text = text.replace(",", "")
    value: float
    if _NUMBER_RE.match(text):
        value = float(text)
    elif re.fullmatch(r"[+-]?\d+\s*/\s*\d+", text):
        num, den = (part.strip() for part in text.split("/"))
        if int(den) == 0:
            raise ValueError("division by zero")
        value = float(Fraction(int(num), int(den)))
    elif text.lower() in {"inf", "+inf", "-inf", "infinity", "-infinity", "∞", "-∞"}:
        value = -math.inf if text.startswith("-") else math.inf
    elif re.search(r"\d", text) and re.search(r"[-+*/^×÷()]", text.lstrip("+-")):
        from .arithmetic import evaluate  # 2^-8, 2**-8, 1/(2*128): a tiny evaluator, never eval

        try:
            value = evaluate(text)
        except ValueError as exc:
            raise ValueError(f"{shorten(raw.strip())} is not a number ({exc})") from None
    else:
        raise ValueError(f"{shorten(raw.strip())} is not a number")
    return value / 100.0 if percent else value


def grade_numeric(question: Any, raw: str) -> Grade:
    """Correct when |answer - value| <= tolerance (absolute). Raises ValueError for non-numbers."""
    value = parse_number(raw)
    target = float(question.value)
    tolerance = float(question.tolerance)
    if math.isinf(target) or math.isinf(value):
        ok = value == target
    else:
        ok = abs(value - target) <= tolerance + 1e-12 * max(1.0, abs(target))
    return Grade(ok, raw.strip(), {"value": value, "target": target, "tolerance": tolerance})


def normalize_blank(text: str) -> str:
    """Cloze matching key: NFKC (full-width -> ASCII), case-folded, all whitespace removed."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text)).casefold()


def grade_cloze(question: Any, answers: list[str]) -> Grade:
    """Each blank is right when its answer matches any `accept` entry after `normalize_blank`."""
    per_blank: list[bool] = []
    for blank, answer in zip(question.blanks, answers, strict=False):
        key = normalize_blank(answer)
        per_blank.append(bool(key) and any(normalize_blank(a) == key for a in blank.accept))
    per_blank += [False] * (len(question.blanks) - len(per_blank))
    return Grade(all(per_blank), " | ".join(a.strip() for a in answers), {"blanks": per_blank})
