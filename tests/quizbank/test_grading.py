"""quizbank.grading: choices, true/false, numbers (parsing and tolerance) and cloze blanks."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from quizbank.grading import (
    grade_choices,
    grade_cloze,
    grade_numeric,
    grade_truefalse,
    normalize_blank,
    parse_number,
)


def _choices(*flags: bool) -> SimpleNamespace:
    return SimpleNamespace(choices=[SimpleNamespace(correct=f) for f in flags])


def test_mcq_and_multi_grading() -> None:
    mcq = _choices(False, True, False)
    assert grade_choices(mcq, {1}).correct is True
    assert grade_choices(mcq, {0}).correct is False
    multi = _choices(True, True, False)
    assert grade_choices(multi, {0, 1}).correct is True
    assert grade_choices(multi, {0}).correct is False
    assert grade_choices(multi, {0, 1, 2}).correct is False
    assert grade_choices(multi, {1, 0}).response == "1,2"


def test_a_multi_answer_earns_partial_credit() -> None:
    """3 of 4 right picks scored 0% in a mock interview: only the exact set counted."""
    multi = _choices(True, True, True, True, False, False)
    credit = {
        picks: grade_choices(multi, set(picks)).details["credit"]
        for picks in [(0, 1, 2, 3), (0, 1, 2), (0, 1, 2, 4), (0,), (4, 5), (0, 1, 2, 3, 4, 5), ()]
    }
    assert credit == {
        (0, 1, 2, 3): 1.0, (0, 1, 2): 0.75, (0, 1, 2, 4): 0.5, (0,): 0.25, (4, 5): 0.0,
        (0, 1, 2, 3, 4, 5): 0.5, (): 0.0,
    }  # fmt: skip
    assert grade_choices(multi, {0, 1, 2}).correct is False  # the quiz still wants the exact set
    mcq = _choices(False, True, False)
    assert (
        grade_choices(mcq, {1}).details["credit"] == 1.0 and grade_choices(mcq, {0}).details["credit"] == 0.0
    )


def test_truefalse_grading() -> None:
    q = SimpleNamespace(correct=False)
    assert grade_truefalse(q, False).correct is True
    assert grade_truefalse(q, True).correct is False


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("0.5", 0.5),
        (".5", 0.5),
        ("1e-4", 1e-4),
        ("1/256", 1 / 256),
        ("1,024", 1024.0),
        ("50%", 0.5),
        ("−3", -3.0),
        ("０.２５", 0.25),
        (" 7 ", 7.0),
        ("-inf", -math.inf),
        # superscripts are powers (NFKC alone read 2⁻⁸ as 2 - 8 and 10⁴ as 104)
        ("2⁻⁸", 2.0**-8),
        ("10⁴", 1e4),
        ("3×10⁻⁴", 3e-4),
        ("2¹⁰", 1024.0),
        ("-2²", -4.0),
        ("(1/2)³", 0.125),
    ],
)
def test_parse_number(raw: str, value: float) -> None:
    assert parse_number(raw) == value


@pytest.mark.parametrize("raw", ["", "abc", "1/0", "1..2", "--1", "²", "2⁻"])
def test_parse_number_rejects(raw: str) -> None:
    with pytest.raises(ValueError, match=r"is not a number|enter a number|division by zero"):
        parse_number(raw)


def test_numeric_tolerance_is_absolute_and_inclusive() -> None:
    q = SimpleNamespace(value=0.00390625, tolerance=0.0001)
    assert grade_numeric(q, "0.0039").correct is True
    assert grade_numeric(q, "0.00400625").correct is True  # exactly at the edge
    assert grade_numeric(q, "0.0041").correct is False
    assert grade_numeric(q, "1/256").correct is True


def test_cloze_matching_ignores_case_space_and_width() -> None:
    q = SimpleNamespace(
        blanks=[SimpleNamespace(accept=["m-n", "(m-n)"]), SimpleNamespace(accept=["Attention Scores"])]
    )
    assert grade_cloze(q, ["M - N", "attentionscores"]).correct is True
    assert grade_cloze(q, ["ｍ－ｎ", " Attention  scores "]).correct is True
    graded = grade_cloze(q, ["m+n", "attention scores"])
    assert graded.correct is False and graded.details["blanks"] == [False, True]
    assert grade_cloze(q, ["", ""]).correct is False
    assert normalize_blank(" A b\tC ") == "abc"
