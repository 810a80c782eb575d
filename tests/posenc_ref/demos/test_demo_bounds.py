"""A demo at any parameter inside its declared bounds passes its own checks, or refuses the request with
one clear line: the memory budget, or a rule tying two parameters together. Which corners are refused, and
why, is pinned in REFUSED: a corner newly refused, or no longer refused, fails until the table says so.

Every demo runs at the min and at the max of each numeric parameter (the others at their defaults), and
at every choice of a choice or bool parameter."""

from __future__ import annotations

from typing import Any

import pytest

from posenc_ref.demos import DemoError, list_demos, run_demo

# every corner of every bound (264 runs): `make test`; `make check` runs each demo at its defaults (test_demos)
pytestmark = pytest.mark.slow


def _corners() -> list[tuple[str, dict[str, Any]]]:
    cases: list[tuple[str, dict[str, Any]]] = []
    for demo in list_demos():
        for param in demo.params:
            values: list[Any] = []
            if param.choices:
                values = list(param.choices)
            elif param.type == "bool":
                values = [False, True]
            elif param.type in ("int", "float"):
                for bound in (param.min, param.max):
                    if bound is None:
                        continue
                    value: Any = int(bound) if param.type == "int" else float(bound)
                    if param.even and value % 2:
                        value += 1 if bound == param.min else -1
                    values.append(value)
            cases.extend((demo.name, {param.name: value}) for value in values)
    return cases


CORNERS = _corners()


BUDGET = "over the 512 MiB budget (set POSENC_MEMORY_BUDGET_MIB to raise it)"
# (demo, parameter, value at the corner) -> what the refusal says. Every other corner runs and passes.
REFUSED: dict[tuple[str, str, Any], str] = {
    ("alibi-bias", "seq_len", 16384): BUDGET,
    ("attention-expansion", "seq_len", 4096): BUDGET,
    ("deberta-terms", "seq_len", 2048): BUDGET,
    ("integer-binary-pe", "seq_len", 1_000_000): BUDGET,
    ("rope-forms", "dim", 8192): BUDGET,
    ("rope-kv-cache", "new_tokens", 4096): BUDGET,
    ("rope-norm", "seq_len", 1_000_000): BUDGET,
    ("rope-relativity", "dim", 8192): BUDGET,
    ("shaw-relative", "seq_len", 4096): BUDGET,
    ("sinusoidal-dot", "seq_len", 100_000): BUDGET,
    ("sinusoidal-linearity", "dim", 4096): BUDGET,
    ("xlnet-terms", "seq_len", 2048): BUDGET,
    ("kv-cache-memory", "n_heads", 1): "must satisfy n_kv_heads ≤ n_heads, got n_kv_heads=8 and n_heads=1",
    ("kv-cache-memory", "n_kv_heads", 256): "must satisfy n_kv_heads ≤ n_heads, got n_kv_heads=256",
    ("rope-kernel-traffic", "n_heads", 1): "n_kv_heads ≤ n_heads, got n_kv_heads=8 and n_heads=1",
    ("rope-kernel-traffic", "n_kv_heads", 256): "must satisfy n_kv_heads ≤ n_heads, got n_kv_heads=256",
    ("deberta-buckets", "buckets", 4096): "must satisfy buckets < max_position, got buckets=4096",
    ("deberta-buckets", "max_position", 4): "got buckets=256 and max_position=4",
    ("learned-extrapolation", "max_len", 2): "train_len (8) must be <= max_len (2)",
    ("learned-extrapolation", "train_len", 100_000): "train_len (100000) must be <= max_len (16)",
    ("rope-relativity", "pair", 4095): "'pair' must be below dim/2 = 4, got 4095",
    ("rope-scaling", "beta_fast", 0.0): "must satisfy beta_fast ≥ beta_slow, got beta_fast=0 and beta_slow=1",
    ("rope-scaling", "beta_slow", 1_000_000.0): "must satisfy beta_fast ≥ beta_slow",
    ("rope-scaling", "low_freq_factor", 1_000_000.0): "must satisfy low_freq_factor < high_freq_factor",
    ("rope-scaling", "high_freq_factor", 0.01): "must satisfy low_freq_factor < high_freq_factor",
    ("rope-scaling", "pair", 4095): "'pair' must be below dim/2 = 64, got 4095",
    ("sinusoidal-wavelengths", "pair", 32767): "'pair' must be below dim/2 = 256, got 32767",
    ("t5-buckets", "num_buckets", 2): "leaves no exact bucket per direction (need num_buckets >= 4)",
    ("t5-buckets", "num_buckets", 1024): "max_distance (128) must exceed the 256 exact buckets per direction",
    ("t5-buckets", "max_distance", 2): "max_distance (2) must exceed the 8 exact buckets per direction",
}


def _key(name: str, params: dict[str, Any]) -> tuple[str, str, Any]:
    ((param, value),) = params.items()
    return name, param, value


def test_the_corners_cover_every_demo():
    assert {name for name, _ in CORNERS} == {d.name for d in list_demos() if d.params}
    assert ("rope-decay", {"dim": 8192}) in CORNERS and ("rope-kv-cache", {"prefix_len": 100_000}) in CORNERS
    assert set(REFUSED) <= {_key(name, params) for name, params in CORNERS}  # the table names real corners


@pytest.mark.parametrize(("name", "params"), CORNERS, ids=[f"{n}-{p}" for n, p in CORNERS])
def test_demo_passes_its_checks_at_the_corners_of_its_bounds(name, params, monkeypatch):
    monkeypatch.delenv("POSENC_MEMORY_BUDGET_MIB", raising=False)  # the default budget, as REFUSED says
    key = _key(name, params)
    try:
        result = run_demo(name, params, device="cpu")
    except DemoError as exc:  # a clear refusal before any work: one line, no traceback
        assert "\n" not in str(exc)
        assert key in REFUSED, f"{key} is refused, and REFUSED does not say so: {exc}"
        assert REFUSED[key] in str(exc)
        return
    assert key not in REFUSED, f"{key} ran: it is no longer refused ({REFUSED[key]!r})"
    failed = [c.claim for c in result.checks if not c.passed]
    assert not failed, (name, params, failed, result.notes)


@pytest.mark.parametrize(
    ("name", "params", "note"),
    [
        ("rope-decay", {"dim": 8192, "max_distance": 250}, "oscillation check is skipped"),
        pytest.param("rope-decay", {"dim": 8192, "max_distance": 20_000}, None, marks=pytest.mark.slow),
        ("rope-kv-cache", {"prefix_len": 100_000}, None),
    ],
)
def test_the_two_reported_cases(name, params, note):
    result = run_demo(name, params, device="cpu")
    assert result.passed, [c for c in result.checks if not c.passed]
    if note is None:
        claims = " ".join(c.claim for c in result.checks)
        assert "oscillates" in claims or "restarting positions" in claims  # the check ran, and passed
    else:
        assert any(note in n for n in result.notes)
