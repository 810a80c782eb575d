"""Whether a question's references resolve: its `demo:` (name, parameters, memory budget), each check's
demo and result path (`values.NAME` or a table path), and its `drill:` link. Against the demo registry's
declared specs and the drill catalogue: pure Python, no torch.

Findings are (path inside the question's mapping, mark the key?, message), as in `validate`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from pydantic import ValidationError

from posenc_ref.demos import DemoError, check_memory, get_demo, list_demos, memory_budget_bytes

from . import schema
from .checks import CheckPathError, value_name
from .validate import Finding, Loc, did_you_mean


# -- demo references ---------------------------------------------------------------------------------------------
def demo_findings(question: Any, demo_lookup: Callable[[str], Any] | None = None) -> list[Finding]:
    """Problems with a validated question's `demo:` and `checks:` against the demo registry (no torch).

    Paths are relative to the question's mapping. Also checks the question's `drill:` link.
    """
    return drill_findings(question.drill) + demo_ref_findings(
        question.demo, list(enumerate(question.checks)), demo_lookup
    )


def raw_demo_findings(raw_question: Any) -> list[Finding]:
    """Like `demo_findings` for a question that failed validation: its `demo:` and each check
    that is valid on its own are still checked against the registry."""
    if not isinstance(raw_question, dict):
        return []
    raw_drill = raw_question.get("drill")
    found = drill_findings(raw_drill) if isinstance(raw_drill, str) else []
    demo = None
    if "demo" in raw_question:
        try:
            demo = schema.DemoRef.model_validate(raw_question["demo"])
        except ValidationError:
            demo = None
    checks: list[tuple[int, Any]] = []
    raw_checks = raw_question.get("checks")
    for i, raw in enumerate(raw_checks if isinstance(raw_checks, list) else []):
        try:
            checks.append((i, schema.CheckSpec.model_validate(raw)))
            continue
        except ValidationError:
            pass
        # an invalid check (say `expect` is missing) still has its demo and params checked
        if not isinstance(raw, dict):
            continue
        try:
            ref = schema.DemoRef.model_validate({"name": raw.get("demo"), "params": raw.get("params") or {}})
        except ValidationError:
            continue
        path = raw.get("path")
        checks.append((i, _PartialCheck(ref.name, ref.params, path if isinstance(path, str) else None)))
    return found + demo_ref_findings(demo, checks)


def drill_findings(name: str | None) -> list[Finding]:
    """An unknown `drill:` name (the catalogue is plain data: no torch)."""
    from .drills.catalogue import DRILL_NAMES

    if name is None or name in DRILL_NAMES:
        return []
    hint = did_you_mean(name, DRILL_NAMES)
    more = "" if hint else f"; the drills are {', '.join(DRILL_NAMES)}"
    return [(("drill",), False, f"unknown drill {name!r}{hint}{more}")]


class _PartialCheck(NamedTuple):
    """The parts of an invalid check that can still be checked; `path` None when unusable."""

    demo: str
    params: dict[str, Any]
    path: str | None


def demo_ref_findings(
    demo_ref: Any,
    checks: list[tuple[int, Any]],
    demo_lookup: Callable[[str], Any] | None = None,
) -> list[Finding]:
    """Problems with a `demo:` (a DemoRef or None) and numbered checks (CheckSpec)."""
    if demo_ref is None and not checks:
        return []

    lookup = demo_lookup or get_demo
    out: list[Finding] = []

    def demo_named(name: str, at: Loc) -> Any:
        try:
            return lookup(name)
        except DemoError:
            names = [d.name for d in list_demos()]
            hint = did_you_mean(name, names)
            more = "" if hint else f"; the demos are {', '.join(names)}"
            out.append((at, False, f"unknown demo {name!r}{hint}{more}"))
            return None

    def check_params(demo: Any, params: dict[str, Any], at: Loc) -> None:
        for where, key, message in _param_findings(demo, params):
            out.append(((*at, *where), key, message))

    if demo_ref is not None:
        demo = demo_named(demo_ref.name, ("demo", "name"))
        if demo is not None:
            check_params(demo, dict(demo_ref.params), ("demo", "params"))
    for i, check in checks:
        demo = demo_named(check.demo, ("checks", i, "demo"))
        if demo is None:
            continue
        check_params(demo, dict(check.params), ("checks", i, "params"))
        if check.path is None:
            continue
        try:
            name = value_name(check.path)
        except CheckPathError as exc:
            out.append((("checks", i, "path"), False, str(exc)))
            continue
        if name is not None and name not in demo.values:
            declared = ", ".join(demo.values) or "(none)"
            out.append(
                (
                    ("checks", i, "path"),
                    False,
                    f"demo {demo.name!r} declares no value {name!r}{did_you_mean(name, demo.values)}; "
                    f"its values: {declared}",
                )
            )
    return out


_PARAM_FINDINGS: dict[tuple[Any, ...], list[Finding]] = {}


def _param_findings(demo: Any, params: dict[str, Any]) -> list[Finding]:
    """Problems with `params` for `demo` (paths relative to the params mapping); memoized, since
    many questions and checks share a demo and its parameters."""
    try:
        key: tuple[Any, ...] | None = (demo.name, id(demo), memory_budget_bytes(), *sorted(params.items()))
        hash(key)
    except TypeError:
        key = None
    if key is not None and key in _PARAM_FINDINGS:
        return _PARAM_FINDINGS[key]
    out: list[Finding] = []
    for name, raw in params.items():
        spec = demo.param(name)
        if spec is None:
            names = [p.name for p in demo.params]
            hint = did_you_mean(name, names)
            valid = f"; its parameters: {', '.join(names)}" if names else "; it takes no parameters"
            out.append(((name,), True, f"demo {demo.name!r} has no parameter {name!r}{hint}{valid}"))
            continue
        if isinstance(raw, str) and spec.type in ("int", "float", "bool"):
            # the CLI parses text (`n_heads=8`); in YAML a number or true/false is written bare
            kind = "true or false" if spec.type == "bool" else f"a number ({spec.describe_bounds()})"
            out.append(
                (
                    (name,),
                    False,
                    f"demo {demo.name!r}: parameter {name!r} takes {kind}, "
                    f"got the text {raw!r}; write it without quotes",
                )
            )
            continue
        try:
            spec.coerce(raw)
        except DemoError as exc:
            out.append(((name,), False, f"demo {demo.name!r}: {exc}"))
    if not out:
        try:
            check_memory(demo, demo.resolve_params(params))
        except DemoError as exc:
            out.append(((), False, str(exc)))
    if key is not None:
        if len(_PARAM_FINDINGS) > 4096:
            _PARAM_FINDINGS.clear()
        _PARAM_FINDINGS[key] = out
    return out
