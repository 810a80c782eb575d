"""Every parser of text a person types gives a value or its one clear error (ValueError, or the demo's
ParamError), whatever the text: never an OverflowError, a RecursionError or a traceback. Hypothesis draws
the text, leaning on digits, signs and operators, and on runs of over 4,300 digits and 309 zeros."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from posenc_ref.demos.base import Param, ParamError
from quizbank.arithmetic import evaluate
from quizbank.grading import grade_cloze, grade_numeric, normalize_blank, parse_number
from quizbank.mock.cli import parse_whole
from quizbank.progress.settings import DEFAULT_SETTINGS, parse_setting_text

HUGE_FRACTION = "1" + "0" * 309 + "/1"
NUMBERISH = st.one_of(
    st.text(),
    st.text(alphabet="0123456789+-*/^().,eE%−×÷⁻⁸² ", max_size=60),
    st.builds(
        lambda n, tail: "1" + "0" * n + tail, st.integers(300, 5000), st.sampled_from(["", "/1", "/3", "e5"])
    ),
    st.builds(lambda n: "1/" + "9" * n, st.integers(4200, 5000)),
)
PROPERTY = settings(max_examples=300, deadline=None)


@PROPERTY
@given(NUMBERISH)
@example(HUGE_FRACTION)
@example("-" + HUGE_FRACTION)
@example("1/" + "9" * 5000)
@example("9" * 5000 + "%")
def test_parse_number_gives_a_float_or_one_value_error(text: str) -> None:
    try:
        value = parse_number(text)
    except ValueError as exc:
        message = str(exc)
        assert message and "\n" not in message and len(message) < 200, message
    else:
        assert isinstance(value, float)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (HUGE_FRACTION, "is too large a number"),
        ("1/" + "9" * 5000, "has too many digits"),
    ],
    ids=["309 zeros over 1", "a 5,000-digit denominator"],
)
def test_a_number_past_the_float_range_is_one_short_message(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as caught:
        parse_number(text)
    assert len(str(caught.value)) < 100  # the 310 digits are cut, not echoed


@PROPERTY
@given(NUMBERISH)
def test_a_numeric_answer_grades_or_says_why(text: str) -> None:
    question = SimpleNamespace(value=0.00390625, tolerance=1e-4)
    try:
        grade = grade_numeric(question, text)
    except ValueError:
        return
    assert grade.correct in (True, False)


@PROPERTY
@given(st.lists(st.text(), max_size=4))
def test_cloze_answers_always_grade(answers: list[str]) -> None:
    question = SimpleNamespace(
        blanks=[SimpleNamespace(accept=["slope", "ＳＬＯＰＥ"]), SimpleNamespace(accept=["x"])]
    )
    grade = grade_cloze(question, answers)
    assert len(grade.details["blanks"]) == 2
    assert all(isinstance(normalize_blank(a), str) for a in answers)


@PROPERTY
@given(NUMBERISH)
def test_arithmetic_gives_a_finite_float_or_one_value_error(text: str) -> None:
    try:
        value = evaluate(text)
    except ValueError:
        return
    assert math.isfinite(value)


@PROPERTY
@given(st.sampled_from(sorted(DEFAULT_SETTINGS)), st.one_of(st.text(), NUMBERISH, st.just("[" * 100_000)))
def test_a_typed_setting_is_a_value_or_one_value_error(key: str, text: str) -> None:
    try:
        parse_setting_text(key, text)
    except ValueError as exc:
        assert "\n" not in str(exc)


@PROPERTY
@given(
    st.sampled_from(
        [
            Param("n", "int", 4, min=1, max=64, even=True),
            Param("x", "float", 0.5, min=0.0, max=1.0),
            Param("s", "str", "a", choices=("a", "b")),
            Param("b", "bool", True),
        ]
    ),
    NUMBERISH,
)
def test_a_demo_lab_field_is_a_value_or_one_param_error(param: Param, text: str) -> None:
    try:
        param.coerce(text)
    except ParamError:
        pass


@PROPERTY
@given(NUMBERISH)
@example("-1")
@example("9" * 5000)
def test_a_mock_plan_option_is_a_whole_number_in_range_or_one_value_error(text: str) -> None:
    try:
        value = parse_whole(text, "--seed", 0, 2**31 - 1)
    except ValueError as exc:
        assert len(str(exc)) < 120
    else:
        assert 0 <= value < 2**31
