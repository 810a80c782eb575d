"""The demo registry: every demo passes at its defaults; params, budgets and errors behave."""

from __future__ import annotations

import json
import math
import re
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
from posenc_ref.demos.base import ConstraintError, Param
from quizbank.loader import load_banks

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
    "rope-kernel-traffic",
    "deberta-buckets",
    "shuffle-score",
    "axial-rope-split",
    "vit-table-resize",
}


def test_registry_has_the_required_demos():
    assert set(ALL_DEMOS) >= REQUIRED
    assert sorted(ALL_DEMOS) == ALL_DEMOS
    for demo in list_demos():
        assert demo.title and demo.claim and demo.topic
        assert len({p.name for p in demo.params}) == len(demo.params)
        for p in demo.params:
            assert p.coerce(p.default) == p.default, (demo.name, p.name)


CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.mark.parametrize("name", ALL_DEMOS)
def test_every_demo_has_a_chinese_title_and_claim(name):
    demo = get_demo(name)
    for text in (demo.title_zh, demo.claim_zh):
        assert text.strip() and CJK.search(text), (name, text)
        assert text != demo.title and text != demo.claim
    spec = demo.to_dict()
    assert spec["title_zh"] == demo.title_zh and spec["claim_zh"] == demo.claim_zh
    assert spec["title"] == demo.title and spec["claim"] == demo.claim


def test_every_parameter_has_chinese_help_beside_its_english():
    missing = [(d.name, p.name) for d in list_demos() for p in d.params if not CJK.search(p.help_zh)]
    assert not missing, f"give these Param(...) a help_zh: {missing}"
    assert all(p.help.strip() for d in list_demos() for p in d.params)
    seed = get_demo("attention-expansion").param("seed")
    assert seed is not None and seed.help_in("zh") == "随机种子" and seed.help_in("en") == "random seed"
    assert seed.to_dict()["help_zh"] == "随机种子"


def test_every_named_value_has_a_meaning_and_unit_in_both_languages():
    missing = [
        (d.name, v.name)
        for d in list_demos()
        for v in d.value_specs
        if not (v.meaning.strip() and v.unit.strip() and CJK.search(v.meaning_zh))
    ]
    assert not missing, f"give these values a Value(name, meaning, unit, meaning_zh=...): {missing}"
    ratio = get_demo("rope-scaling").value_spec("linear_ratio")
    assert ratio is not None and ratio.unit == "ratio" and "1/factor" in ratio.meaning
    assert ratio.meaning_in("zh") == ratio.meaning_zh and ratio.meaning_in("en") == ratio.meaning


def test_a_bare_value_name_is_listed_without_meaning():
    """A name given without Value(...) still works (bank checks can read it) but carries no meaning,
    which the test above refuses; a conditional value is not among the names every run records."""
    from posenc_ref.demos.base import Value

    demo = Demo(
        name="zz-bare",
        title="t",
        claim="c",
        topic="rope",
        params=(),
        values=("plain", Value("sometimes", "m", "count", meaning_zh="某", when="causal=false")),
        run=lambda ctx: None,
    )
    assert demo.values == ("plain",)
    assert [(v.name, v.meaning, v.when) for v in demo.value_specs] == [
        ("plain", "", ""),
        ("sometimes", "m", "causal=false"),
    ]
    assert demo.to_dict()["values"][1] == {
        "name": "sometimes",
        "meaning": "m",
        "unit": "count",
        "meaning_zh": "某",
        "when": "causal=false",
    }
    with pytest.raises(ValueError, match="declares a value twice"):
        Demo(name="zz", title="t", claim="c", topic="t", params=(), values=("a", "a"), run=lambda ctx: None)


def test_chinese_title_and_claim_travel_with_the_result():
    result = run_demo("alibi-slopes", {"n_heads": 4}, device="cpu")
    demo = get_demo("alibi-slopes")
    assert (result.title, result.claim) == (demo.title, demo.claim)
    assert result.title_zh == "ALiBi 各注意力头的斜率（含头数不是 2 的幂的情况）"
    assert result.claim_zh == demo.claim_zh
    data = json.loads(json.dumps(result.to_dict(), ensure_ascii=False, allow_nan=False))
    assert data["title_zh"] == result.title_zh and data["claim_zh"] == result.claim_zh
    assert data["values"]["last_slope"] == 2**-8


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


def test_learned_table_counts_its_untrained_rows_and_parameters():
    learned = _run("learned-extrapolation", max_len=2048, train_len=1000, dim=8)
    assert learned.values["untrained_rows"] == 2048 - 1000
    assert learned.values["parameters"] == 2048 * 8
    full = _run("learned-extrapolation", max_len=16, train_len=16, dim=4)
    assert full.values["untrained_rows"] == 0


def test_vit_table_resize_values():
    resized = _run("vit-table-resize")  # 14×14 -> 24×24, ViT-B/16 from 224 to 384
    assert resized.values["tokens"] == 1 + 24 * 24 and resized.values["prefix_error"] == 0
    assert resized.values["scale_factor_rows"] == 24
    assert _run("vit-table-resize", new_h=61, new_w=61).values["scale_factor_rows"] == 60  # 14 · (61/14) < 61
    assert 0 < resized.values["round_trip_error"] < 0.1


def test_transformer_xl_relative_rows_are_memory_plus_segment():
    for seq_len, mem_len in ((6, 3), (5, 40), (64, 1)):
        xl = _run("xlnet-terms", seq_len=seq_len, dim=8, mem_len=mem_len)
        assert xl.values["relative_rows"] == mem_len + seq_len  # klen = mlen + qlen, pos_seq klen-1 .. 0


def test_deberta_bucket_values():
    for r, bucket in ((200, 169), (-300, -207), (100, 100), (511, 255), (5000, None)):
        result = _run("deberta-buckets", relative_position=r)
        if bucket is None:  # past max_position: the bucket keeps growing, the c2p row saturates
            assert result.values["bucket"] > 255 and result.values["c2p_row"] == 511
            continue
        assert result.values["bucket"] == bucket and result.values["c2p_row"] == bucket + 256
    assert _run("deberta-buckets").values["exact_limit"] == 128


def test_shuffle_score_values():
    result = _run("shuffle-score", q1=2, q2=1, k1=1, k2=3, m=1, n=4, m_after=5, n_after=2)
    assert result.values["score_no_pe_before"] == result.values["score_no_pe_after"] == 5  # 2·1 + 1·3
    # RoPE d = 2, θ = 1: (q·k) cos δ + (q2 k1 − q1 k2) sin δ with δ = n − m
    assert result.values["score_rope_before"] == pytest.approx(5 * math.cos(3) - 5 * math.sin(3))
    assert result.values["score_rope_after"] == pytest.approx(5 * math.cos(-3) - 5 * math.sin(-3))
    same_offset = _run("shuffle-score", m=1, n=4, m_after=10, n_after=13)
    assert same_offset.values["score_rope_after"] == pytest.approx(same_offset.values["score_rope_before"])
    with pytest.raises(ParamError, match="two different positions"):
        run_demo("shuffle-score", {"m": 3, "n": 3})


def test_rope_kernel_traffic_values():
    result = _run("rope-kernel-traffic")  # Llama-3-8B, 8192 tokens, bf16
    assert result.values["traffic_mib"] == 160 and result.values["intensity"] == pytest.approx(0.75)
    assert result.values["decode_kib"] == 20
    assert result.values["traffic_us"] == pytest.approx(160 * 2**20 / 3.35e12 * 1e6)
    assert _run(
        "rope-kernel-traffic", seq_len=1000, n_heads=8, n_kv_heads=8, head_dim=64, dtype="float32"
    ).values["traffic_mib"] == pytest.approx(2 * 2 * 1000 * 8 * 64 * 4 / 2**20)


def test_axial_rope_split_values():
    for d, split in ((128, (44, 42, 42)), (64, (24, 20, 20)), (160, (56, 52, 52))):
        result = _run("axial-rope-split", head_dim=d)
        assert (
            result.values["t_channels"],
            result.values["h_channels"],
            result.values["w_channels"],
        ) == split
        assert result.values["t_pairs"] == split[0] // 2


@pytest.mark.parametrize(
    ("name", "params"),
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


def test_every_module_of_the_demos_package_is_discovered_without_torch():
    """No catalogue: listing imports each module in posenc_ref/demos (helpers named `_*` aside)."""
    from pathlib import Path

    import posenc_ref.demos

    folder = Path(posenc_ref.demos.__file__).parent
    modules = sorted(f"posenc_ref.demos.{p.stem}" for p in folder.glob("*.py") if not p.stem.startswith("_"))
    assert "posenc_ref.demos.scaling_demos" in modules
    code = (
        "import sys, json\n"
        "from posenc_ref.demos import list_demos\n"
        "list_demos()\n"
        f"missing = [m for m in {modules!r} if m not in sys.modules]\n"
        "assert not missing, missing\n"
        "assert 'torch' not in sys.modules, 'torch imported'\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_a_demo_in_a_new_module_or_subpackage_is_registered(tmp_path, monkeypatch):
    from posenc_ref.demos.registry import _REGISTRY, import_modules

    package = tmp_path / "extra_pkg"
    (package / "deeper").mkdir(parents=True)
    for init in (package / "__init__.py", package / "deeper" / "__init__.py"):
        init.write_text("")
    spec = (
        "from posenc_ref.demos import register_demo\n"
        "@register_demo(name={name!r}, title='t', claim='c', topic='rope', params=(), values=())\n"
        "def _run(ctx):\n"
        "    ctx.value('x', 1.0)\n"
    )
    (package / "more_demos.py").write_text(spec.format(name="zz-discovered"))
    (package / "deeper" / "deep_demos.py").write_text(spec.format(name="zz-deep"))
    (package / "_helpers.py").write_text("raise RuntimeError('helpers are not imported')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        names = import_modules([str(package)], "extra_pkg.")
        assert names == ["extra_pkg.deeper", "extra_pkg.deeper.deep_demos", "extra_pkg.more_demos"]
        assert get_demo("zz-discovered").title == "t" and get_demo("zz-deep").claim == "c"
    finally:
        for name in ("zz-discovered", "zz-deep"):
            _REGISTRY.pop(name, None)
        for module in [m for m in sys.modules if m.startswith("extra_pkg")]:
            monkeypatch.delitem(sys.modules, module)


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


# ----------------------------------------------------------------------------- device choice


@pytest.fixture
def no_accelerators(monkeypatch):
    import posenc_ref.device as device_mod

    monkeypatch.delenv("POSENC_DEVICE", raising=False)
    monkeypatch.setattr(device_mod, "_cuda_available", lambda torch: False)
    monkeypatch.setattr(device_mod, "_mps_available", lambda torch: False)
    return device_mod


def test_pick_device_auto_order(no_accelerators, monkeypatch):
    from posenc_ref import pick_device

    assert pick_device() == torch.device("cpu")
    assert pick_device(" CPU ") == torch.device("cpu")
    monkeypatch.setattr(no_accelerators, "_mps_available", lambda torch: True)
    assert pick_device("auto") == torch.device("mps")  # no cuda: mps next
    monkeypatch.setattr(no_accelerators, "_cuda_available", lambda torch: True)
    assert pick_device("auto") == torch.device("cuda")  # cuda first


def test_pick_device_absent_and_unknown_devices(no_accelerators, monkeypatch):
    from posenc_ref import DeviceUnavailableError, pick_device

    with pytest.raises(DeviceUnavailableError, match="CUDA is not available"):
        pick_device("cuda")
    with pytest.raises(DeviceUnavailableError, match="MPS is not available"):
        pick_device("mps")
    for bad in ("tpu", "cuda:x", "cuda:", "auto:0", "cpu:-1"):
        with pytest.raises(DeviceUnavailableError, match="unknown device"):
            pick_device(bad)
    monkeypatch.setattr(no_accelerators, "_cuda_available", lambda torch: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    assert pick_device("cuda:0") == torch.device("cuda", 0)
    with pytest.raises(DeviceUnavailableError, match=r"'cuda:3' .* only 1 CUDA device"):
        pick_device("cuda:3")


def test_posenc_device_overrides_the_argument(no_accelerators, monkeypatch):
    from posenc_ref import DeviceUnavailableError, pick_device

    monkeypatch.setenv("POSENC_DEVICE", "cpu")
    assert pick_device("cuda") == torch.device("cpu")
    monkeypatch.setenv("POSENC_DEVICE", "cuda")
    with pytest.raises(DeviceUnavailableError, match="CUDA is not available"):
        pick_device("cpu")
    with pytest.raises(DemoError, match="CUDA is not available"):
        run_demo("rope-norm", device="cpu")
    monkeypatch.setenv("POSENC_DEVICE", "")  # empty: ignored
    assert pick_device("auto") == torch.device("cpu")


# ----------------------------------------------------------------------------- CUDA out of memory -> CPU


@pytest.fixture
def fake_cuda_oom(monkeypatch):
    """Pretend `pick_device` chose CUDA and make `rope-norm` run out of memory there.

    On the CPU the real demo runs, so the fallback result can be checked value by value.
    Returns the list of devices the demo was started on.
    """
    import dataclasses

    import posenc_ref.device as device_mod
    from posenc_ref import demos as registry

    monkeypatch.setattr(device_mod, "pick_device", lambda prefer="auto": torch.device("cuda"))
    real = registry.get_demo("rope-norm")
    started: list[str] = []

    def run(ctx, **params):
        started.append(ctx.device)
        if ctx.device.startswith("cuda"):
            raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 GiB")
        real.run(ctx, **params)

    monkeypatch.setitem(registry._REGISTRY, real.name, dataclasses.replace(real, run=run))
    return started


def test_cuda_oom_falls_back_to_cpu_with_a_note(fake_cuda_oom):
    result = run_demo("rope-norm", {"dim": 16, "seq_len": 32}, device="cuda")
    assert fake_cuda_oom == ["cuda", "cpu"]  # tried CUDA once, then reran on the CPU
    assert result.device == "cpu" and result.dtype == "float32"
    assert result.passed and len(result.checks) == 2
    assert 0 < result.values["max_norm_error"] < 1e-6
    assert result.notes[0] == "CUDA ran out of memory on cuda (OutOfMemoryError); fell back to CPU."
    assert result.to_dict()["notes"][0].endswith("fell back to CPU.")
    # the same numbers as a plain CPU run: the fallback reran the whole demo
    assert result.values == run_demo("rope-norm", {"dim": 16, "seq_len": 32}, device="cpu").values


def test_cuda_oom_fallback_through_the_cli(fake_cuda_oom, capsys):
    from posenc_ref.cli import main

    code = main(["demo", "run", "rope-norm", "--device", "cuda"])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    assert "Device: cpu · float32" in out
    assert "fell back to CPU" in out and "2/2 checks passed (all passed)" in out


def test_old_style_cuda_oom_message_also_falls_back(monkeypatch):
    import posenc_ref.device as device_mod
    from posenc_ref import demos as registry

    monkeypatch.setattr(device_mod, "pick_device", lambda prefer="auto": torch.device("cuda:0"))

    def run(ctx):
        if ctx.device != "cpu":
            raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 7.79 GiB total)")
        ctx.check("ran on the CPU", 0.0, 0.0)

    demo = Demo("zz-oom", "oom", "oom", "test", (), (), run)
    monkeypatch.setitem(registry._REGISTRY, demo.name, demo)
    result = run_demo("zz-oom", device="cuda")
    assert result.device == "cpu" and result.passed
    assert result.notes == ["CUDA ran out of memory on cuda:0 (RuntimeError); fell back to CPU."]


def test_other_errors_on_cuda_and_oom_on_cpu_are_not_swallowed(monkeypatch):
    import posenc_ref.device as device_mod
    from posenc_ref import demos as registry

    def run(ctx):
        if ctx.device.startswith("cuda"):
            raise ValueError("a real bug")
        raise torch.cuda.OutOfMemoryError("CUDA out of memory")  # on the CPU: nothing to fall back to

    demo = Demo("zz-bug", "bug", "bug", "test", (), (), run)
    monkeypatch.setitem(registry._REGISTRY, demo.name, demo)
    monkeypatch.setattr(device_mod, "pick_device", lambda prefer="auto": torch.device("cuda"))
    with pytest.raises(ValueError, match="a real bug"):
        run_demo("zz-bug", device="cuda")
    monkeypatch.setattr(device_mod, "pick_device", lambda prefer="auto": torch.device("cpu"))
    with pytest.raises(torch.cuda.OutOfMemoryError):
        run_demo("zz-bug", device="cpu")


# ----------------------------------------------------------------------------- memory estimates are honest

# (demo, parameter grown until the estimate fills the budget, fixed parameters, budget MiB)
MEMORY_CASES = [
    ("sinusoidal-dot", "seq_len", {"dim": 2}, 64),
    ("sinusoidal-dot", "seq_len", {"dim": 8192}, 64),
    ("learned-extrapolation", "train_len", {"max_len": 20000, "dim": 32}, 64),
    ("rope-layouts", "seq_len", {"dim": 512}, 64),
    ("rope-norm", "seq_len", {"dim": 256}, 64),
    ("rope-relativity", "dim", {}, 64),
    ("rope-decay", "max_distance", {"dim": 1024}, 128),  # ~50 blocks, single-threaded
    ("alibi-bias", "seq_len", {"n_heads": 4}, 64),
    ("mrope-sections", "grid_w", {"grid_t": 16, "grid_h": 64}, 64),
    ("permutation-equivariance", "seq_len", {"dim": 256}, 64),
    ("attention-expansion", "seq_len", {"dim": 16}, 64),
    ("shaw-relative", "seq_len", {"dim": 1, "clip": 8}, 64),
]


def _largest_within_budget(name: str, key: str, fixed: dict, budget: int) -> dict:
    """Parameters with `key` as large as the demo's memory estimate allows under `budget` bytes."""
    demo = get_demo(name)
    param = demo.param(key)

    def estimate(value: int) -> int:
        value -= value % 2 if param.even else 0
        return demo.memory_bytes(**demo.resolve_params({**fixed, key: value}))

    lo, hi = int(param.min), int(param.max)
    assert estimate(lo) <= budget, (name, "even the smallest value is over budget")
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if estimate(mid) <= budget else (lo, mid)
    best = hi if estimate(hi) <= budget else lo
    if param.even and best % 2:
        best -= 1
    return {**fixed, key: best}


@pytest.mark.slow  # a child process that imports torch and fills the budget of each case
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status and resets VmHWM")
def test_memory_estimates_bound_the_measured_peak():
    """Run each demo at the largest size its estimate lets through, and measure the peak RSS.

    In one subprocess set up as the app's demo process is (`posenc_ref.heap.release_freed_memory`): before
    each case free the heap (malloc_trim) and reset the high-water mark (/proc/self/clear_refs 5), then
    compare VmHWM - VmRSS(before) with the estimate. Single-threaded torch, where glibc heap fragmentation
    shows most (without the fixed mmap threshold, permutation-equivariance's first run at its size peaked
    at 87-112 MiB for a 64 MiB estimate).
    """
    cases = [
        (name, _largest_within_budget(name, key, fixed, mib * 2**20), mib)
        for name, key, fixed, mib in MEMORY_CASES
    ]
    code = r"""
import ctypes, json, os, sys
import torch
torch.set_num_threads(1)
from posenc_ref.demos import get_demo, run_demo
from posenc_ref.heap import release_freed_memory
assert release_freed_memory()  # as the processes that run demos for a user (tui.demo_host, `posenc demo run`)
libc = ctypes.CDLL("libc.so.6")
def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
out = []
for name, params, mib in json.loads(sys.argv[1]):
    run_demo(name, device="cpu")  # lazy initialisation outside the measurement
    os.environ["POSENC_MEMORY_BUDGET_MIB"] = str(mib)
    demo = get_demo(name)
    estimate = demo.memory_bytes(**demo.resolve_params(params))
    libc.malloc_trim(0)
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    before = status("VmRSS")
    result = run_demo(name, params, device="cpu")
    out.append([name, params, estimate, status("VmHWM") - before, result.passed])
print(json.dumps(out))
"""
    proc = subprocess.run(
        [sys.executable, "-c", code, json.dumps(cases)], capture_output=True, text=True, timeout=300
    )
    if proc.returncode and "clear_refs" in proc.stderr:
        pytest.skip("cannot reset the RSS high-water mark here")
    assert proc.returncode == 0, proc.stderr
    slack = 16 * 2**20  # allocator and first-call overhead
    report, over = [], []
    for name, params, estimate, peak, passed in json.loads(proc.stdout):
        assert passed, (name, params)
        assert estimate > 16 * 2**20, (name, params, "the case should fill most of the budget")
        line = f"{name} {params}: measured {peak / 2**20:.0f} MiB, estimated {estimate / 2**20:.0f} MiB"
        report.append(line)
        if peak > 1.1 * estimate + slack:
            over.append(line)
    assert not over, "\n".join(report)


# ----------------------------------------------------------------------------- output stays bounded


def test_long_runs_plot_a_bounded_number_of_points():
    from posenc_ref.demos._common import MAX_SERIES_POINTS

    norm = _run("rope-norm", dim=4, seq_len=5000)
    series = norm.series[0]
    assert len(series.x) <= MAX_SERIES_POINTS and series.x[0] == 0 and series.x[-1] == 4999
    decay = _run("rope-decay", dim=16, max_distance=3000)
    series = decay.series[0]
    assert len(series.x) <= MAX_SERIES_POINTS and series.x[0] == 0 and series.x[-1] == 3000
    # the curve at distance 0 is still (d/2 + 1)/2 and the points are samples of the full curve
    assert series.ys["mean |S_j|"][0] == pytest.approx(4.5)
    assert decay.values["bound_at_max"] == pytest.approx(series.ys["mean |S_j|"][-1])


# ----------------------------------------------------------------------------- odd memory budgets (POSENC_MEMORY_BUDGET_MIB)


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


def test_cross_parameter_constraints_are_declared_and_refused() -> None:
    demo = get_demo("rope-scaling")
    assert [rule.describe() for rule in demo.constraints] == [
        "beta_fast ≥ beta_slow",
        "low_freq_factor < high_freq_factor",
    ]
    with pytest.raises(ConstraintError, match="beta_fast ≥ beta_slow, got beta_fast=1 and beta_slow=32"):
        demo.resolve_params({"beta_fast": 1, "beta_slow": 32})
    with pytest.raises(ConstraintError, match="low_freq_factor < high_freq_factor"):
        demo.resolve_params({"low_freq_factor": 4, "high_freq_factor": 1})
    assert demo.resolve_params({"beta_fast": 8, "beta_slow": 8})["beta_fast"] == 8.0
