"""A demo at any parameter inside its declared bounds passes its own checks (or refuses
the request with one clear line: the memory budget, or a rule tying two parameters together).

Every demo runs at the min and at the max of each numeric parameter (the others at their defaults), and
at every choice of a choice or bool parameter."""

from __future__ import annotations

from typing import Any

import pytest

from posenc_ref.demos import DemoError, list_demos, run_demo


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


def test_the_corners_cover_every_demo():
    assert {name for name, _ in CORNERS} == {d.name for d in list_demos() if d.params}
    assert ("rope-decay", {"dim": 8192}) in CORNERS and ("rope-kv-cache", {"prefix_len": 100_000}) in CORNERS


@pytest.mark.parametrize(("name", "params"), CORNERS, ids=[f"{n}-{p}" for n, p in CORNERS])
def test_demo_passes_its_checks_at_the_corners_of_its_bounds(name, params):
    try:
        result = run_demo(name, params, device="cpu")
    except DemoError as exc:  # a clear refusal before any work: one line, no traceback
        assert "\n" not in str(exc) and str(exc)
        return
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
