"""``posenc demo``: list and run the live demos.

    posenc demo list [--json]
    posenc demo run NAME [param=value ...] [--device auto|cpu|cuda|mps] [--json]

Exit status: 0 when every check passed, 1 when a check failed (or a demo crashed), 2 for a
request that cannot be run as given (unknown demo or parameter, malformed ``param=value``, wrong
type, out of range, unknown or absent device, over the memory budget). Errors are one line on
stderr, never a traceback (set ``POSENC_DEBUG=1`` to see one).

``demo list`` does not import torch. ``python -m posenc_ref.cli demo ...`` works without the rest
of the ``posenc`` command.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from .demos.base import format_value

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``demo`` (with ``list`` and ``run``) to a ``posenc`` subparsers object."""
    demo = subparsers.add_parser(
        "demo",
        help="list and run the live, self-checking demos",
        description="Live computations behind the answers: each demo checks its own claims.",
    )
    actions = demo.add_subparsers(dest="demo_command", metavar="ACTION")

    listing = actions.add_parser(
        "list", help="list demos with their parameters (defaults and bounds) and named values (meaning, unit)"
    )
    listing.add_argument("--json", action="store_true", help="print the demo specs as JSON")
    listing.set_defaults(func=handle_list)

    run = actions.add_parser(
        "run",
        help="run one demo",
        description="Run a demo. Parameters are given as param=value; see `posenc demo list`.",
    )
    run.add_argument("name", metavar="NAME", help="demo name, e.g. rope-relativity")
    # default=[] keeps argparse from listing the optional param=value among "required" arguments
    run.add_argument("params", nargs="*", default=[], metavar="param=value", help="override a parameter")
    run.add_argument(
        "--device", default="auto", help="auto (default), cpu, cuda or mps; POSENC_DEVICE overrides"
    )
    run.add_argument("--json", action="store_true", help="print the DemoResult as JSON")
    run.set_defaults(func=handle_run)

    def handle_no_action(args: argparse.Namespace) -> int:
        demo.print_help(sys.stderr)
        return EXIT_BAD_INPUT

    demo.set_defaults(func=handle_no_action)
    return demo


# ----------------------------------------------------------------------------- output helpers


def _utf8_stdout() -> bool:
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "")
    return encoding in {"utf8", "utf16", "utf32"}


def _prepare_stdout() -> None:
    # Titles use symbols such as − · ω; never crash on a terminal that cannot show them.
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(errors="replace")
        except (ValueError, OSError):  # pragma: no cover - exotic streams
            pass


def _error(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def format_table(columns: Sequence[str], rows: Sequence[Sequence[Any]], indent: str = "  ") -> list[str]:
    """Aligned text table: numbers right-aligned, text left-aligned, a rule under the header."""
    cells = [[format_value(v) for v in row] for row in rows]
    n_cols = max([len(columns)] + [len(r) for r in cells]) if cells or columns else 0
    header = list(columns) + [""] * (n_cols - len(columns))
    widths = [_cells(h) for h in header]
    for row in cells:
        for c, text in enumerate(row):
            widths[c] = max(widths[c], _cells(text))
    numeric = [all(_is_number(r[c]) for r in rows if c < len(r) and r[c] != "") for c in range(n_cols)]
    lines = [indent + "  ".join(_pad(h, w) for h, w in zip(header, widths)).rstrip()]
    lines.append(indent + "  ".join("-" * w for w in widths))
    for row in cells:
        padded = row + [""] * (n_cols - len(row))
        parts = [_pad(text, w, right=numeric[c]) for c, (text, w) in enumerate(zip(padded, widths))]
        lines.append(indent + "  ".join(parts).rstrip())
    return lines


def _cells(text: str) -> int:
    """Terminal columns of `text`: a Chinese character takes two."""
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int, *, right: bool = False) -> str:
    gap = " " * max(0, width - _cells(text))
    return gap + text if right else text + gap


# The labels of `demo run`'s report: (English, Chinese). posenc_ref cannot import quizbank, whose
# quizbank/cli_text.py holds the other commands' prose; `posenc` resolves the language for both.
LABELS: dict[str, tuple[str, str]] = {
    "claim": ("Claim: {text}", "结论：{text}"),
    "params": ("Params: {text}", "参数：{text}"),
    "device": ("Device: {text}", "设备：{text}"),
    "series": (
        "Series (plotted in the app; full data with --json)",
        "曲线（在应用中绘图；完整数据用 --json）",
    ),
    "series_line": ("  {title}: {n} points of {names}", "  {title}：{names}，各 {n} 个点"),
    "matrices": (
        "Matrices (heatmaps in the app; full data with --json)",
        "矩阵（在应用中显示为热图；完整数据用 --json）",
    ),
    "checks": ("Checks", "自检"),
    "exact": ("exact", "精确相等"),
    "error": (
        "max |error| {error} {relation} tolerance {tolerance}",
        "最大 |误差| {error} {relation} 容差 {tolerance}",
    ),
    "values": ("Values", "数值"),
    "notes": ("Notes", "说明"),
    "all_passed": ("{passed}/{total} checks passed (all passed)", "{passed}/{total} 项自检通过（全部通过）"),
    "some_failed": (
        "{passed}/{total} checks passed ({failed} FAILED)",
        "{passed}/{total} 项自检通过（{failed} 项未通过）",
    ),
}


def _label(key: str, lang: str, **fields: Any) -> str:
    en, zh = LABELS[key]
    return (zh if lang == "zh" else en).format(**fields)


def _zh(english: str, chinese: str, lang: str) -> str:
    """`chinese` in Chinese when the demo has it, else the English text."""
    return chinese if lang == "zh" and chinese else english


def format_result(result: Any, lang: str = "en") -> str:
    """The readable report of a DemoResult, in `lang` ("en" or "zh": the demo's Chinese texts where it
    has them)."""
    ok, bad = ("✓", "✗") if _utf8_stdout() else ("PASS", "FAIL")
    title = _zh(result.title, getattr(result, "title_zh", ""), lang)
    out: list[str] = [
        f"{result.name}: {title}",
        _label("claim", lang, text=_zh(result.claim, getattr(result, "claim_zh", ""), lang)),
    ]
    if result.params:
        params = " ".join(f"{k}={format_value(v)}" for k, v in result.params.items())
        out.append(_label("params", lang, text=params))
    out.append(_label("device", lang, text=f"{result.device} · {result.dtype} · {result.elapsed_ms:.2f} ms"))
    for table in result.tables:
        columns = table.columns_zh if lang == "zh" and table.columns_zh else table.columns
        out += ["", _zh(table.title, table.title_zh, lang)]
        out += format_table(columns, table.rows)
    if result.series:
        out += ["", _label("series", lang)]
        for s in result.series:
            names = ", ".join(s.ys)
            out.append(
                _label("series_line", lang, title=_zh(s.title, s.title_zh, lang), n=len(s.x), names=names)
            )
    if result.matrices:
        out += ["", _label("matrices", lang)]
        for m in result.matrices:
            cols = len(m.values[0]) if m.values else 0
            out.append(f"  {_zh(m.title, m.title_zh, lang)}: {len(m.values)}×{cols}")
    out += ["", _label("checks", lang)]
    for c in result.checks:
        mark = ok if c.passed else bad
        if c.tolerance == 0 and c.max_abs_error == 0:
            detail = _label("exact", lang)
        else:
            relation = "≤" if c.passed else ">"
            detail = _label(
                "error",
                lang,
                error=format_value(c.max_abs_error),
                relation=relation,
                tolerance=format_value(c.tolerance),
            )
        out.append(f"  {mark} {_zh(c.claim, c.claim_zh, lang)}  ({detail})")
    if result.values:
        out += ["", _label("values", lang)]
        width = max(len(k) for k in result.values)
        out += [f"  {k.ljust(width)}  {format_value(v)}" for k, v in result.values.items()]
    if result.notes:
        notes_zh = list(getattr(result, "notes_zh", None) or [])
        out += ["", _label("notes", lang)]
        out += [
            f"  - {_zh(n, notes_zh[i] if i < len(notes_zh) else '', lang)}"
            for i, n in enumerate(result.notes)
        ]
    passed, total = sum(c.passed for c in result.checks), len(result.checks)
    if passed == total:
        out += ["", _label("all_passed", lang, passed=passed, total=total)]
    else:
        out += ["", _label("some_failed", lang, passed=passed, total=total, failed=total - passed)]
    return "\n".join(out)


def _describe_param(p: Any) -> tuple[str, str, str]:
    return f"{p.name}={format_value(p.default)}", p.describe_bounds(), p.help


def _describe_values(demo: Any) -> list[str]:
    """The demo's named values: name, unit and one-line meaning each (conditional ones say when)."""
    specs = list(demo.value_specs)
    if not specs:
        return []
    w0 = max(len(v.name) for v in specs)
    w1 = max(len(v.unit) for v in specs)
    lines = ["    values:"]
    for v in specs:
        when = f" (only when {v.when})" if v.when else ""
        lines.append(f"      {v.name.ljust(w0)}  {v.unit.ljust(w1)}  {v.meaning}{when}".rstrip())
    return lines


def format_listing(demos: Sequence[Any]) -> str:
    out: list[str] = []
    width = max((len(d.name) for d in demos), default=0)
    for d in demos:
        out.append(f"{d.name.ljust(width)}  {d.title}")
        described = [_describe_param(p) for p in d.params]
        if described:
            w0 = max(len(a) for a, _, _ in described)
            w1 = max(len(b) for _, b, _ in described)
            out += [f"    {a.ljust(w0)}  {b.ljust(w1)}  {c}".rstrip() for a, b, c in described]
        else:
            out.append("    (no parameters)")
        out += _describe_values(d)
    out += [
        "",
        f"{len(demos)} demos. Run one with: posenc demo run NAME [param=value ...] [--device ...] [--json]",
    ]
    return "\n".join(out)


# ----------------------------------------------------------------------------- handlers


def handle_list(args: argparse.Namespace) -> int:
    from .demos import list_demos

    _prepare_stdout()
    demos = list_demos()
    if args.json:
        print(json.dumps([d.to_dict() for d in demos], ensure_ascii=not _utf8_stdout(), indent=2))
    else:
        print(format_listing(demos))
    return EXIT_OK


def parse_assignments(items: Sequence[str]) -> dict[str, str]:
    """``["dim=16", "k=-3"]`` -> ``{"dim": "16", "k": "-3"}``. Raises ValueError with a one-line reason."""
    params: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ValueError(f"malformed parameter {item!r}: expected param=value, e.g. dim=16")
        if key in params:
            raise ValueError(f"parameter {key!r} given twice")
        params[key] = value
    return params


def handle_run(args: argparse.Namespace) -> int:
    from .demos import DemoError, get_demo, run_demo
    from .device import VALID_DEVICES
    from .heap import release_freed_memory

    _prepare_stdout()
    release_freed_memory()  # the run's resident memory stays within the demo's estimate (the budget)
    device = (args.device or "auto").strip().lower()
    kind, _, index = device.partition(":")
    if kind not in VALID_DEVICES or (index and (kind != "cuda" or not index.isdigit())):
        return _error(f"unknown device {args.device!r}; choose one of {', '.join(VALID_DEVICES)} (or cuda:N)")
    try:
        params = parse_assignments(args.params)
    except ValueError as exc:
        return _error(str(exc))
    try:
        get_demo(args.name)  # unknown names fail here, before torch is imported
        result = run_demo(args.name, params, device=device)
    except DemoError as exc:
        return _error(str(exc))
    except Exception as exc:  # a demo that crashed: one line, unless debugging
        from .device import DeviceUnavailableError

        if isinstance(exc, DeviceUnavailableError):
            return _error(str(exc))
        if os.environ.get("POSENC_DEBUG"):
            raise
        print(f"error: demo {args.name!r} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=not _utf8_stdout(), indent=2))
    else:
        print(format_result(result, lang=getattr(args, "language", None) or "en"))
    return EXIT_OK if result.passed else EXIT_FAILED


# ----------------------------------------------------------------------------- standalone entry


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="posenc", description="posenc live demos")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``demo ...`` without the rest of the ``posenc`` command (used by ``python -m posenc_ref.cli``)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
