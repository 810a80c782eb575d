"""Structural checks of a generated question (`vary` + an answer from a demo), without running anything.

Like `checks:` (quizbank/validate.py), the answer's demo, its parameters and its result path are
checked against the demo registry's declared specs, so neither torch nor a demo run is needed:

- every name a bound uses (`n_heads`, `dim/2 - 1`) is an earlier numeric parameter;
- every `{name}` in every text, in every language, is a declared parameter, and every parameter
  appears in the prompt of each language (a number the candidate never sees cannot be reasoned
  about);
- the demo exists, each of its parameters is known and each literal value is valid; each reference
  (`{name}` or a bare declared name) is declared;
- the path is well formed once filled, and a `values.NAME` path names a declared value;
- the parameters of the first 8 seeded instances (what `posenc bank validate` runs) resolve against
  the demo's bounds and constraints and fit the memory budget.

Paths in findings are relative to the question's mapping, as for `validate.demo_findings`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from posenc_ref.demos import DemoError, check_memory, get_demo, list_demos

from ..checks import CheckPathError, parse_path, value_name
from ..schema import LANGS, Text
from ..validate import Finding, did_you_mean
from .draw import VaryError, bound_names, draw, fill_params, fill_path, format_param, param_refs, placeholders

# the seeds `posenc bank validate` runs; the loader checks their parameters without running
VALIDATION_SEEDS: tuple[int, ...] = tuple(range(8))


def _texts(question: Any) -> list[tuple[tuple[str | int, ...], Text]]:
    out: list[tuple[tuple[str | int, ...], Text]] = [(("prompt",), question.prompt)]
    out.append((("explanation",), question.explanation))
    out.extend((("hints", i), hint) for i, hint in enumerate(question.hints))
    if isinstance(question.answer, Text):
        out.append((("answer",), question.answer))
    return out


def _params_text(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={format_param(v)}" for k, v in params.items())


def vary_findings(question: Any, demo_lookup: Callable[[str], Any] | None = None) -> list[Finding]:
    """Problems with a generated question's `vary`, placeholders and answer (no torch, no demo run)."""
    vary = getattr(question, "vary", None)
    live = getattr(question, "live_answer", None)
    if not vary or live is None:
        return []
    names = list(vary)
    out: list[Finding] = []

    numeric = {name for name, spec in vary.items() if spec.kind != "choices"}
    numeric |= {
        name
        for name, spec in vary.items()
        if spec.kind == "choices" and all(isinstance(c, int | float) for c in spec.choices or [])
    }
    for name, i, ref in bound_names(vary):
        where = ("vary", name, vary[name].kind, i)
        written = vary[name].bounds[i]
        lead = (
            f"bound {ref!r} of {name!r}"
            if written.strip() == ref
            else f"bound {written!r} of {name!r}: {ref!r}"
        )
        earlier = names[: names.index(name)]
        if ref not in earlier:
            later = (
                " (it is declared later; declare it first)" if ref in names else did_you_mean(ref, earlier)
            )
            out.append((where, False, f"{lead} is not an earlier parameter{later}"))
        elif ref not in numeric:
            out.append((where, False, f"{lead} is not a number parameter"))

    for at, text in _texts(question):
        for lang in LANGS:
            if not text.has(lang):
                continue
            for ph in placeholders(text.get(lang)):
                if ph not in vary:
                    out.append(
                        (
                            (*at, lang),
                            False,
                            f"placeholder {{{ph}}} is not a vary parameter{did_you_mean(ph, names)}; "
                            f"declared: {', '.join(names)} (write {{{{{ph}}}}} for a literal {{{ph}}})",
                        )
                    )
    for lang in sorted(question.prompt.languages()):
        shown = set(placeholders(question.prompt.get(lang)))
        hidden = [name for name in names if name not in shown]
        if hidden:
            out.append(
                (
                    ("prompt", lang),
                    False,
                    f"the {lang} prompt never shows {', '.join('{' + n + '}' for n in hidden)}; "
                    "every drawn parameter must be in the prompt",
                )
            )

    lookup = demo_lookup or get_demo
    try:
        demo = lookup(live.demo)
    except DemoError:
        all_names = [d.name for d in list_demos()]
        hint = did_you_mean(live.demo, all_names)
        more = "" if hint else f"; the demos are {', '.join(all_names)}"
        out.append((("answer", "demo"), False, f"unknown demo {live.demo!r}{hint}{more}"))
        return out

    params_ok = True
    for key, value in live.params.items():
        spec = demo.param(key)
        if spec is None:
            valid = [p.name for p in demo.params]
            out.append(
                (
                    ("answer", "params", key),
                    True,
                    f"demo {demo.name!r} has no parameter {key!r}{did_you_mean(key, valid)}; "
                    f"its parameters: {', '.join(valid) or '(none)'}",
                )
            )
            params_ok = False
            continue
        refs = param_refs(value, vary)
        if refs:
            unknown = [ref for ref in refs if ref not in vary]
            if unknown:
                out.append(
                    (
                        ("answer", "params", key),
                        False,
                        f"{{{unknown[0]}}} in {value!r} is not a vary parameter"
                        f"{did_you_mean(unknown[0], names)}; declared: {', '.join(names)}",
                    )
                )
                params_ok = False
            continue
        try:
            spec.coerce(value)
        except DemoError as exc:
            out.append((("answer", "params", key), False, f"demo {demo.name!r}: {exc}"))
            params_ok = False

    path_ok = True
    for ph in placeholders(live.path):
        if ph not in vary:
            out.append(
                (("answer", "path"), False, f"placeholder {{{ph}}} in the path is not a vary parameter")
            )
            path_ok = False
    if path_ok:
        try:
            probe = fill_path(live.path, draw(question.id, vary, 0))
        except VaryError:
            probe = None  # reported with the seeds below
        problem = _path_problem(probe, demo) if probe is not None else None
        if problem is not None:
            out.append((("answer", "path"), False, problem))

    if out or not params_ok:
        return out
    for seed in VALIDATION_SEEDS:
        try:
            drawn = draw(question.id, vary, seed)
        except VaryError as exc:
            out.append((("vary",), False, f"seed {seed}: {exc}"))
            break
        problem = _path_problem(fill_path(live.path, drawn), demo)
        if problem is not None:
            out.append((("answer", "path"), False, f"seed {seed} draws {_params_text(drawn)}: {problem}"))
            break
        params = fill_params(dict(live.params), drawn)
        try:
            check_memory(demo, demo.resolve_params(params))
        except DemoError as exc:
            out.append(
                (
                    ("answer", "params"),
                    False,
                    f"seed {seed} draws {_params_text(drawn)}: demo {demo.name!r}: {exc}",
                )
            )
            break
    else:
        out.extend(_corner_findings(question, demo, vary, live))
    return out


def _path_problem(path: str, demo: Any) -> str | None:
    """Why a filled result path cannot lead to a number of `demo` (from its spec), or None."""
    try:
        parse_path(path)
        name = value_name(path)
    except CheckPathError as exc:
        return str(exc)
    if name is not None and name not in demo.values:
        declared = ", ".join(demo.values) or "(none)"
        return (
            f"path {path!r}: demo {demo.name!r} declares no value {name!r}{did_you_mean(name, demo.values)}; "
            f"its values: {declared}"
        )
    return None


def _corner_findings(question: Any, demo: Any, vary: dict[str, Any], live: Any) -> list[Finding]:
    """Every choice and every literal range end, one parameter at a time over the seed-0 draw: a
    value the 8 validation seeds happen to miss can still be drawn in the app."""
    base = draw(question.id, vary, 0)
    for name, spec in vary.items():
        if spec.kind == "choices":
            extremes = list(spec.choices or [])
        elif any(isinstance(b, str) for b in spec.bounds):
            continue
        else:
            lo, hi = spec.bounds
            extremes = [int(lo), int(hi)] if spec.kind == "int" else [float(lo), float(hi)]
        for value in extremes:
            drawn = {**base, name: value}
            problem = _path_problem(fill_path(live.path, drawn), demo)
            if problem is not None:
                return [(("answer", "path"), False, f"with {name}={format_param(value)}: {problem}")]
            try:
                check_memory(demo, demo.resolve_params(fill_params(dict(live.params), drawn)))
            except DemoError as exc:
                return [
                    (
                        ("vary", name),
                        False,
                        f"{name}={format_param(value)} can be drawn, but demo {demo.name!r} refuses it: {exc}",
                    )
                ]
    return []
