"""Recompute the bank's numbers: run each check's demo and compare one number with `expect`.

A check names a demo, its params, a `path` into the demo's result (as `DemoResult.to_dict()`
gives it) and the expected value with a tolerance::

    checks:
      - demo: alibi-slopes
        params: {n_heads: 8}
        path: values.first_slope      # or just: first_slope
        expect: 0.5
        tolerance: 1.0e-9

Path grammar: dot-separated names, each optionally followed by `[index]` (negative counts from
the end): `values.max_error`, `max_error` (a bare name means `values.NAME`),
`tables[0].rows[2][1]`, `checks[1].max_abs_error`, `series[0].ys.slope[3]`.

Parsing a path never imports torch; running checks does (the demos do, inside their run functions).
Identical (demo, resolved params) runs are cached, since many checks read one run.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields
from typing import Any

from posenc_ref.demos.base import DemoResult

from .problems import Location, Problem

# The top-level keys of DemoResult.to_dict(): where a check path may start.
RESULT_FIELDS = tuple(f.name for f in fields(DemoResult))
_SEGMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_\-]*)((?:\[-?[0-9]+\])*)")
_INDEX = re.compile(r"\[(-?[0-9]+)\]")


class CheckPathError(ValueError):
    """A check path that is malformed or does not lead to a value."""


def parse_path(path: str) -> list[str | int]:
    """`"tables[0].rows[2][1]"` -> `["tables", 0, "rows", 2, 1]`; a bare name -> `["values", name]`."""
    text = path.strip() if isinstance(path, str) else ""
    if not text:
        raise CheckPathError("check path is empty; write e.g. values.max_error or tables[0].rows[2][1]")
    steps: list[str | int] = []
    for part in text.split("."):
        match = _SEGMENT.fullmatch(part)
        if match is None:
            raise CheckPathError(
                f"bad check path {path!r}: {part!r} is not a name or name[index] "
                "(write e.g. values.max_error or tables[0].rows[2][1])"
            )
        steps.append(match.group(1))
        steps.extend(int(i) for i in _INDEX.findall(match.group(2)))
    if steps[0] not in RESULT_FIELDS:
        if len(steps) == 1:
            return ["values", steps[0]]
        raise CheckPathError(
            f"bad check path {path!r}: it must start with one of {', '.join(RESULT_FIELDS)}, "
            "or be a bare value name"
        )
    return steps


def value_name(path: str) -> str | None:
    """The declared value a path reads (`values.X` or bare `X`), or None for other paths."""
    steps = parse_path(path)
    if steps[0] == "values":
        if len(steps) != 2 or not isinstance(steps[1], str):
            raise CheckPathError(f"bad check path {path!r}: a value path is values.NAME")
        return steps[1]
    return None


def _where(steps: list[str | int]) -> str:
    out = ""
    for step in steps:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else step)
    return out or "the result"


def resolve_path(result: Any, path: str) -> Any:
    """Follow `path` into a demo result (a DemoResult or its `to_dict()`); raise CheckPathError."""
    node = result.to_dict() if hasattr(result, "to_dict") else result
    steps = parse_path(path)
    for i, step in enumerate(steps):
        here = _where(steps[:i])
        if isinstance(step, int):
            if not isinstance(node, list):
                raise CheckPathError(f"{here} is not a list, so it has no item [{step}] (path {path!r})")
            if not -len(node) <= step < len(node):
                raise CheckPathError(f"{here} has {len(node)} item(s), so no [{step}] (path {path!r})")
            node = node[step]
        else:
            if not isinstance(node, dict):
                raise CheckPathError(f"{here} is not a mapping, so it has no {step!r} (path {path!r})")
            if step not in node:
                keys = ", ".join(str(k) for k in node) or "nothing"
                raise CheckPathError(f"{here} has no {step!r} (it has: {keys}) (path {path!r})")
            node = node[step]
    return node


def as_number(value: Any) -> float | None:
    """A result value as a float: numbers, booleans (1/0), and the strings 'inf', '-inf', 'nan'."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and value in ("inf", "-inf", "nan"):
        return float(value)
    return None


def matches(actual: float, expect: float, tolerance: float) -> bool:
    if math.isnan(actual) or math.isnan(expect):
        return False
    if actual == expect:  # also equal infinities
        return True
    return abs(actual - expect) <= tolerance


@dataclass
class CheckReport:
    problems: list[Problem] = field(default_factory=list)
    checks_run: int = 0
    checks_passed: int = 0
    demos_verified: int = 0
    runs: int = 0  # distinct demo runs (after caching)
    seconds: float = 0.0


Runner = Callable[[str, dict[str, Any]], Any]


def default_runner(device: str) -> Runner:
    threads_set = False

    def run(name: str, params: dict[str, Any]) -> Any:
        nonlocal threads_set
        from posenc_ref.demos import run_demo

        if not threads_set and device == "cpu":
            # Bank checks run hundreds of tiny demos; torch's intra-op thread pool only adds
            # contention on them (0.8 s vs 0.02 s per kv-cache-memory run on a busy 2-core machine).
            import torch

            torch.set_num_threads(1)
            threads_set = True
        return run_demo(name, params, device=device)

    return run


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


class RunCache:
    """Demo results by (name, resolved params); one cache can serve several `check_report` calls."""

    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self.results: dict[
            tuple[str, tuple[tuple[str, Any], ...]], tuple[dict[str, Any] | None, str | None]
        ] = {}

    def get(self, name: str, params: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
        """(result dict, None) or (None, error message)."""
        from posenc_ref.demos import DemoError, get_demo

        try:
            resolved = get_demo(name).resolve_params(params)
        except DemoError as exc:
            return None, _one_line(str(exc))
        key = (name, tuple(sorted(resolved.items())))
        if key not in self.results:
            try:
                result = self.runner(name, resolved)
                data = result.to_dict() if hasattr(result, "to_dict") else result
                self.results[key] = (data, None)
            except DemoError as exc:
                self.results[key] = (None, f"demo {name!r} cannot run: {_one_line(str(exc))}")
            except Exception as exc:  # noqa: BLE001 - a broken demo is a finding, not a crash of the validator
                self.results[key] = (
                    None,
                    f"demo {name!r} failed: {type(exc).__name__}: {_one_line(str(exc))}",
                )
        return self.results[key]


def _fmt(x: float) -> str:
    return f"{x:.10g}"


def _params_text(params: dict[str, Any]) -> str:
    return "{" + ", ".join(f"{k}: {v}" for k, v in params.items()) + "}" if params else ""


def check_report(
    source: Any,
    *,
    device: str = "cpu",
    runner: Runner | None = None,
    origins: dict[str, Location] | None = None,
    only: Iterable[str] | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    cache: RunCache | None = None,
) -> CheckReport:
    """Run every question's demo and checks. `source` is a BankSet or an iterable of questions;
    `only` limits the run to those question ids; `cache` shares demo runs between calls
    (`runner` and `device` are then the cache's)."""
    start = time.perf_counter()
    if hasattr(source, "questions") and isinstance(source.questions, dict):
        questions = list(source.questions.values())
        question_origin: dict[str, Location] = dict(source.origin)
        check_origin: dict[tuple[str, int], Location] = dict(getattr(source, "check_origin", {}))
        demo_origin: dict[str, Location] = dict(getattr(source, "demo_origin", {}))
    else:
        questions = list(source if isinstance(source, Iterable) else [source])
        question_origin = dict(origins or {})
        check_origin, demo_origin = {}, {}
    if only is not None:
        wanted = set(only)
        questions = [q for q in questions if q.id in wanted]
    if cache is None:
        cache = RunCache(runner or default_runner(device))
    runs_before = len(cache.results)
    report = CheckReport()

    def where(qid: str, specific: Location | None) -> Location:
        return specific or question_origin.get(qid) or Location(f"question {qid}")

    total = len(questions)
    for done, question in enumerate(questions, start=1):
        qid = question.id
        if question.demo is not None:
            at = where(qid, demo_origin.get(qid))
            data, error = cache.get(question.demo.name, dict(question.demo.params))
            if error is not None:
                report.problems.append(Problem.at(at, error))
            else:
                report.demos_verified += 1
                for check in (data or {}).get("checks", []):
                    if not check.get("passed", False):
                        report.problems.append(
                            Problem.at(
                                at,
                                f"demo {question.demo.name!r} fails its own check "
                                f"{_one_line(check.get('claim', ''))!r}: max error "
                                f"{check.get('max_abs_error')} > tolerance {check.get('tolerance')}",
                            )
                        )
        for i, check in enumerate(question.checks):
            at = where(qid, check_origin.get((qid, i)))
            report.checks_run += 1
            data, error = cache.get(check.demo, dict(check.params))
            if error is not None:
                report.problems.append(Problem.at(at, f"check {i + 1} of {qid!r}: {error}"))
                continue
            try:
                raw = resolve_path(data, check.path)
            except CheckPathError as exc:
                report.problems.append(Problem.at(at, f"check {i + 1} of {qid!r}: {exc}"))
                continue
            actual = as_number(raw)
            if actual is None:
                report.problems.append(
                    Problem.at(at, f"check {i + 1} of {qid!r}: {check.path} is {raw!r}, not a number")
                )
                continue
            if matches(actual, check.expect, check.tolerance):
                report.checks_passed += 1
                continue
            off = abs(actual - check.expect) if math.isfinite(actual - check.expect) else float("inf")
            report.problems.append(
                Problem.at(
                    at,
                    f"check {i + 1} of {qid!r} failed: {check.demo} {_params_text(dict(check.params))} "
                    f"gives {check.path} = {_fmt(actual)}, expected {_fmt(check.expect)} "
                    f"± {check.tolerance:g} (off by {off:.3g})".replace("  ", " "),
                )
            )
        if on_progress is not None:
            on_progress(done, total)
    report.runs = len(cache.results) - runs_before
    report.seconds = time.perf_counter() - start
    return report


def run_checks(
    source: Any,
    *,
    device: str = "cpu",
    runner: Runner | None = None,
    origins: dict[str, Location] | None = None,
) -> list[Problem]:
    """Problems from running every demo and check (see `check_report` for the counts too)."""
    return check_report(source, device=device, runner=runner, origins=origins).problems
