"""quizbank.yamlsafe, the bank's YAML reader: a slow scalar (a huge sexagesimal or long number) and alias
amplification by size are one normal problem (path:line:col), fast, never an internal error; ordinary
numbers and anchors still work."""

from __future__ import annotations

import time

import pytest
from support.banks import ALL_TYPES

from quizbank.loader import load_bank_text
from quizbank.yamlsafe import MAX_ALIAS_BYTES, MAX_NUMBER_CHARS, parse_yaml_text


def _one_problem(problems, where: str) -> str:
    shown = [str(p) for p in problems]
    assert len(shown) >= 1 and shown[0].startswith(where), shown
    assert not any("internal error" in s for s in shown), shown
    return shown[0]


# ---------------------------------------------------------------------------------------------------- long numbers


def test_sexagesimal_megabyte_is_fast_and_a_normal_problem():
    text = ALL_TYPES.replace("order: 5", "order: " + ":".join(["59"] * 400_000))  # 1.2 MB
    start = time.perf_counter()
    bank, problems = load_bank_text(text, "slow.yaml")
    elapsed = time.perf_counter() - start
    assert elapsed < 1.0, elapsed  # it took 25 s before the cap
    assert bank is None
    message = _one_problem(problems, "slow.yaml:4:8: a number written with 1,199,999 characters")
    assert f"over the {MAX_NUMBER_CHARS}-character limit" in message and len(message) < 300


@pytest.mark.parametrize(
    "value",
    [
        "1" * 5000,
        "0x" + "f" * 5000,
        "0o" + "7" * 5000,
        "0b" + "1" * 20_000,
        "1" * 4000 + ".5",
        '!!int "' + "9" * 5000 + '"',
    ],
    ids=["decimal", "hex", "octal", "binary", "float", "tagged"],
)
def test_long_numbers_are_a_normal_problem_not_an_internal_error(value):
    text = ALL_TYPES.replace("order: 5", f"order: {value}")
    bank, problems = load_bank_text(text, "big.yaml")
    assert bank is None
    _one_problem(problems, "big.yaml:4:8: a number written with")


def test_numbers_within_the_cap_still_resolve():
    doc, problems = parse_yaml_text("a: 1:30\nb: 0x1F\nc: 1.5e+3\nd: " + "9" * MAX_NUMBER_CHARS + "\n")
    assert problems == []
    assert doc.data == {"a": 90, "b": 31, "c": 1500.0, "d": int("9" * MAX_NUMBER_CHARS)}


def test_long_plain_text_starting_with_a_digit_is_still_text():
    prose = "1. " + "word " * 10_000
    doc, problems = parse_yaml_text(f"a: {prose}\n")
    assert problems == [] and doc.data["a"] == prose.strip()


# ---------------------------------------------------------------------------------------------------- alias amplification


def test_one_big_string_aliased_many_times_is_refused():
    big = "x" * 2_000_000
    aliases = ", ".join(["*big"] * 100)
    text = f"topic: t\ntitle: &big {big}\nquestions: []\nextra: [{aliases}]\n"
    start = time.perf_counter()
    bank, problems = load_bank_text(text, "amp.yaml")
    assert time.perf_counter() - start < 2.0
    assert bank is None
    message = _one_problem(problems, "amp.yaml:4:")
    assert f"aliases expand to more than {MAX_ALIAS_BYTES // 2**20} MiB of text" in message


def test_byte_bound_counts_keys_and_nested_text():
    block = {f"k{i}": "y" * 1000 for i in range(1000)}  # ~1 MB mapping
    body = "\n".join(f"  {k}: {v}" for k, v in block.items())
    text = f"a: &m\n{body}\nb: [*m, *m, *m, *m, *m, *m]\n"
    doc, problems = parse_yaml_text(text)
    assert doc is None and "MiB of text" in str(problems[-1])
    doc, problems = parse_yaml_text(f"a: &m\n{body}\nb: [*m, *m, *m]\n")  # 3 MB added: allowed
    assert problems == [] and len(doc.data["b"]) == 3


def test_ordinary_anchors_still_work():
    doc, problems = parse_yaml_text("d: &d {x: 1}\ne: {<<: *d, y: 2}\nf: [*d, *d]\n")
    assert problems == [] and doc.data["e"] == {"x": 1, "y": 2}
