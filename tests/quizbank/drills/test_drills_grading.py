"""Grading the drills: model solutions pass, known mistakes fail with the message that names them.

Wrong solutions are graded in-process with the same `Grader` the child runs (no interpreter start per
variant); the model solutions of the ten fixed drills are also graded end to end in isolated children.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from quizbank.drills import DRILL_NAMES, FIXED_DRILL_NAMES, get_drill, grade_source
from quizbank.drills.judging import Grader
from quizbank.drills.loading import load_function
from quizbank.drills.specs import spec_for

FIXED = (
    "sinusoidal-pe",
    "rope-half",
    "rope-interleaved",
    "alibi-slopes",
    "alibi-bias",
    "t5-bucket",
    "rope-attention-gqa",
    "ntk-inv-freq",
    "yarn-inv-freq",
    "llama3-inv-freq",
)


def grade_in_process(name: str, source: str, folder: Path) -> list[tuple[str, bool, str]]:
    path = folder / f"{name.replace('-', '_')}_{abs(hash(source))}.py"
    path.write_text(source, encoding="utf-8")
    fn, problem = load_function(str(path), get_drill(name).function)
    assert fn is not None, problem
    grader = Grader(spec_for(name), fn, str(path))
    return [(case, *step()) for case, step in grader.run()]


def variant(name: str, *edits: tuple[str, str]) -> str:
    """The model solution with each (old, new) edit applied; every `old` must be there."""
    source = get_drill(name).solution
    for old, new in edits:
        assert old in source, f"{name}: {old!r} not in the model solution"
        source = source.replace(old, new)
    return source


# (drill, what the mistake is, the wrong source, a phrase the failure message must contain)
WRONG: list[tuple[str, str, str, str]] = [
    (
        "sinusoidal-pe",
        "concatenated layout",
        variant(
            "sinusoidal-pe",
            ("pe[:, 0::2] = torch.sin(angles)", "pe[:, : dim // 2] = torch.sin(angles)"),
            ("pe[:, 1::2] = torch.cos(angles)", "pe[:, dim // 2 :] = torch.cos(angles)"),
        ),
        "layout is concatenated",
    ),
    (
        "sinusoidal-pe",
        "exponent i/dim",
        variant("sinusoidal-pe", ("dtype=torch.float64) / dim)", "dtype=torch.float64) / (2 * dim))")),
        "frequency exponent is wrong",
    ),
    (
        "sinusoidal-pe",
        "sin and cos swapped",
        variant("sinusoidal-pe", ("pe[:, 0::2] = torch.sin", "pe[:, 0::2] = torch.cos"), ("pe[:, 1::2] = torch.cos", "pe[:, 1::2] = torch.sin")),
        "sin and cos are swapped",
    ),
    ("rope-half", "interleaved pairing", get_drill("rope-interleaved").solution, "GPT-J/Meta interleaved"),
    (
        "rope-half",
        "flipped rotation",
        variant("rope-half", ("torch.cat((-x2, x1), dim=-1)", "torch.cat((x2, -x1), dim=-1)")),
        "wrong way (clockwise)",
    ),
    (
        "rope-half",
        "positions ignored",
        variant("rope-half", ("torch.as_tensor(positions, dtype=torch.float64)", "torch.arange(x.shape[-2], dtype=torch.float64)")),
        "positions argument is ignored",
    ),
    (
        "rope-half",
        "in-place modification",
        variant("rope-half", ("    return x * cos + rotated * sin", "    x.mul_(cos).add_(rotated * sin)\n    return x")),
        "in place",
    ),
    ("rope-interleaved", "half pairing", get_drill("rope-half").solution, "HF/NeoX half layout"),
    (
        "rope-interleaved",
        "positions off by one",
        variant("rope-interleaved", ("torch.as_tensor(positions, dtype=torch.float64)", "(torch.as_tensor(positions, dtype=torch.float64) + 1)")),
        "off by one",
    ),
    (
        "alibi-slopes",
        "power-of-two formula for every head count",
        variant("alibi-slopes", ("    c = 2 ** math.floor(math.log2(n_heads))", "    c = n_heads")),
        "power-of-two formula",
    ),
    (
        "alibi-slopes",
        "contiguous extra slopes",
        variant("alibi-slopes", ("power_of_two(2 * c)[0::2]", "power_of_two(2 * c)")),
        "every other one",
    ),
    (
        "alibi-bias",
        "mask 0 instead of -inf",
        variant("alibi-bias", ('bias.masked_fill(distance < 0, float("-inf"))', "bias.masked_fill(distance < 0, 0.0)")),
        "0 instead of -inf",
    ),
    (
        "alibi-bias",
        "no mask",
        variant("alibi-bias", ('bias.masked_fill(distance < 0, float("-inf"))', "-slopes[:, None, None] * distance.abs().float()")),
        "no causal mask",
    ),
    (
        "alibi-bias",
        "finite mask value",
        variant("alibi-bias", ('float("-inf")', "torch.finfo(torch.float32).min")),
        "large finite negatives",
    ),
    (
        "t5-bucket",
        "no clamp",
        variant("t5-bucket", ("    large = torch.minimum(large, torch.full_like(large, num_buckets - 1))\n", "")),
        "not clamped",
    ),
    (
        "t5-bucket",
        "sign flipped",
        variant("t5-bucket", ("rp = torch.as_tensor(relative_position).long()", "rp = -torch.as_tensor(relative_position).long()")),
        "sign convention is flipped",
    ),
    (
        "t5-bucket",
        "decoder keeps later keys",
        variant("t5-bucket", ("rp = -torch.minimum(rp, torch.zeros_like(rp))", "rp = rp.abs()")),
        "bucket 0",
    ),
    (
        "rope-attention-gqa",
        "tiled KV heads",
        variant(
            "rope-attention-gqa",
            ("k = k.repeat_interleave(hq // hkv, dim=1)", "k = k.repeat(1, hq // hkv, 1, 1)"),
            ("v = v.repeat_interleave(hq // hkv, dim=1)", "v = v.repeat(1, hq // hkv, 1, 1)"),
        ),
        "tiled (repeat) instead of grouped",
    ),
    (
        "rope-attention-gqa",
        "RoPE on V",
        variant("rope-attention-gqa", ("q, k = _rope(q, positions, base), _rope(k, positions, base)", "q, k, v = (_rope(t, positions, base) for t in (q, k, v))")),
        "applied to V",
    ),
    (
        "rope-attention-gqa",
        "no causal mask",
        variant("rope-attention-gqa", ('scores = scores.masked_fill(future, float("-inf"))', "pass")),
        "causal mask is missing",
    ),
    (
        "ntk-inv-freq",
        "no exponent",
        variant("ntk-inv-freq", ("factor ** (dim / (dim - 2))", "factor")),
        "without the exponent",
    ),
    (
        "ntk-inv-freq",
        "linear interpolation",
        variant("ntk-inv-freq", ("new_base = base * factor ** (dim / (dim - 2))", "new_base = base"), ("    return 1.0 /", "    return 1.0 / factor /")),
        "linear interpolation",
    ),
    (
        "yarn-inv-freq",
        "no temperature",
        variant("yarn-inv-freq", ("attention_factor = 0.1 * math.log(factor) + 1.0 if factor > 1 else 1.0", "attention_factor = 1.0")),
        "temperature) is missing",
    ),
    (
        "yarn-inv-freq",
        "inverted ramp",
        variant("yarn-inv-freq", ("inv_freq = theta * (1 - ramp) + theta / factor * ramp", "inv_freq = theta * ramp + theta / factor * (1 - ramp)")),
        "ramp is inverted",
    ),
    (
        "yarn-inv-freq",
        "no floor/ceil",
        variant("yarn-inv-freq", ("max(math.floor(correction_dim(beta_fast)), 0)", "max(correction_dim(beta_fast), 0)"), ("min(math.ceil(correction_dim(beta_slow)), dim - 1)", "min(correction_dim(beta_slow), dim - 1)")),
        "not floored/ceiled",
    ),
    (
        "llama3-inv-freq",
        "smooth band missing",
        variant("llama3-inv-freq", ("blended = (1 - smooth) * theta / factor + smooth * theta", "blended = theta")),
        "smooth band is missing",
    ),
    (
        "llama3-inv-freq",
        "blend inverted",
        variant("llama3-inv-freq", ("blended = (1 - smooth) * theta / factor + smooth * theta", "blended = smooth * theta / factor + (1 - smooth) * theta")),
        "blend is inverted",
    ),
]  # fmt: skip


def test_every_fixed_drill_has_two_kinds_of_wrong_solution() -> None:
    assert set(FIXED_DRILL_NAMES) == set(FIXED)
    for name in FIXED:
        kinds = {kind for drill, kind, _, _ in WRONG if drill == name}
        assert len(kinds) >= 2, name


@pytest.mark.parametrize(("name", "kind", "source", "phrase"), WRONG, ids=[f"{w[0]}:{w[1]}" for w in WRONG])
def test_wrong_solution_fails_naming_the_mistake(
    tmp_path: Path, name: str, kind: str, source: str, phrase: str
) -> None:
    results = grade_in_process(name, source, tmp_path)
    failed = [(case, message) for case, passed, message in results if not passed]
    assert failed, f"{kind}: every case passed"
    assert any(phrase in message for _, message in failed), failed[0][1]
    if phrase != "in place":  # value mistakes also show the smallest failing input and the error
        with_error = [m for _, m in failed if phrase in m]
        assert any("max error" in m or "Smallest failing input" in m or "expected" in m for m in with_error)


@pytest.mark.parametrize("name", DRILL_NAMES)
def test_model_solution_passes_in_process(tmp_path: Path, name: str) -> None:
    results = grade_in_process(name, get_drill(name).solution, tmp_path)
    assert results and all(passed for _, passed, _ in results), [r for r in results if not r[1]]
    # the tolerance is stated on every passing case
    assert all("tolerance" in message or "raised ValueError" in message for _, _, message in results)


@pytest.mark.parametrize("name", DRILL_NAMES)
def test_starter_fails_with_not_implemented(tmp_path: Path, name: str) -> None:
    results = grade_in_process(name, get_drill(name).starter, tmp_path)
    assert results and not any(passed for _, passed, _ in results)
    assert "NotImplementedError" in results[0][2]


@pytest.mark.parametrize("name", ["ntk-inv-freq", "alibi-slopes", "llama3-inv-freq"])
def test_a_complex_result_with_the_right_real_part_fails(tmp_path: Path, name: str) -> None:
    """The real part alone used to be compared: `+ 1j` passed. A real reference wants a real dtype."""
    function = get_drill(name).function
    source = (
        get_drill(name).solution
        + f"\n_real = {function}\n\n\ndef {function}(*args, **kwargs):\n"
        + "    return _real(*args, **kwargs).to(torch.complex128) + 1j\n"
    )
    results = grade_in_process(name, source, tmp_path)
    failed = [(case, message) for case, passed, message in results if not passed]
    assert len(failed) == len(results), results  # every case
    assert all("returned dtype complex128, expected " in m for _, m in failed), failed


def test_rope_failure_names_the_smallest_input(tmp_path: Path) -> None:
    results = grade_in_process("rope-half", get_drill("rope-interleaved").solution, tmp_path)
    message = next(m for _, passed, m in results if not passed)
    # dim 2 cannot tell the pairings apart, so the smallest failing input has dim 4
    assert "Smallest failing input: x=float32 [2, 4], positions=[0, 1]" in message
    assert "max error" in message and "> tolerance abs 0.0001" in message
    assert dict((c, p) for c, p, _ in results)["dim 2 (a single pair)"] is True


def test_t5_failure_names_the_relative_position(tmp_path: Path) -> None:
    source = variant(
        "t5-bucket", ("    large = torch.minimum(large, torch.full_like(large, num_buckets - 1))\n", "")
    )
    results = dict((c, m) for c, _, m in grade_in_process("t5-bucket", source, tmp_path))
    message = results["very far: ±10000"]
    assert (
        "For relative_position -10000 (key − query) you return bucket" in message and "expected 15" in message
    )


def test_learned_pe_checks_the_error(tmp_path: Path) -> None:
    wraps = variant("learned-pe", ("(positions < 0) | (positions >= max_len)", "positions >= max_len"))
    results = dict((c, (p, m)) for c, p, m in grade_in_process("learned-pe", wraps, tmp_path))
    passed, message = results["negative position is refused"]
    assert not passed and "wrap around" in message
    vague = variant(
        "learned-pe",
        (
            'f"position {int(bad[0])} is outside the learned table (max_len={max_len}): "\n                f"valid positions are 0..{max_len - 1}"',
            '"bad position"',
        ),
    )
    results = dict((c, (p, m)) for c, p, m in grade_in_process("learned-pe", vague, tmp_path))
    passed, message = results["position 5000 is refused"]
    assert not passed and "should name max_len 10 and position 5000" in message


# One drill per kind of result: a float tensor, -inf entries, integer ids, a (tensor, float) tuple. Every model
# solution passes in-process above; these also travel through the isolated child and its result pipe.
END_TO_END = ("rope-attention-gqa", "alibi-bias", "t5-bucket", "yarn-inv-freq")


@pytest.mark.slow
def test_model_solutions_pass_in_isolated_children() -> None:
    with ThreadPoolExecutor(max_workers=2) as pool:
        reports = list(pool.map(lambda n: grade_source(n, get_drill(n).solution), END_TO_END))
    for name, report in zip(END_TO_END, reports):
        assert report.drill == name
        assert report.passed, [(c.name, c.message) for c in report.cases if not c.passed]
        assert report.cases_passed == len(report.cases) >= 5
        assert report.elapsed_ms > 0
        data = report.to_json()
        assert set(data) == {"drill", "passed", "cases", "elapsed_ms"}
        assert all(set(c) == {"name", "passed", "message"} for c in data["cases"])
