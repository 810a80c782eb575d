"""Demo specs and results. Pure Python: importing this never imports torch."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

PARAM_TYPES = {"int": int, "float": float, "str": str, "bool": bool}


class DemoError(Exception):
    """A request the user can fix (unknown demo, bad parameter, over budget). One clear line."""


class ParamError(DemoError):
    pass


@dataclass(frozen=True)
class Param:
    """A typed, bounded demo parameter. `help` says what it is in English, `help_zh` in Chinese (the demo
    lab shows it in the app language; every parameter has both, `test_demos.py` checks)."""

    name: str
    type: str  # "int" | "float" | "str" | "bool"
    default: Any
    min: float | None = None
    max: float | None = None
    help: str = ""
    choices: tuple[str, ...] | None = None
    even: bool = False  # ints that must be even (RoPE dims)
    help_zh: str = ""

    def help_in(self, lang: str) -> str:
        """The help text in `lang` ("zh" or English), English where there is no Chinese."""
        return (self.help_zh or self.help) if lang == "zh" else self.help

    def describe_bounds(self) -> str:
        if self.choices:
            return "one of " + ", ".join(self.choices)
        if self.type == "bool":
            return "true or false"
        parts = [self.type]
        if self.min is not None and self.max is not None:
            parts.append(f"in [{_fmt(self.min)}, {_fmt(self.max)}]")
        elif self.min is not None:
            parts.append(f">= {_fmt(self.min)}")
        elif self.max is not None:
            parts.append(f"<= {_fmt(self.max)}")
        if self.even:
            parts.append("even")
        return " ".join(parts)

    def coerce(self, raw: Any) -> Any:
        """Turn a CLI string or a YAML/JSON value into a checked value, or raise ParamError."""
        where = f"parameter {self.name!r}"
        value: Any
        if self.type == "bool":
            if isinstance(raw, bool):
                value = raw
            elif isinstance(raw, str) and raw.strip().lower() in {"true", "1", "yes", "on"}:
                value = True
            elif isinstance(raw, str) and raw.strip().lower() in {"false", "0", "no", "off"}:
                value = False
            else:
                raise ParamError(f"{where} must be true or false, got {raw!r}")
            return value
        if self.type == "str":
            if not isinstance(raw, str):
                raise ParamError(f"{where} must be a string, got {raw!r}")
            value = raw.strip()
        elif self.type == "int":
            if isinstance(raw, bool):
                raise ParamError(f"{where} must be an integer ({self.describe_bounds()}), got {raw!r}")
            if isinstance(raw, int):
                value = raw
            elif isinstance(raw, float) and raw.is_integer():
                value = int(raw)
            elif isinstance(raw, str):
                try:
                    value = int(raw.strip())
                except ValueError:
                    raise ParamError(
                        f"{where} must be an integer ({self.describe_bounds()}), got {raw!r}"
                    ) from None
            else:
                raise ParamError(f"{where} must be an integer ({self.describe_bounds()}), got {raw!r}")
        elif self.type == "float":
            if isinstance(raw, bool):
                raise ParamError(f"{where} must be a number ({self.describe_bounds()}), got {raw!r}")
            if isinstance(raw, int | float):
                value = float(raw)
            elif isinstance(raw, str):
                try:
                    value = float(raw.strip())
                except ValueError:
                    raise ParamError(
                        f"{where} must be a number ({self.describe_bounds()}), got {raw!r}"
                    ) from None
            else:
                raise ParamError(f"{where} must be a number ({self.describe_bounds()}), got {raw!r}")
            if not math.isfinite(value):
                raise ParamError(f"{where} must be finite, got {raw!r}")
        else:  # pragma: no cover - spec error
            raise ParamError(f"{where} has unknown type {self.type!r}")
        if self.choices is not None and value not in self.choices:
            raise ParamError(f"{where} must be {self.describe_bounds()}, got {value!r}")
        if self.min is not None and value < self.min or self.max is not None and value > self.max:
            raise ParamError(f"{where} must be {self.describe_bounds()}, got {value!r}")
        if self.even and value % 2:
            raise ParamError(f"{where} must be even ({self.describe_bounds()}), got {value!r}")
        return value

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["choices"] = list(self.choices) if self.choices else None
        return d


@dataclass(frozen=True)
class Value:
    """A named scalar a demo records (`ctx.value(name, v)`): what it means and its unit, in English and
    Chinese, so `posenc demo list` says that `linear_ratio` is θ'ᵢ/θᵢ and nobody has to guess. `when` is ""
    for a value every run records, else the condition under which it is recorded (``"causal=false"``)."""

    name: str
    meaning: str = ""
    unit: str = ""
    meaning_zh: str = ""
    when: str = ""

    def meaning_in(self, lang: str) -> str:
        """The meaning in `lang` ("zh" or English), English where there is no Chinese."""
        return (self.meaning_zh or self.meaning) if lang == "zh" else self.meaning

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_RELATIONS: dict[str, Callable[[Any, Any], bool]] = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}
# The seed parameter of every demo that draws random tensors (one definition, one help text).
SEED = Param("seed", "int", 0, min=0, max=2**31 - 1, help="random seed", help_zh="随机种子")

_RELATION_SIGNS = {"<": "<", "<=": "≤", ">": ">", ">=": "≥"}


@dataclass(frozen=True)
class Constraint:
    """A rule between two parameters of one demo (`beta_fast >= beta_slow`), checked after each
    parameter is coerced on its own."""

    left: str
    op: str  # "<" | "<=" | ">" | ">="
    right: str

    def __post_init__(self) -> None:
        if self.op not in _RELATIONS:
            raise ValueError(f"unknown relation {self.op!r}")

    def holds(self, params: dict[str, Any]) -> bool:
        return _RELATIONS[self.op](params[self.left], params[self.right])

    def describe(self) -> str:
        return f"{self.left} {_RELATION_SIGNS[self.op]} {self.right}"

    def message(self, params: dict[str, Any]) -> str:
        return (
            f"parameters must satisfy {self.describe()}, got {self.left}={format_value(params[self.left])}"
            f" and {self.right}={format_value(params[self.right])}"
        )


class ConstraintError(ParamError):
    """Two parameters that are each valid but make no sense together."""

    def __init__(self, constraint: Constraint, params: dict[str, Any]) -> None:
        super().__init__(constraint.message(params))
        self.constraint = constraint
        self.params = dict(params)


def format_value(value: Any, *, unicode: bool = False) -> str:
    """A table cell or scalar for display: ints as ints, floats with 6 significant digits (4 in
    scientific notation). `unicode` writes infinities as ∞ / −∞ (the app) instead of inf / -inf."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            if unicode:
                return "∞" if value > 0 else "−∞"
            return "inf" if value > 0 else "-inf"
        if value == 0:
            return "0"
        magnitude = abs(value)
        if value.is_integer() and magnitude < 1e15:
            return str(int(value))
        if 1e-4 <= magnitude < 1e6:
            return f"{value:.6g}"
        return f"{value:.4g}"
    if value is None:
        return ""
    return str(value)


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(x)


@dataclass
class Check:
    claim: str
    passed: bool
    max_abs_error: float
    tolerance: float
    claim_zh: str = ""  # Chinese claim ("" falls back to English)


@dataclass
class Table:
    title: str
    columns: list[str]
    rows: list[list[Any]]
    title_zh: str = ""  # Chinese title and column headers ("" / [] fall back to English)
    columns_zh: list[str] = field(default_factory=list)


@dataclass
class Series:
    """Data for one plot: a shared x axis and one or more named y lines."""

    title: str
    x: list[float]
    ys: dict[str, list[float]]
    x_label: str = ""
    y_label: str = ""
    title_zh: str = ""


@dataclass
class Matrix:
    """A 2-D grid drawn as a heatmap (PE table, ALiBi bias, T5 buckets). -inf is allowed (masked)."""

    title: str
    values: list[list[float]]
    row_label: str = ""
    col_label: str = ""
    title_zh: str = ""
    row_label_zh: str = ""
    col_label_zh: str = ""


@dataclass
class DemoResult:
    name: str
    title: str
    claim: str
    device: str
    dtype: str
    elapsed_ms: float
    params: dict[str, Any] = field(default_factory=dict)
    checks: list[Check] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    series: list[Series] = field(default_factory=list)
    matrices: list[Matrix] = field(default_factory=list)
    values: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    title_zh: str = ""  # Chinese title and claim from the demo spec ("" when it has none)
    claim_zh: str = ""
    notes_zh: list[str] = field(default_factory=list)  # parallel to `notes` ("" where none)

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serializable dict (non-finite floats become the strings 'inf', '-inf', 'nan')."""
        return _jsonable(asdict(self))


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, bool) or obj is None or isinstance(obj, str):
        return obj
    if isinstance(obj, int):
        return int(obj)
    if hasattr(obj, "item"):  # numpy / torch scalars
        obj = obj.item()
    if isinstance(obj, float):
        if math.isnan(obj):
            return "nan"
        if math.isinf(obj):
            return "inf" if obj > 0 else "-inf"
        return float(obj)
    if isinstance(obj, int):
        return obj
    return str(obj)


class DemoContext:
    """Handed to a demo's run function: the device and dtype to use, and collectors for output.

    A run function looks like::

        def _run(ctx: DemoContext, dim: int, m: int) -> None:
            import torch                      # lazily, inside the function
            ...
            ctx.check("norm is preserved", err, tol=1e-5)
            ctx.table("m, n, score", ["m", "n", "q·k"], rows)
            ctx.value("max_error", err)
    """

    def __init__(self, device: str, dtype: str = "float32") -> None:
        self.device = device
        self.dtype = dtype
        self.checks: list[Check] = []
        self.tables: list[Table] = []
        self.series_list: list[Series] = []
        self.matrices: list[Matrix] = []
        self.values: dict[str, float] = {}
        self.notes: list[str] = []
        self.notes_zh: list[str] = []

    # Every text takes its Chinese form as `zh=` (or `title_zh=`, `columns_zh=` ...); math is written
    # between $...$ as in bank text, so the app renders it the same way.
    def check(self, claim: str, max_abs_error: float, tol: float, *, zh: str = "") -> Check:
        err = abs(float(max_abs_error))  # an error is a magnitude
        c = Check(
            claim=claim,
            passed=bool(math.isfinite(err) and err <= tol),
            max_abs_error=err,
            tolerance=tol,
            claim_zh=zh,
        )
        self.checks.append(c)
        return c

    def check_true(self, claim: str, ok: bool, *, zh: str = "") -> Check:
        c = Check(claim=claim, passed=bool(ok), max_abs_error=0.0 if ok else 1.0, tolerance=0.0, claim_zh=zh)
        self.checks.append(c)
        return c

    def table(
        self,
        title: str,
        columns: list[str],
        rows: Sequence[Sequence[Any]],
        *,
        title_zh: str = "",
        columns_zh: list[str] | None = None,
    ) -> None:
        if columns_zh is not None and len(columns_zh) != len(columns):
            raise ValueError(f"table {title!r}: {len(columns_zh)} Chinese headers for {len(columns)} columns")
        self.tables.append(
            Table(title, list(columns), [list(r) for r in rows], title_zh, list(columns_zh or []))
        )

    def series(
        self,
        title: str,
        x: Sequence[float],
        ys: Mapping[str, Sequence[float]],
        x_label: str = "",
        y_label: str = "",
        *,
        title_zh: str = "",
    ) -> None:
        self.series_list.append(
            Series(
                title,
                [float(v) for v in x],
                {k: [float(v) for v in vs] for k, vs in ys.items()},
                x_label,
                y_label,
                title_zh,
            )
        )

    def matrix(
        self,
        title: str,
        values: Any,
        row_label: str = "",
        col_label: str = "",
        *,
        title_zh: str = "",
        row_label_zh: str = "",
        col_label_zh: str = "",
    ) -> None:
        rows = values.tolist() if hasattr(values, "tolist") else values
        self.matrices.append(
            Matrix(
                title,
                [[float(v) for v in r] for r in rows],
                row_label,
                col_label,
                title_zh,
                row_label_zh,
                col_label_zh,
            )
        )

    def value(self, name: str, v: float) -> None:
        self.values[name] = float(v)

    def note(self, text: str, *, zh: str = "") -> None:
        self.notes.append(text)
        self.notes_zh.append(zh)


RunFn = Callable[..., None]
MemoryFn = Callable[..., int]


@dataclass(frozen=True)
class Demo:
    """A named, self-checking computation.

    `values` is given as `Value(...)` records (a bare name is accepted and has no meaning: a test fails on
    it). After construction `values` holds the names of the scalars every run records, so bank checks such
    as `values.max_error` can be validated without running anything, and `value_specs` holds every
    declared `Value`, conditional ones (`when`) included."""

    name: str
    title: str
    claim: str
    topic: str
    params: tuple[Param, ...]
    values: tuple[str, ...]  # given as Value records; names once constructed (see the docstring)
    run: RunFn
    memory_bytes: MemoryFn | None = None  # estimated peak tensor bytes for given params
    uses_torch: bool = True
    title_zh: str = ""  # Chinese title and claim for the app's zh mode ("" falls back to English)
    claim_zh: str = ""
    constraints: tuple[Constraint, ...] = ()  # rules between parameters, checked by resolve_params
    value_specs: tuple[Value, ...] = field(default=(), init=False)

    def __post_init__(self) -> None:
        specs = tuple(v if isinstance(v, Value) else Value(str(v)) for v in self.values)
        names = [v.name for v in specs]
        if len(set(names)) != len(names):
            raise ValueError(f"demo {self.name!r} declares a value twice: {names}")
        object.__setattr__(self, "value_specs", specs)
        object.__setattr__(self, "values", tuple(v.name for v in specs if not v.when))

    def value_spec(self, name: str) -> Value | None:
        return next((v for v in self.value_specs if v.name == name), None)

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}

    def resolve_params(self, given: dict[str, Any] | None) -> dict[str, Any]:
        """Defaults overlaid with `given`, each coerced and range-checked. Raises ParamError."""
        resolved = self.defaults()
        for key, raw in (given or {}).items():
            p = self.param(key)
            if p is None:
                names = ", ".join(q.name for q in self.params) or "(none)"
                raise ParamError(f"demo {self.name!r} has no parameter {key!r}; valid parameters: {names}")
            resolved[key] = p.coerce(raw)
        for rule in self.constraints:
            if not rule.holds(resolved):
                raise ConstraintError(rule, resolved)
        return resolved

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "claim": self.claim,
            "title_zh": self.title_zh,
            "claim_zh": self.claim_zh,
            "topic": self.topic,
            "params": [p.to_dict() for p in self.params],
            "values": [v.to_dict() for v in self.value_specs],
            "constraints": [rule.describe() for rule in self.constraints],
        }
