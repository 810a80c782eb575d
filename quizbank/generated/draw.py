"""Drawing a generated question's parameters and filling its `{name}` placeholders (pure Python).

A numeric question with `vary:` declares parameters drawn fresh per showing::

    vary:
      n_heads: {choices: [6, 8, 12, 16, 20, 32]}
      head: {int: [1, n_heads]}            # a bound may name an earlier parameter
      pair: {int: [0, dim/2 - 1]}          # or be arithmetic over earlier ones (quizbank/arithmetic.py)
      base: {float: [10000, 1000000], log: true}
      factor: {float: [1.5, 8], step: 0.5}

Drawing is deterministic per (question id, seed) in any process: the generator is a
`random.Random` seeded from a SHA-256 of the id and the seed (never `hash()`, never the global
random state), and parameters are drawn in the order they are declared. A float drawn on a log
scale (or without a step) is rounded to 3 significant digits, so the prompt shows exactly the
number the answer is computed from.

Placeholders: in a generated question's texts `{name}` is replaced by the parameter's value;
`{{name}}` writes a literal `{name}` (LaTeX such as `\\theta_{{i}}`); any other brace is left as
written. In an answer's `path`, an index may do integer arithmetic on placeholders:
`tables[0].rows[{head}-1][1]`.
"""

from __future__ import annotations

import hashlib
import math
import random
import re
from typing import Any

from ..arithmetic import evaluate, names_in

# {{name}} (a literal) or {name} (a placeholder)
_TOKEN = re.compile(r"\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}")
_INDEX = re.compile(r"\[([^\[\]]*)\]")
_ARITH = re.compile(r"\s*-?\d+(?:\s*[+-]\s*\d+)*\s*")
_SIGNIFICANT = 3
MAX_STEPS = 1_000_000  # as quizbank.schema.MAX_VARY_STEPS


class VaryError(ValueError):
    """A draw that cannot be made (inverted or non-positive log bounds, an unknown name)."""


def placeholders(text: str) -> list[str]:
    """The `{name}` placeholders of `text`, in order, without repeats (`{{name}}` is a literal)."""
    out: list[str] = []
    for match in _TOKEN.finditer(text or ""):
        name = match.group(2)
        if name is not None and name not in out:
            out.append(name)
    return out


def format_param(value: Any) -> str:
    """A drawn value as the prompt shows it: ints as ints, floats without trailing noise."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        short = f"{value:.12g}"
        return short if float(short) == value else repr(value)  # what is shown is what is computed
    return str(value)


def fill(text: str, params: dict[str, Any]) -> str:
    """`text` with each declared `{name}` replaced by its value and `{{name}}` by `{name}`; an
    undeclared `{name}` is left as written (the loader reports it)."""

    def replace(match: re.Match[str]) -> str:
        if match.group(1) is not None:
            return "{" + match.group(1) + "}"
        name = match.group(2)
        return format_param(params[name]) if name in params else match.group(0)

    return _TOKEN.sub(replace, text or "")


def unfilled(template: str, params: dict[str, Any]) -> list[str]:
    """The placeholders of `template` that `fill(template, params)` leaves as written (no such parameter)."""
    return [name for name in placeholders(template) if name not in params]


def fill_path(path: str, params: dict[str, Any]) -> str:
    """A result path with placeholders filled and each index's integer arithmetic done:
    `tables[0].rows[{head}-1][1]` with head=3 -> `tables[0].rows[2][1]`."""
    filled = fill(path, params)

    def index(match: re.Match[str]) -> str:
        inner = match.group(1)
        if _ARITH.fullmatch(inner):
            return f"[{_arith(inner)}]"
        return match.group(0)

    return _INDEX.sub(index, filled)


MAX_INDEX_DIGITS = 9  # as quizbank.schema.MAX_INDEX_DIGITS: a list position


def _arith(text: str) -> int:
    if any(len(run) > MAX_INDEX_DIGITS for run in re.findall(r"\d+", text)):
        raise VaryError(
            f"an index in the path has a number of more than {MAX_INDEX_DIGITS} digits: {text[:40]}"
        )
    total, sign, number = 0, 1, ""
    for ch in text.replace(" ", "") + "+":
        if ch.isdigit():
            number += ch
        elif ch in "+-":
            if number:
                total += sign * int(number)
                number = ""
                sign = 1 if ch == "+" else -1
            else:  # a leading or doubled sign
                sign = -sign if ch == "-" else sign
    return total


def param_refs(value: Any, names: Any) -> list[str]:
    """The parameters an answer's demo-parameter value refers to: a bare declared `name`, or the
    `{name}` placeholders of text such as `"{n}"`, `"-{n}"` or `"{n}+1"`; [] for a literal."""
    if not isinstance(value, str):
        return []
    text = value.strip()
    if text in names:
        return [text]
    return placeholders(text)


def fill_param(value: Any, drawn: dict[str, Any]) -> Any:
    """One demo-parameter value for an instance: `name` or `"{name}"` -> the drawn value (its type
    kept); `"-{n}"`, `"{n}+1"` (integer arithmetic) -> an int; anything else unchanged."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text in drawn:
        return drawn[text]
    match = _TOKEN.fullmatch(text)
    if match is not None and match.group(2) in drawn:
        return drawn[match.group(2)]
    if not placeholders(text):
        return value
    filled = fill(text, drawn)
    if _ARITH.fullmatch(filled.replace("+-", "-").replace("--", "+")):
        return _arith(filled)
    return filled


def fill_params(params: dict[str, Any], drawn: dict[str, Any]) -> dict[str, Any]:
    """An answer's demo parameters with each reference filled (see `fill_param`)."""
    return {key: fill_param(value, drawn) for key, value in params.items()}


def rng_for(question_id: str, seed: int) -> random.Random:
    """The generator for one instance: the same (id, seed) gives the same draws in any process."""
    digest = hashlib.sha256(f"posenc-vary\0{question_id}\0{int(seed)}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _round_sig(x: float, digits: int = _SIGNIFICANT) -> float:
    return float(f"{x:.{digits}g}")


def _bound(raw: Any, drawn: dict[str, Any], name: str) -> float:
    """A range end: a number, an earlier parameter's value, or arithmetic over earlier parameters."""
    if not isinstance(raw, str):
        return raw
    for ref in names_in(raw):
        if ref not in drawn:
            raise VaryError(f"vary parameter {name!r}: bound {raw!r}: {ref!r} is not an earlier parameter")
        value = drawn[ref]
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise VaryError(f"vary parameter {name!r}: bound {raw!r}: {ref!r} is {value!r}, not a number")
    if raw.strip() in drawn:
        return drawn[raw.strip()]  # a bare name keeps its type (an int stays an int)
    try:
        value = evaluate(raw, {ref: drawn[ref] for ref in names_in(raw)})
    except ValueError as exc:
        shown = ", ".join(f"{ref}={format_param(drawn[ref])}" for ref in names_in(raw))
        raise VaryError(f"vary parameter {name!r}: bound {raw!r} with {shown}: {exc}") from None
    return int(value) if value.is_integer() else value


def draw_one(name: str, spec: Any, drawn: dict[str, Any], rng: random.Random) -> Any:
    """One value for the VaryParam `spec`, given the parameters drawn before it."""
    if spec.kind == "choices":
        return spec.choices[rng.randrange(len(spec.choices))]
    lo_raw, hi_raw = spec.bounds
    lo, hi = _bound(lo_raw, drawn, name), _bound(hi_raw, drawn, name)
    if lo > hi:
        raise VaryError(f"vary parameter {name!r}: empty range [{format_param(lo)}, {format_param(hi)}]")
    if spec.log and lo <= 0:
        raise VaryError(f"vary parameter {name!r}: a log-scale range needs lo > 0, got {format_param(lo)}")
    if spec.kind == "int":
        lo_i, hi_i = math.ceil(lo), math.floor(hi)
        if lo_i > hi_i:
            raise VaryError(f"vary parameter {name!r}: no whole number in [{lo}, {hi}]")
        if spec.step is not None:
            step = int(spec.step)
            if (hi_i - lo_i) // step > MAX_STEPS:
                raise VaryError(f"vary parameter {name!r}: more than {MAX_STEPS:,} steps of {step}")
            return lo_i + step * rng.randint(0, (hi_i - lo_i) // step)
        if spec.log:
            whole = round(math.exp(rng.uniform(math.log(lo_i), math.log(hi_i))))
            return min(hi_i, max(lo_i, whole))
        return rng.randint(lo_i, hi_i)
    lo_f, hi_f = float(lo), float(hi)
    if spec.step is not None:
        steps = (hi_f - lo_f) / spec.step
        if not steps <= MAX_STEPS:  # a bound named an earlier parameter: the schema could not see it
            raise VaryError(f"vary parameter {name!r}: more than {MAX_STEPS:,} steps of {spec.step:g}")
        k = rng.randint(0, int(math.floor(steps + 1e-9)))
        return float(f"{lo_f + k * spec.step:.12g}")
    if spec.log:
        value = _round_sig(math.exp(rng.uniform(math.log(lo_f), math.log(hi_f))))
    else:
        value = _round_sig(rng.uniform(lo_f, hi_f))
    return min(hi_f, max(lo_f, value))


def draw(question_id: str, vary: dict[str, Any], seed: int) -> dict[str, Any]:
    """Every parameter of `vary` (a mapping name -> VaryParam), in declaration order. Raises VaryError."""
    rng = rng_for(question_id, seed)
    drawn: dict[str, Any] = {}
    for name, spec in vary.items():
        drawn[name] = draw_one(name, spec, drawn, rng)
    return drawn


def bound_names(vary: dict[str, Any]) -> list[tuple[str, int, str]]:
    """(parameter, bound index, named parameter) for every name a bound uses (`n_heads`, `dim/2 - 1`)."""
    return [
        (name, i, ref)
        for name, spec in vary.items()
        for i, bound in enumerate(spec.bounds)
        if isinstance(bound, str)
        for ref in names_in(bound)
    ]
