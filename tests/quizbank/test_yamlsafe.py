"""Issue 8, cases 5, 6 and 7: non-regular bank files, slow scalars, alias amplification by size, and
odd POSENC_MEMORY_BUDGET_MIB values."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from support.banks import ALL_TYPES
from support.paths import ROOT

from quizbank.loader import load_bank_file, load_bank_text, load_banks
from quizbank.yamlsafe import MAX_ALIAS_BYTES, MAX_NUMBER_CHARS, parse_yaml_text


def _one_problem(problems, where: str) -> str:
    shown = [str(p) for p in problems]
    assert len(shown) >= 1 and shown[0].startswith(where), shown
    assert not any("internal error" in s for s in shown), shown
    return shown[0]


# ---------------------------------------------------------------------------------------------------- case 5


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "bank.yaml"
    os.mkfifo(fifo)
    start = time.perf_counter()
    bank, problems = load_bank_file(fifo)
    assert time.perf_counter() - start < 1.0
    assert bank is None
    assert str(problems[0]).endswith(
        "is not a regular file (a FIFO, device or socket); bank files must be files"
    )
    bankset = load_banks([fifo], include_shipped=False, include_user=False)
    assert [path for path, _ in bankset.skipped] == [problems[0].path]


def test_a_character_device_is_refused():
    bank, problems = load_bank_file("/dev/zero")  # would never end if it were read
    assert bank is None and "is not a regular file" in str(problems[0])


@pytest.mark.parametrize("how", ["validate", "--bank"])
def test_cli_with_a_fifo_returns_instead_of_hanging(tmp_path, how):
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    argv = (
        ["bank", "validate", str(fifo), "--no-checks"]
        if how == "validate"
        else ["--bank", str(fifo), "bank", "stats"]
    )
    env = {**os.environ, "POSENC_BANK_DIR": str(tmp_path / "none")}
    proc = subprocess.run(
        [sys.executable, "-m", "quizbank.cli", *argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
    )
    assert "Traceback" not in proc.stderr
    if how == "validate":
        assert proc.returncode == 1 and "is not a regular file" in proc.stdout
    else:
        assert proc.returncode == 0 and "1 bank file skipped" in proc.stderr


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


# ---------------------------------------------------------------------------------------------------- case 6


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


# ---------------------------------------------------------------------------------------------------- case 7


@pytest.mark.parametrize("value", ["inf", "nan", "1e400", "-5", "Infinity"])
def test_odd_memory_budgets_never_lose_the_bank(monkeypatch, value):
    from posenc_ref.demos import DEFAULT_MEMORY_BUDGET_MIB, UNLIMITED_MEMORY_BYTES, memory_budget_bytes

    monkeypatch.setenv("POSENC_MEMORY_BUDGET_MIB", value)
    expected = (
        UNLIMITED_MEMORY_BYTES if value in ("inf", "1e400", "Infinity") else DEFAULT_MEMORY_BUDGET_MIB * 2**20
    )
    assert memory_budget_bytes() == expected
    bankset = load_banks(include_user=False)
    assert bankset.errors == [] and len(bankset.questions) > 100


def test_demo_run_with_an_infinite_budget(monkeypatch, capsys):
    from posenc_ref.cli import main

    monkeypatch.setenv("POSENC_MEMORY_BUDGET_MIB", "inf")
    assert main(["demo", "run", "alibi-slopes", "--device", "cpu"]) == 0
    assert "Traceback" not in capsys.readouterr().err
