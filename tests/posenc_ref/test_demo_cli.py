"""`posenc demo list|run`: output, JSON, exit codes 0/1/2, one-line errors, no tracebacks."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys

import pytest
import torch
from support.cli import cli_runner

from posenc_ref.cli import format_table, format_value, main, parse_assignments
from posenc_ref.demos import Demo, list_demos
from posenc_ref.demos.base import Param

run_cli = cli_runner(main)


def cli_subprocess(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "PYTHONIOENCODING": "utf-8", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "posenc_ref.cli", *argv],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=180,
        env=full_env,
    )


# ----------------------------------------------------------------------------- list


def test_list_shows_every_demo_with_params(capsys):
    code, out, err = run_cli(capsys, "demo", "list")
    assert code == 0 and err == ""
    for demo in list_demos():
        assert demo.name in out and demo.title in out
    assert "n_heads=12" in out and "int in [1, 1024]" in out
    assert "causal=true" in out


def test_list_json(capsys):
    code, out, _ = run_cli(capsys, "demo", "list", "--json")
    assert code == 0
    specs = json.loads(out)
    assert {s["name"] for s in specs} == {d.name for d in list_demos()}
    slopes = next(s for s in specs if s["name"] == "alibi-slopes")
    assert slopes["params"][0] == {
        "name": "n_heads",
        "type": "int",
        "default": 12,
        "min": 1,
        "max": 1024,
        "help": "number of attention heads",
        "choices": None,
        "even": False,
        "help_zh": "注意力头数",
    }


def test_list_says_what_each_named_value_means(capsys):
    """`linear_ratio` for PI factor 4 is 0.25: the listing says it is θ'ᵢ/θᵢ (1/factor), a ratio."""
    code, out, _ = run_cli(capsys, "demo", "list")
    assert code == 0
    section = out[out.index("rope-scaling ") : out.index("shaw-relative ")]
    line = next(line for line in section.splitlines() if line.strip().startswith("linear_ratio"))
    assert "ratio" in line and "1/factor" in line and "θ'ᵢ/θᵢ" in line
    assert "noncausal_bloom_difference" in out and "(only when causal=false)" in out
    code, out, _ = run_cli(capsys, "demo", "list", "--json")
    scaling = next(s for s in json.loads(out) if s["name"] == "rope-scaling")
    ratio = next(v for v in scaling["values"] if v["name"] == "linear_ratio")
    assert ratio["unit"] == "ratio" and "1/factor" in ratio["meaning"] and "1/factor" in ratio["meaning_zh"]
    assert all(v["meaning"] and v["unit"] for s in json.loads(out) for v in s["values"])


def test_list_does_not_import_torch():
    code = (
        "import sys\n"
        "from posenc_ref.cli import main\n"
        "rc = main(['demo', 'list'])\n"
        "assert 'torch' not in sys.modules, 'torch imported'\n"
        "sys.exit(rc)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    assert proc.returncode == 0, proc.stderr
    assert "rope-relativity" in proc.stdout


# ----------------------------------------------------------------------------- run


def test_run_prints_a_readable_report(capsys):
    code, out, err = run_cli(capsys, "demo", "run", "t5-buckets", "--device", "cpu")
    assert code == 0, err
    assert out.startswith("t5-buckets: T5 relative position buckets")
    assert "Claim:" in out and "Device: cpu · float32 ·" in out
    assert "relative position (key − query)  bucket" in out
    assert "                            -128      15" in out  # right-aligned numbers
    assert out.count("✓") == 6 and "✗" not in out
    assert "first_max_bucket_distance  91" in out
    assert "6/6 checks passed (all passed)" in out


def test_run_with_params_and_json(capsys):
    code, out, err = run_cli(capsys, "demo", "run", "alibi-slopes", "n_heads=6", "--json", "--device", "cpu")
    assert code == 0, err
    data = json.loads(out)
    assert data["name"] == "alibi-slopes" and data["params"] == {"n_heads": 6}
    assert data["tables"][0]["columns"] == ["head", "slope", "−log2 slope"]
    assert len(data["tables"][0]["rows"]) == 6
    assert all(c["passed"] for c in data["checks"])
    assert set(data) >= {
        "name",
        "title",
        "claim",
        "device",
        "dtype",
        "elapsed_ms",
        "checks",
        "tables",
        "values",
    }


def test_run_json_with_infinities_is_valid_json(capsys):
    code, out, _ = run_cli(capsys, "demo", "run", "alibi-bias", "--json", "--device", "cpu")
    assert code == 0
    data = json.loads(out)
    assert data["matrices"][0]["values"][0][1] == "-inf"


def test_negative_values_are_not_options(capsys):
    code, out, err = run_cli(capsys, "demo", "run", "sinusoidal-linearity", "k=-7", "--device", "cpu")
    assert code == 0, err
    assert "k=-7" in out


@pytest.fixture
def failing_demo(monkeypatch):
    from posenc_ref import demos as registry

    def run(ctx, x):
        ctx.check("a claim that fails on purpose", 1.0, 1e-6)
        ctx.check_true("a claim that holds", True)

    demo = Demo(
        name="zz-failing",
        title="Always fails",
        claim="nothing",
        topic="test",
        params=(Param("x", "int", 1, min=0, max=5),),
        values=(),
        run=run,
        uses_torch=False,
    )
    monkeypatch.setitem(registry._REGISTRY, demo.name, demo)
    return demo


def test_failed_check_exits_1(capsys, failing_demo):
    code, out, _ = run_cli(capsys, "demo", "run", "zz-failing")
    assert code == 1
    assert "✗ a claim that fails on purpose" in out and "✓ a claim that holds" in out
    assert "1/2 checks passed (1 FAILED)" in out


def test_crashing_demo_is_one_line_exit_1(capsys, monkeypatch):
    from posenc_ref import demos as registry

    def run(ctx):
        raise RuntimeError("boom")

    demo = Demo("zz-crash", "crash", "crash", "test", (), (), run, uses_torch=False)
    monkeypatch.setitem(registry._REGISTRY, demo.name, demo)
    monkeypatch.delenv("POSENC_DEBUG", raising=False)
    code, out, err = run_cli(capsys, "demo", "run", "zz-crash")
    assert code == 1 and out == ""
    assert err.strip() == "error: demo 'zz-crash' failed: RuntimeError: boom"


# ----------------------------------------------------------------------------- bad input -> 2


BAD_INPUTS = [
    (["demo", "run", "no-such-demo"], "valid demos: "),
    (["demo", "run", "alibi-bais"], "did you mean 'alibi-bias'"),
    (["demo", "run", "alibi-slopes", "heads=3"], "valid parameters: n_heads"),
    (["demo", "run", "alibi-slopes", "n_heads"], "expected param=value"),
    (["demo", "run", "alibi-slopes", "=3"], "expected param=value"),
    (["demo", "run", "alibi-slopes", "n_heads=abc"], "must be an integer"),
    (["demo", "run", "alibi-slopes", "n_heads=0"], "in [1, 1024]"),
    (["demo", "run", "alibi-slopes", "n_heads=4", "n_heads=5"], "given twice"),
    (["demo", "run", "sinusoidal-dot", "dim=7"], "even"),
    (["demo", "run", "alibi-bias", "causal=perhaps"], "true or false"),
    (["demo", "run", "alibi-slopes", "--device", "tpu"], "choose one of auto, cpu, cuda, mps"),
    (["demo", "run", "alibi-slopes", "--device", "cuda:x"], "unknown device"),
    (["demo", "run", "alibi-bias", "n_heads=1024", "seq_len=16384"], "budget"),
    (["demo", "run", "learned-extrapolation", "train_len=99"], "train_len (99) must be <= max_len (16)"),
]


@pytest.mark.parametrize(("argv", "fragment"), BAD_INPUTS)
def test_bad_input_exits_2_with_one_line(capsys, argv, fragment):
    code, out, err = run_cli(capsys, *argv)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and fragment in lines[0]


@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA present")
def test_absent_cuda_exits_2(capsys):
    code, _, err = run_cli(capsys, "demo", "run", "alibi-slopes", "--device", "cuda")
    assert code == 2 and "CUDA is not available" in err


@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA present")
def test_posenc_device_cuda_without_cuda_exits_2(capsys, monkeypatch):
    monkeypatch.setenv("POSENC_DEVICE", "cuda")
    code, out, err = run_cli(capsys, "demo", "run", "rope-norm")
    assert code == 2 and out == ""
    assert err == "error: device 'cuda' was requested but CUDA is not available on this machine\n"


def test_memory_refusal_is_one_line_before_any_work(capsys, monkeypatch):
    from posenc_ref import demos as registry

    real = registry.get_demo("rope-norm")
    monkeypatch.setitem(  # a run function that must never be reached
        registry._REGISTRY, real.name, dataclasses.replace(real, run=lambda ctx, **_: pytest.fail("ran"))
    )
    code, out, err = run_cli(capsys, "demo", "run", "rope-norm", "seq_len=1000000", "dim=8192")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "needs about 281494 MiB of tensors, over the 512 MiB budget" in err


def test_missing_demo_name_names_only_name(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["demo", "run"])
    assert exc.value.code == 2
    assert "the following arguments are required: NAME\n" in capsys.readouterr().err


def test_bad_posenc_device_env_exits_2(capsys, monkeypatch):
    monkeypatch.setenv("POSENC_DEVICE", "quantum")
    code, _, err = run_cli(capsys, "demo", "run", "alibi-slopes")
    assert code == 2 and "unknown device 'quantum'" in err


def test_missing_action_exits_2(capsys):
    code, _, err = run_cli(capsys, "demo")
    assert code == 2 and "list" in err and "run" in err


def test_subprocess_errors_have_no_traceback():
    for argv, fragment in [
        (["demo", "run", "nope"], "valid demos"),
        (["demo", "run", "rope-relativity", "dim=3"], "even"),
        (["demo", "run", "t5-buckets", "num_buckets=2"], "no exact bucket"),
    ]:
        proc = cli_subprocess(*argv)
        assert proc.returncode == 2, proc.stderr
        assert "Traceback" not in proc.stderr and fragment in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1


def test_subprocess_run_json_parses():
    proc = cli_subprocess("demo", "run", "rope-relativity", "--json", "--device", "cpu")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["name"] == "rope-relativity" and all(c["passed"] for c in data["checks"])


def test_ascii_terminal_does_not_crash():
    proc = subprocess.run(
        [sys.executable, "-m", "posenc_ref.cli", "demo", "run", "alibi-slopes", "--device", "cpu"],
        capture_output=True,
        timeout=180,
        env={**os.environ, "PYTHONIOENCODING": "ascii"},
    )
    assert proc.returncode == 0, proc.stderr
    assert b"PASS" in proc.stdout and b"Traceback" not in proc.stderr


def test_posenc_entry_point_runs_the_demo_commands():
    # plain imports: an ImportError in our own CLI is a failure, not a skip
    import quizbank.cli
    import quizbank.progress.cli  # noqa: F401
    from tui.cli import main as posenc_main

    assert posenc_main(["demo", "run", "nope"]) == 2
    assert posenc_main(["demo", "list", "--json"]) == 0


# ----------------------------------------------------------------------------- formatting helpers


def test_format_value():
    assert format_value(3) == "3"
    assert format_value(2.0) == "2"
    assert format_value(0.0) == "0"
    assert format_value(0.125) == "0.125"
    assert format_value(1 / 3) == "0.333333"
    assert format_value(5.960464477539063e-08) == "5.96e-08"
    assert format_value(float("-inf")) == "-inf"
    assert format_value(float("nan")) == "nan"
    assert format_value(True) == "true"
    assert format_value(1.5e7) == "15000000"
    assert format_value(12345678.9) == "1.235e+07"
    assert format_value("x") == "x"


def test_format_table_alignment():
    lines = format_table(["name", "value"], [["a", 1.5], ["longer", 10]], indent="")
    assert lines == ["name    value", "------  -----", "a         1.5", "longer     10"]


def test_parse_assignments():
    assert parse_assignments(["dim=16", "k=-3", "name=a=b"]) == {"dim": "16", "k": "-3", "name": "a=b"}
    with pytest.raises(ValueError, match="malformed"):
        parse_assignments(["dim"])


def test_cli_refuses_a_constraint_with_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    from posenc_ref.cli import main

    assert main(["demo", "run", "rope-scaling", "low_freq_factor=8", "high_freq_factor=2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "error: parameters must satisfy low_freq_factor < high_freq_factor, got low_freq_factor=8 and high_freq_factor=2"
    ]
