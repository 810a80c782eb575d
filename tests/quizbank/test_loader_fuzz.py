"""Hypothesis fuzzing of the bank loader: any input gives problems, never a traceback."""

from __future__ import annotations

import copy
import os
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.banks import ALL_TYPES

from quizbank.loader import load_bank_text
from quizbank.problems import Problem
from quizbank.schema import BankFile
from quizbank.yamlsafe import parse_yaml_bytes, parse_yaml_text

# POSENC_FUZZ_EXAMPLES raises the count for a longer run (e.g. 5000) without editing the file.
FUZZ = settings(
    max_examples=int(os.environ.get("POSENC_FUZZ_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

YAML_PIECES = [
    "topic: t\n",
    "title: T\n",
    "questions:\n",
    "  - id: a\n",
    "    type: open\n",
    "    type: mcq\n",
    "    prompt: {en: x, zh: y}\n",
    "    choices: [{text: a, correct: true}]\n",
    "- ",
    "  ",
    "\n",
    ": ",
    "? ",
    "[",
    "]",
    "{",
    "}",
    ",",
    "&a ",
    "*a ",
    "<<: *a\n",
    "!!python/object:os.system ",
    "!x ",
    "'",
    '"',
    "|\n",
    ">-\n",
    "#c\n",
    "---\n",
    "...\n",
    "%YAML 1.1\n",
    "\t",
    "\x00",
    "\ufeff",
    "中文",
    "[bold]",
    "{{1}}",
    "$x$",
    "1e400",
    ".nan",
    "~",
    "yes",
    "0x1F",
    "2024-01-01",
    "key: value\n",
    "    explanation: e\n",
]


def assert_problems(problems: list[Problem], text: str | None = None) -> None:
    assert isinstance(problems, list)
    n_lines = text.count("\n") + 2 if text is not None else None
    for problem in problems:
        assert isinstance(problem, Problem)
        assert isinstance(problem.message, str) and problem.message
        assert "\n" not in problem.message
        assert problem.line >= 0 and problem.col >= 0
        if n_lines is not None:
            assert problem.line <= n_lines
        str(problem)


@FUZZ
@given(st.text(max_size=300))
def test_random_text_never_raises(text):
    doc, problems = parse_yaml_text(text, "f.yaml")
    assert_problems(problems)
    bank, problems = load_bank_text(text, "f.yaml")
    assert_problems(problems)
    assert (bank is None) == any(p.is_error for p in problems)


@FUZZ
@given(st.binary(max_size=300))
def test_random_bytes_never_raise(data):
    doc, problems = parse_yaml_bytes(data, "f.yaml")
    assert_problems(problems)


@FUZZ
@given(st.lists(st.sampled_from(YAML_PIECES), max_size=40))
def test_yaml_like_token_soup_never_raises(pieces):
    text = "".join(pieces)
    bank, problems = load_bank_text(text, "soup.yaml")
    assert_problems(problems)
    if bank is None:
        assert problems


FIELDS = [
    "topic",
    "topics",
    "title",
    "questions",
    "id",
    "type",
    "prompt",
    "answer",
    "explanation",
    "en",
    "zh",
    "choices",
    "text",
    "correct",
    "why",
    "key_points",
    "blanks",
    "accept",
    "value",
    "tolerance",
    "checks",
    "demo",
    "name",
    "params",
    "path",
    "expect",
    "difficulty",
    "follow_ups",
    "tags",
    "unit",
    "order",
]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(["open", "mcq", "multi", "truefalse", "numeric", "cloze", "alibi-slopes", "{{1}}", "a"]),
)
structures = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(FIELDS), st.text(max_size=8)), children, max_size=5),
    ),
    max_leaves=30,
)


@FUZZ
@given(structures)
def test_random_structures_give_problems_not_tracebacks(data):
    text = yaml.safe_dump(data, allow_unicode=True)
    bank, problems = load_bank_text(text, "s.yaml")
    assert_problems(problems, text)
    if bank is None:
        assert problems
    else:
        assert isinstance(bank, BankFile)


VALID = yaml.safe_load(ALL_TYPES)


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out += _paths(value, (*prefix, i))
    return out


ALL_PATHS = [p for p in _paths(VALID) if p]


@pytest.mark.slow
@FUZZ
@given(
    st.lists(st.tuples(st.sampled_from(ALL_PATHS), st.one_of(st.just("__delete__"), structures)), max_size=4)
)
def test_mutated_valid_bank_reports_on_lines_inside_the_file(edits):
    data = copy.deepcopy(VALID)
    for path, new in edits:
        parent = data
        try:
            for step in path[:-1]:
                parent = parent[step]
            if new == "__delete__":
                del parent[path[-1]]
            else:
                parent[path[-1]] = new
        except (KeyError, IndexError, TypeError):
            continue
    text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
    bank, problems = load_bank_text(text, "m.yaml")
    assert_problems(problems, text)
    for problem in problems:
        assert problem.line >= 1  # the YAML parsed, so every problem has a place
    if not edits:
        assert problems == [] and bank is not None
