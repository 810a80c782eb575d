"""The demo registry: every demo passes at its defaults; params, budgets and errors behave."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
import torch

from posenc_ref.demos import (
    Demo,
    DemoError,
    ParamError,
    get_demo,
    list_demos,
    memory_budget_bytes,
    run_demo,
)
from posenc_ref.demos.base import Param

ALL_DEMOS = [d.name for d in list_demos()]
REQUIRED = {
    "rope-relativity",
    "rope-norm",
    "rope-decay",
    "rope-layouts",
    "rope-forms",
    "rope-scaling",
    "sinusoidal-linearity",
    "sinusoidal-wavelengths",
    "sinusoidal-dot",
    "alibi-slopes",
    "alibi-bias",
    "t5-buckets",
    "permutation-equivariance",
    "learned-extrapolation",
    "attention-expansion",
    "integer-binary-pe",
}


def test_registry_has_the_required_demos():
    assert REQUIRED <= set(ALL_DEMOS)
    assert ALL_DEMOS == sorted(ALL_DEMOS)
    for demo in list_demos():
        assert demo.title and demo.claim and demo.topic
        assert len({p.name for p in demo.params}) == len(demo.params)
        for p in demo.params:
            assert p.coerce(p.default) == p.default, (demo.name, p.name)


@pytest.mark.parametrize("name", ALL_DEMOS)
def test_every_demo_passes_at_defaults(name):
    result = run_demo(name, device="cpu")
    assert result.checks, f"{name} makes no checks"
    failed = [c.claim for c in result.checks if not c.passed]
    assert not failed, f"{name}: {failed}"
    assert result.passed
    demo = get_demo(name)
    missing = set(demo.values) - set(result.values)
    assert not missing, f"{name} does not emit declared values {missing}"
    assert result.device == "cpu" and result.elapsed_ms >= 0
    assert result.params == demo.defaults()
    encoded = json.dumps(result.to_dict(), allow_nan=False)
    assert json.loads(encoded)["name"] == name
    for table in result.tables:
        assert table.columns and all(len(row) == len(table.columns) for row in table.rows), table.title
    for s in result.series:
        assert s.ys and all(len(ys) == len(s.x) for ys in s.ys.values()), s.title


def _run(name, **params):
    result = run_demo(name, params, device="cpu")
    assert result.passed, [c.claim for c in result.checks if not c.passed]
    return result


def test_alibi_slopes_values_and_table_convention():
    result = _run("alibi-slopes")
    assert result.values["n8_last_slope"] == 1 / 256
    assert result.values["n12_ninth_slope"] == pytest.approx(2**-0.5, rel=1e-15)
    assert result.values["max_error"] < 1e-7
    table = result.tables[0]
    assert table.columns == ["head", "slope", "−log2 slope"]
    assert [row[0] for row in table.rows] == list(range(1, 13))
    assert [row[2] for row in table.rows] == pytest.approx([1, 2, 3, 4, 5, 6, 7, 8, 0.5, 1.5, 2.5, 3.5])
    six = _run("alibi-slopes", n_heads=6)
    assert len(six.tables[0].rows) == 6
    assert [row[2] for row in six.tables[0].rows] == pytest.approx([2, 4, 6, 8, 1, 3])


def test_alibi_bias_values():
    result = _run("alibi-bias", n_heads=4, seq_len=8)
    assert result.values["bias_last_row_first"] == pytest.approx(-0.25 * 7)
    noncausal = _run("alibi-bias", causal="false")
    assert noncausal.values["noncausal_bloom_difference"] > 1e-3


def test_t5_buckets_values_and_table_convention():
    result = _run("t5-buckets")
    assert result.values["first_max_bucket_distance"] == 91
    assert result.values["exact_buckets"] == 8
    assert result.values["max_error"] == 0
    table = result.tables[0]
    assert table.columns == ["relative position (key − query)", "bucket"]
    assert table.rows == [
        [rp, b]
        for rp, b in zip(
            [-128, -64, -20, -8, -1, 0, 1, 8, 20, 64, 128], [15, 14, 10, 8, 1, 0, 17, 24, 26, 30, 31]
        )
    ]
    causal = _run("t5-buckets", bidirectional=False)
    assert causal.values["exact_buckets"] == 16
    assert [row[1] for row in causal.tables[0].rows] == [31, 26, 17, 8, 1, 0, 0, 0, 0, 0, 0]


def test_absolute_demo_values():
    dot = _run("sinusoidal-dot", dim=64)
    assert dot.values["dot_at_0"] == pytest.approx(32, abs=1e-4)
    wl = _run("sinusoidal-wavelengths", dim=512)
    assert wl.values["min_wavelength"] == pytest.approx(2 * math.pi)
    assert wl.values["max_wavelength"] == pytest.approx(2 * math.pi * 10000 ** (510 / 512))
    assert wl.values["ratio"] == pytest.approx(10000 ** (510 / 512))
    ib = _run("integer-binary-pe", seq_len=17)
    assert ib.values == {"integer_max": 16, "binary_bits": 5, "max_neighbour_jump": 5}
    ib16 = _run("integer-binary-pe", seq_len=16)
    assert ib16.values["max_neighbour_jump"] == 4 and ib16.values["binary_bits"] == 4
    perm = _run("permutation-equivariance")
    assert perm.values["no_pe_error"] < 1e-5 and perm.values["with_pe_difference"] > 1e-2
    learned = _run("learned-extrapolation")
    assert learned.values["refused"] == 1.0
    assert learned.values["untrained_grad_norm"] == 0.0
    assert learned.values["trained_grad_norm"] > 0
    lin = _run("sinusoidal-linearity", k=-5, seq_len=10)
    assert lin.values["max_error"] < 1e-5


def test_relative_demo_values():
    xl = _run("xlnet-terms", dim=8)
    assert 1 <= xl.values["position_only_rank"] <= 8
    deb = _run("deberta-terms", dim=8)
    assert deb.values["n_terms"] == 3
    assert deb.values["scale"] == pytest.approx(1 / math.sqrt(24))
    shaw = _run("shaw-relative", clip=3)
    assert shaw.values["n_embeddings"] == 7


@pytest.mark.parametrize(
    "name, params",
    [
        ("sinusoidal-linearity", {"dim": 2, "k": 100_000, "seq_len": 1}),
        ("sinusoidal-dot", {"dim": 2, "seq_len": 2}),
        ("learned-extrapolation", {"max_len": 2, "train_len": 2, "dim": 1}),
        ("integer-binary-pe", {"seq_len": 2}),
        ("permutation-equivariance", {"seq_len": 2, "dim": 2}),
        ("attention-expansion", {"seq_len": 1, "dim": 2}),
        ("alibi-slopes", {"n_heads": 1}),
        ("alibi-bias", {"n_heads": 1, "seq_len": 1}),
        ("t5-buckets", {"bidirectional": False, "num_buckets": 2, "max_distance": 2}),
        ("shaw-relative", {"seq_len": 1, "clip": 0, "dim": 1}),
        ("xlnet-terms", {"seq_len": 1, "dim": 2}),
        ("deberta-terms", {"seq_len": 1, "dim": 1, "span": 1}),
    ],
)
def test_demos_at_small_bounds(name, params):
    _run(name, **params)


def test_param_errors_name_the_choices_or_bounds():
    with pytest.raises(DemoError, match="valid demos"):
        get_demo("no-such-demo")
    with pytest.raises(DemoError, match="did you mean 'alibi-bias'"):
        get_demo("alibi-bais")
    with pytest.raises(ParamError, match="valid parameters: n_heads"):
        run_demo("alibi-slopes", {"heads": 3})
    with pytest.raises(ParamError, match=r"in \[1, 1024\]"):
        run_demo("alibi-slopes", {"n_heads": "0"})
    with pytest.raises(ParamError, match="must be an integer"):
        run_demo("alibi-slopes", {"n_heads": "abc"})
    with pytest.raises(ParamError, match="even"):
        run_demo("sinusoidal-dot", {"dim": "7"})
    with pytest.raises(ParamError, match="true or false"):
        run_demo("alibi-bias", {"causal": "maybe"})
    with pytest.raises(ParamError, match="train_len"):
        run_demo("learned-extrapolation", {"max_len": 4, "train_len": 8})
    with pytest.raises(ParamError, match="no exact bucket"):
        run_demo("t5-buckets", {"num_buckets": 2})
    with pytest.raises(ParamError, match="max_distance"):
        run_demo("t5-buckets", {"num_buckets": 64, "max_distance": 10})


def test_memory_budget(monkeypatch):
    monkeypatch.setenv("POSENC_MEMORY_BUDGET_MIB", "1")
    assert memory_budget_bytes() == 2**20
    with pytest.raises(DemoError, match="over the 1 MiB budget"):
        run_demo("alibi-bias", {"n_heads": 64, "seq_len": 1024})
    monkeypatch.delenv("POSENC_MEMORY_BUDGET_MIB")
    assert memory_budget_bytes() == 512 * 2**20
    with pytest.raises(DemoError, match="512 MiB budget"):
        run_demo("alibi-bias", {"n_heads": 1024, "seq_len": 16384})


def test_memory_estimate_is_checked_before_the_run_function(monkeypatch):
    from posenc_ref import demos as registry

    calls = []
    fake = Demo(
        name="zz-fake",
        title="fake",
        claim="fake",
        topic="test",
        params=(Param("n", "int", 1, min=1, max=10),),
        values=(),
        run=lambda ctx, n: calls.append(n),
        memory_bytes=lambda n: n * 2**30,  # 1 GiB per unit
        uses_torch=False,
    )
    monkeypatch.setitem(registry._REGISTRY, fake.name, fake)
    with pytest.raises(DemoError, match="budget"):
        run_demo("zz-fake", {"n": "1"})
    assert calls == []  # refused before anything ran
    monkeypatch.setenv("POSENC_MEMORY_BUDGET_MIB", "4096")
    run_demo("zz-fake", {"n": "2"})
    assert calls == [2]


def test_listing_demos_does_not_import_torch():
    code = (
        "import sys, json\n"
        "import posenc_ref\n"
        "from posenc_ref.demos import list_demos\n"
        "specs = [d.to_dict() for d in list_demos()]\n"
        "json.dumps(specs)\n"
        "assert len(specs) >= 16\n"
        "assert 'torch' not in sys.modules, 'torch imported'\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_numpy_only_demo_runs_without_torch():
    code = (
        "import sys\n"
        "from posenc_ref.demos import get_demo, run_demo\n"
        "assert get_demo('integer-binary-pe').uses_torch is False\n"
        "r = run_demo('integer-binary-pe', {'seq_len': '100'})\n"
        "assert r.passed and r.device == 'cpu'\n"
        "assert 'torch' not in sys.modules, 'torch imported'\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_unknown_device_is_a_demo_error():
    with pytest.raises(DemoError, match="unknown device"):
        run_demo("alibi-slopes", device="tpu")


@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA present")
def test_absent_cuda_is_a_demo_error():
    with pytest.raises(DemoError, match="CUDA is not available"):
        run_demo("alibi-slopes", device="cuda")


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
@pytest.mark.parametrize("name", ALL_DEMOS)
def test_every_demo_passes_on_cuda(name):
    result = run_demo(name, device="cuda")
    assert result.passed, [c.claim for c in result.checks if not c.passed]
