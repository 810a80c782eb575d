"""quizbank.arithmetic: the safe evaluator behind numeric answers like `2^-8` (never eval)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizbank.arithmetic import check_syntax, evaluate, names_in
from quizbank.grading import grade_numeric, parse_number


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("2^-8", 2**-8),
        ("2**-8", 2**-8),
        ("2 ^ -8", 2**-8),
        ("1/(2*128)", 1 / 256),
        ("3 × 10^4", 30000.0),
        ("10000^(-2/64)", 10000 ** (-2 / 64)),
        ("-2^2", -4.0),  # the power binds tighter than the sign
        ("2^3^2", 512.0),  # right-associative
        ("(1 - 0.5) * 4", 2.0),
        ("1e-4*2", 2e-4),
        ("6 ÷ 4", 1.5),
        (".5+.25", 0.75),
    ],
)
def test_values(text: str, value: float) -> None:
    assert evaluate(text) == pytest.approx(value, rel=1e-15)


@pytest.mark.parametrize(
    "text",
    [
        "--1",
        "2^",
        "(1",
        "1)",
        "2^99999",
        "1/0",
        "(-8)^(1/3)",
        "__import__('os')",
        "2 3",
        "a+1",
        "()",
        "9" * 101,
    ],
)
def test_refused_with_a_short_message(text: str) -> None:
    with pytest.raises(ValueError, match=r"\S") as info:  # a message, not an empty error
        evaluate(text)
    assert "\n" not in str(info.value) and len(str(info.value)) < 80


def test_too_deep_parentheses_are_refused() -> None:
    with pytest.raises(ValueError, match="parentheses"):
        evaluate("(" * 30 + "1" + ")" * 30)


def test_names_are_read_only_where_the_caller_gives_them() -> None:
    """A vary bound (`dim/2 - 1`) reads earlier parameters; a typed answer has no names."""
    assert evaluate("dim/2 - 1", {"dim": 64}) == 31.0
    assert evaluate("2^-(h) * n_heads", {"h": 3, "n_heads": 16}) == 2.0
    assert names_in("dim/2 - dim + n_1") == ["dim", "n_1"] and names_in("2 + 3") == []
    with pytest.raises(ValueError, match="unknown name 'dims'"):
        evaluate("dims/2", {"dim": 64})
    with pytest.raises(ValueError, match="unexpected 'd'"):
        evaluate("dim/2")  # no names given: what a candidate types
    check_syntax("n/(m - m)")  # the grammar only: the values decide a division by zero later
    for bad in ("dim/2 -", "dim//2", "n heads", "(n"):
        with pytest.raises(ValueError, match=r"\S"):
            check_syntax(bad)


def test_numeric_answers_accept_arithmetic() -> None:
    question = SimpleNamespace(value=0.00390625, tolerance=1e-9)
    for typed in ("2^-8", "2**-8", "1/256", "0.00390625", "1/(2^8)"):
        assert grade_numeric(question, typed).correct, typed
    assert not grade_numeric(question, "2^-7").correct
    with pytest.raises(ValueError, match="is not a number"):
        parse_number("2^^8")


small = st.integers(-50, 50)


@settings(max_examples=300, deadline=None)
@given(small, small, small, st.integers(0, 8))
def test_agrees_with_python_arithmetic(a: int, b: int, c: int, e: int) -> None:
    assert evaluate(f"{a}*{b}+{c}") == a * b + c
    assert evaluate(f"{a} - ({b}) * {c}") == a - b * c
    assert evaluate(f"({a})^{e}") == float(a**e)
    if a != 0:
        assert evaluate(f"({a})^-{e}") == pytest.approx(float(a) ** -e)
        assert evaluate(f"{b}/({a})") == pytest.approx(b / a)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789.eE+-*/^()× ", max_size=30))
def test_any_text_gives_a_finite_number_or_a_value_error(text: str) -> None:
    try:
        value = evaluate(text)
    except ValueError:
        return
    assert math.isfinite(value)
