"""Import a candidate's file and find its function, describing every way that can fail."""

from __future__ import annotations

import importlib.util
import traceback
from collections.abc import Callable
from typing import Any

from quizbank.safetext import escape_unsafe


def _line_in(exc: BaseException, path: str) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == path]
    return f" at line {frames[-1].lineno}" if frames else ""


def load_function(path: str, name: str) -> tuple[Callable[..., Any] | None, str]:
    """`(function, "")`, or `(None, what went wrong)` in words a candidate can act on."""
    spec = importlib.util.spec_from_file_location("candidate_solution", path)
    if spec is None or spec.loader is None:
        return None, f"cannot import {escape_unsafe(path, one_line=True)} as a Python file."
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        where = f"line {exc.lineno}" + (f", column {exc.offset}" if exc.offset else "")
        return None, f"syntax error at {where}: {escape_unsafe(str(exc.msg), one_line=True)}."
    except BaseException as exc:  # SystemExit and KeyboardInterrupt too: the file must import cleanly
        from .judging import exception_text

        return None, f"importing your file raised {exception_text(exc)}{_line_in(exc, path)}."
    fn = getattr(module, name, None)
    if fn is None:
        return None, f"your file defines no function {name!r}; keep the starter's name and signature."
    if not callable(fn):
        return None, f"{name!r} in your file is a {type(fn).__name__}, not a function."
    return fn, ""
