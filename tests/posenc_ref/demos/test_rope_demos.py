"""RoPE and scaling demos: every check passes at defaults, values carry the documented numbers."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from posenc_ref.demos import get_demo, run_demo
from posenc_ref.rope_scaling import yarn_correction_range

ROPE_DEMOS = [
    "rope-relativity",
    "rope-norm",
    "rope-decay",
    "rope-layouts",
    "rope-forms",
    "rope-precision",
    "rope-kv-cache",
    "mrope-sections",
    "rope-scaling",
]


@pytest.fixture(scope="module")
def results():
    return {name: run_demo(name, device="cpu") for name in ROPE_DEMOS}


@pytest.mark.parametrize("name", ROPE_DEMOS)
def test_demo_passes_at_defaults(results, name):
    result = results[name]
    failed = [c.claim for c in result.checks if not c.passed]
    assert result.checks and not failed, failed
    assert set(get_demo(name).values) <= set(result.values)
    assert all(math.isfinite(v) for v in result.values.values())
    assert result.tables, "every demo shows a table"
    payload = json.loads(json.dumps(result.to_dict()))
    assert payload["name"] == name and payload["device"] == "cpu"


def test_relativity_table_layout(results):
    result = results["rope-relativity"]
    table = result.tables[0]
    assert table.columns == ["m", "n", "m − n", "score"]
    assert table.rows[0][:3] == [5, 2, 3]  # the requested (m, n) first
    assert all(row[2] == 3 for row in table.rows)
    assert all(row[3] == pytest.approx(table.rows[0][3], abs=1e-9) for row in table.rows)
    assert result.values["score"] == pytest.approx(result.values["relative_score"], abs=1e-12)
    assert result.values["max_error"] < 1e-12


def test_relativity_seeds_table_has_both_signs(results):
    result = results["rope-relativity"]
    table = next(t for t in result.tables if "seeds" in t.title)
    assert table.columns[:3] == ["m", "n", "m − n"]
    assert [row[2] for row in table.rows] == [0, 0, 0, 3, 3, 3, -3, -3, -3]
    by_offset = {}
    for m, n, offset, both, on_query, on_key, _wrong_sign in table.rows:
        assert m >= 0 and n >= 0 and m - n == offset
        assert both == on_query == on_key  # ⟨R(q,m),R(k,n)⟩ = ⟨R(q,m−n),k⟩ = ⟨q,R(k,n−m)⟩ (6 digits)
        by_offset.setdefault(offset, set()).add(both)
    assert all(len(scores) == 1 for scores in by_offset.values())  # one score per offset
    (score_plus,), (score_minus,) = by_offset[3], by_offset[-3]
    assert score_plus == pytest.approx(result.values["score"], abs=1e-5)
    assert score_plus != pytest.approx(score_minus, abs=1e-3)  # the sign of m − n matters
    # rotating the key by m − n (instead of n − m) gives the score at the opposite offset
    assert all(row[6] == by_offset[-row[2]].copy().pop() for row in table.rows)
    assert result.values["wrong_sign_score"] == pytest.approx(score_minus, abs=1e-5)
    assert len(result.checks) == 5 and result.passed  # four on q, k and the offset; one on the chosen pair


def test_relativity_at_a_large_offset():
    result = run_demo("rope-relativity", {"m": 900_000, "n": 12, "dim": 64}, device="cpu")
    assert result.passed
    assert result.tables[0].rows[0][:3] == [900_000, 12, 899_988]


def test_decay_values(results):
    values = results["rope-decay"].values
    assert values["bound_at_0"] == pytest.approx((128 / 2 + 1) / 2)  # 32.5
    assert values["is_monotone"] == 0.0
    assert values["min_bound"] <= values["bound_at_max"] < values["bound_at_0"]
    series = results["rope-decay"].series[0]
    assert series.x[0] == 0 and series.x[-1] == 250 and len(series.ys["mean |S_j|"]) == 251


def test_precision_values_match_the_known_magnitudes(results):
    values = results["rope-precision"].values
    assert values["error_100"] == pytest.approx(3.15e-6, rel=0.05)
    assert 1e-5 < values["error_4096"] < 1e-4
    assert values["error_32768"] == pytest.approx(8.47e-4, rel=0.05)
    assert values["error_131072"] == pytest.approx(3.43e-3, rel=0.05)


def test_kv_cache_values(results):
    values = results["rope-kv-cache"].values
    assert values["max_error"] < 1e-4
    assert values["restart_error"] > 0.1


def test_layouts_and_forms_values(results):
    assert results["rope-layouts"].values["max_error"] < 1e-12
    assert results["rope-layouts"].values["score_max_error"] < 1e-12
    assert results["rope-layouts"].values["unpermuted_score_error"] > 0.1
    assert results["rope-forms"].values["max_error"] < 1e-12
    assert results["rope-norm"].values["max_norm_error"] < 1e-6


def test_mrope_values(results):
    values = results["mrope-sections"].values
    assert values["n_tokens"] == 3 + 1 * 4 * 6 + 4
    assert values["next_text_position"] == 3 + max(1, 4, 6)
    assert (values["temporal_pairs"], values["height_pairs"], values["width_pairs"]) == (16, 24, 24)
    assert values["temporal_id_step"] == 1  # Qwen2-VL rule at the defaults (tokens_per_second = 0)


@pytest.mark.parametrize(
    ("fps", "step", "group_ids", "next_text"),
    [(2.0, 2, [0, 2, 4, 6], 7), (4.0, 1, [0, 1, 2, 3], 4), (1.0, 4, [0, 4, 8, 12], 13)],
)
def test_mrope_qwen25_absolute_time(fps, step, group_ids, next_text):
    params = {"text_before": 0, "grid_t": 4, "grid_h": 2, "grid_w": 2, "tokens_per_second": 2, "fps": fps}
    result = run_demo("mrope-sections", params, device="cpu")
    assert result.passed, [c.claim for c in result.checks if not c.passed]
    values = result.values
    assert values["temporal_id_step"] == step
    assert values["last_vision_t"] == group_ids[-1] and values["next_text_position"] == next_text
    token_rows = result.tables[0].rows
    assert [token_rows[4 * g][2] for g in range(4)] == group_ids  # group g starts at token 4g
    groups = result.tables[2]
    assert groups.columns == ["group", "frames", "start (s)", "t id"]
    assert [row[3] for row in groups.rows] == group_ids
    assert [row[2] for row in groups.rows] == [g * 2 / fps for g in range(4)]
    assert groups.rows[1][1] == "2–3"
    assert any("Qwen2.5-VL absolute time" in note for note in result.notes)
    assert any("floor(g · temporal_patch_size / fps · tokens_per_second)" in c.claim for c in result.checks)


def test_mrope_absolute_time_after_text_offsets_ids():
    params = {"text_before": 10, "grid_t": 3, "grid_h": 2, "grid_w": 2, "tokens_per_second": 25, "fps": 1}
    result = run_demo("mrope-sections", params, device="cpu")
    assert result.passed
    assert [row[3] for row in result.tables[2].rows] == [10, 60, 110]  # HF's interval-50 example, offset 10
    assert result.values["temporal_id_step"] == 50 and result.values["next_text_position"] == 111


def test_scaling_values(results):
    values = results["rope-scaling"].values
    assert (values["llama3_kept"], values["llama3_blended"], values["llama3_scaled"]) == (29, 6, 29)
    assert values["yarn_attention_factor"] == pytest.approx(0.1 * math.log(8) + 1)
    assert (
        (values["yarn_low"], values["yarn_high"])
        == yarn_correction_range(128, base=500000.0, original_max_position_embeddings=8192)
        == (18, 35)
    )
    assert values["dynamic_base"] == pytest.approx(500000.0 * (8 * 65536 / 8192 - 7) ** (128 / 126))
    assert values["linear_ratio"] == pytest.approx(1 / 8)
    assert values["ntk_first_ratio"] == 1.0
    assert values["ntk_last_ratio"] == pytest.approx(1 / 8, rel=1e-6)
    assert values["max_error"] < 1e-6
    titles = [s.title for s in results["rope-scaling"].series]
    assert "inv_freq per pair (log10)" in titles


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("rope-relativity", {"dim": 128, "m": 0, "n": 0, "base": 500000.0}),
        ("rope-norm", {"dim": 2, "seq_len": 1}),
        ("rope-decay", {"dim": 4, "max_distance": 1}),
        ("rope-decay", {"dim": 256, "base": 500000.0, "max_distance": 2000}),
        ("rope-layouts", {"dim": 2, "seq_len": 1}),
        ("rope-forms", {"dim": 128, "seq_len": 3}),
        ("rope-precision", {"dim": 2, "base": 2.0}),
        ("rope-kv-cache", {"dim": 2, "prefix_len": 1, "new_tokens": 1}),
        ("mrope-sections", {"text_before": 0, "grid_t": 4, "grid_h": 1, "grid_w": 1}),
        ("mrope-sections", {"grid_t": 64, "tokens_per_second": 1000.0, "fps": 0.01}),
        ("mrope-sections", {"grid_t": 8, "tokens_per_second": 0.5, "fps": 1000.0}),
        ("mrope-sections", {"grid_t": 12, "tokens_per_second": 2.0, "fps": 3.0}),
        ("rope-scaling", {"dim": 4, "factor": 1.0, "seq_len": 1}),
        (
            "rope-scaling",
            {"beta_fast": 1.0, "beta_slow": 1.0, "low_freq_factor": 1.0, "high_freq_factor": 1.01},
        ),
    ],
)
def test_demo_passes_at_edge_parameters(name, params):
    result = run_demo(name, params, device="cpu")
    assert result.passed, [c.claim for c in result.checks if not c.passed]
    assert set(get_demo(name).values) <= set(result.values)
    json.dumps(result.to_dict())


def test_listing_rope_demos_does_not_import_torch():
    code = (
        "import sys\n"
        "from posenc_ref.demos import rope_demos, scaling_demos, get_demo\n"
        "get_demo('rope-scaling').to_dict()\n"
        "assert 'torch' not in sys.modules, 'torch imported'\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
