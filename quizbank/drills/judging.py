"""Grading cases: run a candidate function against posenc_ref and explain each failure.

Runs in the grader's own process (imports torch), never in the candidate's: the function a `Grader` calls
stands for the candidate's, which runs in the grading child. Each drill has a `Spec`: its reference, its cases
(with per-case tolerances), a ladder of small probe inputs, and known mistakes, each a wrong variant of the
reference with the sentence that names it. When a case fails, the output is compared with every known mistake;
a match names the mistake, and the smallest probe that fails is reported with its max error.
"""

from __future__ import annotations

import functools
import inspect
import math
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch

from .loading import exception_text

Compare = Callable[[Any, Any, "Case"], "Verdict"]


@dataclass(frozen=True)
class Verdict:
    ok: bool
    error: float = 0.0  # max error (absolute, or relative when the case uses rtol)
    detail: str = ""  # what is wrong, when not a plain value mismatch


@dataclass
class Case:
    name: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)
    atol: float = 1e-5
    rtol: float = 0.0
    dtype: torch.dtype | None = None  # the dtype the result must have; None: any
    raises: type[BaseException] | None = None  # the reference raises this: so must the candidate

    def tolerance(self) -> str:
        if self.atol == 0 and self.rtol == 0:
            return "exact"
        parts = ([f"abs {self.atol:g}"] if self.atol else []) + ([f"rel {self.rtol:g}"] if self.rtol else [])
        return " + ".join(parts)


@dataclass
class Spec:
    reference: Callable[..., Any]
    cases: Callable[[], list[Case]]
    probes: Callable[[], list[Case]] = lambda: []
    mistakes: list[tuple[str, Callable[..., Any]]] = field(default_factory=list)
    compare: Compare | None = None
    explain: Callable[[Any, Any, Case], str] | None = None  # extra words on a mismatch
    # for cases that must raise: judge the exception the candidate raised -> (passed, message)
    raised: Callable[[Exception, Case], tuple[bool, str]] | None = None


class CandidateError(Exception):
    """The candidate raised: the message names the exception and the line in the candidate's file."""


# -- inputs -------------------------------------------------------------------------------------------------
def randn(*shape: int, seed: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=gen, dtype=torch.float64).to(dtype)


def noncontiguous(*shape: int, seed: int) -> torch.Tensor:
    """A `[..., seq, dim]` float32 tensor that is a transposed view (not contiguous)."""
    *lead, seq, dim = shape
    base = randn(*lead, dim, seq, seed=seed)
    out = base.transpose(-1, -2)
    assert not out.is_contiguous()
    return out


def describe_value(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        if value.numel() <= 8 and not value.is_floating_point():
            return str(value.tolist())
        kind = str(value.dtype).replace("torch.", "")
        extra = "" if value.is_contiguous() else ", non-contiguous"
        return f"{kind} {list(value.shape)}{extra}"
    if isinstance(value, float):
        return f"{value:g}"
    return repr(value)


def describe(reference: Callable[..., Any], case: Case) -> str:
    names = list(inspect.signature(reference).parameters)
    parts = [f"{names[i] if i < len(names) else i}={describe_value(v)}" for i, v in enumerate(case.args)]
    parts += [f"{k}={describe_value(v)}" for k, v in case.kwargs.items()]
    return ", ".join(parts)


# -- comparing ---------------------------------------------------------------------------------------------
def as_tensor(value: Any) -> torch.Tensor:
    if isinstance(value, torch.Tensor):
        return value.detach()
    return torch.as_tensor(value)


def compare_tensors(out: Any, expected: Any, case: Case) -> Verdict:
    """Shape, dtype, -inf placement, then values within `case.atol + case.rtol * |expected|`."""
    try:
        got = as_tensor(out)
    except Exception:  # noqa: BLE001 - whatever the candidate returned fails as not a tensor
        return Verdict(False, math.inf, f"returned {type(out).__name__}, expected a tensor")
    want = as_tensor(expected)
    if tuple(got.shape) != tuple(want.shape):
        return Verdict(False, math.inf, f"returned shape {list(got.shape)}, expected {list(want.shape)}")
    if case.dtype is not None and got.dtype != case.dtype:
        kind = str(got.dtype).replace("torch.", "")
        return Verdict(
            False, math.inf, f"returned dtype {kind}, expected {str(case.dtype).replace('torch.', '')}"
        )
    if got.is_complex() and not want.is_complex():  # its real part alone must not pass
        kind = str(got.dtype).replace("torch.", "")
        return Verdict(False, math.inf, f"returned dtype {kind}, expected a real dtype")
    if not want.is_floating_point():
        if got.is_floating_point() or got.is_complex():
            return Verdict(False, math.inf, f"returned dtype {got.dtype}, expected integers")
        wrong = (got.long() != want.long()).sum().item()
        return Verdict(
            wrong == 0, float(wrong), "" if wrong == 0 else f"{wrong} of {want.numel()} entries differ"
        )
    if not (got.is_floating_point() or got.is_complex()):
        got = got.to(torch.float64)
    got, want = got.to(torch.float64), want.to(torch.float64)
    if torch.isnan(got).any():
        return Verdict(False, math.inf, "the result contains NaN")
    inf_got, inf_want = torch.isinf(got), torch.isinf(want)
    if not torch.equal(inf_got, inf_want) or not torch.equal(got[inf_want], want[inf_want]):
        return Verdict(
            False, math.inf, "the infinite entries (the masked positions) are not where they should be"
        )
    finite = ~inf_want
    if not finite.any():
        return Verdict(True)
    diff = (got[finite] - want[finite]).abs()
    limit = case.atol + case.rtol * want[finite].abs()
    ok = bool((diff <= limit).all())
    if case.rtol and not case.atol:
        error = float((diff / want[finite].abs().clamp_min(1e-300)).max())
    else:
        error = float(diff.max())
    return Verdict(ok, error)


def compare_sequence(out: Any, expected: Any, case: Case) -> Verdict:
    """A tuple result, element by element (`case` tolerances apply to each)."""
    if not isinstance(out, tuple | list) or len(out) != len(expected):
        return Verdict(False, math.inf, f"returned {type(out).__name__}, expected a tuple of {len(expected)}")
    worst = 0.0
    for i, (got, want) in enumerate(zip(out, expected)):
        verdict = compare_tensors(got, want, case)
        if not verdict.ok:
            detail = verdict.detail or f"element {i} differs"
            return Verdict(False, verdict.error, f"element {i}: {detail}" if verdict.detail else detail)
        worst = max(worst, verdict.error)
    return Verdict(True, worst)


# -- running the candidate --------------------------------------------------------------------------------
def clone_args(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, tuple):
        return tuple(clone_args(v) for v in value)
    if isinstance(value, dict):
        return {k: clone_args(v) for k, v in value.items()}
    return value


def _fresh_args(case: Case) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Copies of the inputs; a non-contiguous tensor stays a non-contiguous view of a copy."""

    def copy(v: Any) -> Any:
        if isinstance(v, torch.Tensor) and not v.is_contiguous() and v.dim() >= 2:
            return v.transpose(-1, -2).clone().transpose(-1, -2)
        return clone_args(v)

    return tuple(copy(a) for a in case.args), {k: copy(v) for k, v in case.kwargs.items()}


def where_raised(exc: BaseException, candidate_path: str) -> str:
    line = getattr(exc, "candidate_line", None)  # raised in the grading child: it sent the line
    if line is not None:
        return f" (line {line} of your file)" if line else ""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == candidate_path]
    return f" (line {frames[-1].lineno} of your file)" if frames else ""


def call_candidate(fn: Callable[..., Any], case: Case, candidate_path: str) -> tuple[Any, tuple[Any, ...]]:
    """The candidate's result and the inputs it was given (to check they were not modified)."""
    args, kwargs = _fresh_args(case)
    try:
        out = fn(*args, **kwargs)
    except Exception as exc:
        raise CandidateError(f"raised {exception_text(exc)}{where_raised(exc, candidate_path)}") from exc
    return out, args + tuple(kwargs.values())


def modified_inputs(reference: Callable[..., Any], case: Case, given: tuple[Any, ...]) -> list[str]:
    params = list(inspect.signature(reference).parameters)
    names = [params[i] if i < len(params) else str(i) for i in range(len(case.args))] + list(case.kwargs)
    originals = case.args + tuple(case.kwargs.values())
    out = []
    for name, before, after in zip(names, originals, given):
        if isinstance(before, torch.Tensor) and not torch.equal(before, after):
            out.append(str(name))
    return out


@dataclass
class Grader:
    """Grades one candidate function against one spec, yielding `(case name, passed, message, ms)`."""

    spec: Spec
    fn: Callable[..., Any]
    candidate_path: str
    _smallest: str | None = None
    diagnoses: dict[str, str] = field(default_factory=dict)  # case name -> the known mistake it matched

    def _compare(self, out: Any, expected: Any, case: Case) -> Verdict:
        return (self.spec.compare or compare_tensors)(out, expected, case)

    def _expected(self, case: Case) -> Any:
        return self.spec.reference(*case.args, **case.kwargs)

    def _mistake(self, out: Any, case: Case) -> str:
        """The known mistake whose output equals the candidate's, or ''."""
        loose = Case(
            case.name, case.args, case.kwargs, max(case.atol, 1e-4), case.rtol and max(case.rtol, 1e-4)
        )
        for message, variant in self.spec.mistakes:
            try:
                wrong = variant(*case.args, **case.kwargs)
            except Exception:  # noqa: BLE001 - a wrong variant that raises diagnoses nothing
                continue
            try:
                if self._compare(out, wrong, loose).ok:
                    return message
            except Exception:  # noqa: BLE001 - a wrong variant that cannot be compared diagnoses nothing
                continue
        return ""

    def _smallest_failing(self) -> str:
        if self._smallest is not None:
            return self._smallest
        self._smallest = ""
        for probe in self.spec.probes():
            try:
                out, _ = call_candidate(self.fn, probe, self.candidate_path)
                verdict = self._compare(out, self._expected(probe), probe)
            except CandidateError as exc:
                self._smallest = f"Smallest failing input: {describe(self.spec.reference, probe)}: {exc}."
                break
            if not verdict.ok:
                error = "" if math.isinf(verdict.error) else f" (max error {verdict.error:.3g})"
                self._smallest = f"Smallest failing input: {describe(self.spec.reference, probe)}{error}."
                break
        return self._smallest

    def grade(self, case: Case) -> tuple[bool, str]:
        if case.raises is not None:
            return self._grade_raises(case)
        expected = self._expected(case)
        try:
            out, given = call_candidate(self.fn, case, self.candidate_path)
        except CandidateError as exc:
            return False, f"{exc}."
        changed = modified_inputs(self.spec.reference, case, given)
        if changed:
            return False, (
                f"modified its input ({', '.join(changed)}) in place; return a new tensor and leave the "
                "inputs untouched (callers reuse q and k)."
            )
        verdict = self._compare(out, expected, case)
        if verdict.ok:
            error = "" if verdict.error == 0 else f"max error {verdict.error:.2g}, "
            return True, f"{error}tolerance {case.tolerance()}."
        parts = [verdict.detail or "wrong values"]
        if not math.isinf(verdict.error) and not verdict.detail:
            parts[0] += f": max error {verdict.error:.3g} > tolerance {case.tolerance()}"
        mistake = self._mistake(out, case)
        if mistake:
            self.diagnoses[case.name] = mistake
            parts.append(f"Likely mistake: {mistake}")
        if self.spec.explain is not None:
            extra = self.spec.explain(out, expected, case)
            if extra:
                parts.append(extra)
        smallest = self._smallest_failing()
        if smallest:
            parts.append(smallest)
        return False, ". ".join(p.rstrip(".") for p in parts) + "."

    def _grade_raises(self, case: Case) -> tuple[bool, str]:
        assert case.raises is not None
        args, kwargs = _fresh_args(case)
        try:
            out = self.fn(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - the candidate's code may raise anything: a finding
            if self.spec.raised is not None:
                return self.spec.raised(exc, case)
            if isinstance(exc, case.raises):
                return True, f"raised {type(exc).__name__} as required."
            return False, f"raised {exception_text(exc)}; expected {case.raises.__name__}."
        message = f"returned a result instead of raising {case.raises.__name__} for {describe(self.spec.reference, case)}"
        mistake = self._mistake(out, case)
        if mistake:
            self.diagnoses[case.name] = mistake
        return False, f"{message}. Likely mistake: {mistake}." if mistake else f"{message}."

    def run(self) -> Iterator[tuple[str, Callable[[], tuple[bool, str]]]]:
        for case in self.spec.cases():
            yield case.name, functools.partial(self.grade, case)


def timed(step: Callable[[], tuple[bool, str]]) -> tuple[bool, str, float]:
    start = time.perf_counter()
    passed, message = step()
    return passed, message, (time.perf_counter() - start) * 1000.0
