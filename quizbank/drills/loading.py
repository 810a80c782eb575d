"""Check a candidate's file without running it, then load it and find its function, saying how each fails.

`precheck` runs in the grader before torch is imported: it compiles the source (a syntax error is reported in
milliseconds) and looks for the function's name anywhere in it. `load_function` runs in the grading child: it
executes the very bytes the grader compiled, never through the import system's bytecode cache, so an edit
saved within the same second and of the same size is graded fresh and no `__pycache__` is written.
"""

from __future__ import annotations

import ast
import sys
import traceback
import types
from collections.abc import Callable
from typing import Any

from quizbank.safetext import escape_unsafe

MODULE_NAME = "candidate_solution"


MEMORY_NOTE = "out of memory: the grader limits a program to 4 GiB by default (POSENC_DRILL_MEMORY_MIB)"


def exception_text(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    text = escape_unsafe(text, one_line=True)[:300]
    if isinstance(exc, MemoryError) or "can't allocate memory" in text:
        text += f" ({MEMORY_NOTE})"
    return text


def _line_in(exc: BaseException, path: str) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == path]
    return f" at line {frames[-1].lineno}" if frames else ""


def _syntax(exc: SyntaxError | ValueError) -> str:
    if isinstance(exc, ValueError):  # "source code string cannot contain null bytes"
        return f"syntax error: {escape_unsafe(str(exc), one_line=True)}."
    where = f"line {exc.lineno}" + (f", column {exc.offset}" if exc.offset else "")
    return f"syntax error at {where}: {escape_unsafe(str(exc.msg), one_line=True)}."


def _missing(name: str) -> str:
    return f"your file defines no function {name!r}; keep the starter's name and signature."


def precheck(source: bytes, path: str, name: str) -> str:
    """'' when `source` compiles and may define `name`; otherwise what is wrong. Runs nothing."""
    try:
        tree = compile(source, path, "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
        compile(
            tree, path, "exec", dont_inherit=True
        )  # errors found after parsing ('return' outside function)
    except (SyntaxError, ValueError) as exc:
        return _syntax(exc)
    for node in ast.walk(tree):
        found = (
            (isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == name)
            or (isinstance(node, ast.Name) and node.id == name)
            or (isinstance(node, ast.alias) and name in (node.name.rsplit(".", 1)[-1], node.asname))
            or (isinstance(node, ast.Constant) and isinstance(node.value, str) and name in node.value)
            or (isinstance(node, ast.Attribute) and node.attr == name)
        )
        if found:
            return ""
    return _missing(name)  # the name appears nowhere: no way for the file to define it


def load_function(path: str, name: str, source: bytes | None = None) -> tuple[Callable[..., Any] | None, str]:
    """`(function, "")`, or `(None, what went wrong)` in words a candidate can act on."""
    if source is None:
        try:
            with open(path, "rb") as handle:
                source = handle.read()
        except OSError as exc:
            return None, f"cannot read {escape_unsafe(path, one_line=True)}: {exc.strerror or exc}."
    try:
        code = compile(source, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        return None, _syntax(exc)
    module = types.ModuleType(MODULE_NAME)
    module.__file__ = path
    sys.modules[MODULE_NAME] = module  # dataclasses and friends look their module up
    try:
        exec(code, module.__dict__)
    except BaseException as exc:  # SystemExit and KeyboardInterrupt too: the file must import cleanly
        return None, f"importing your file raised {exception_text(exc)}{_line_in(exc, path)}."
    fn = getattr(module, name, None)
    if fn is None:
        return None, _missing(name)
    if not callable(fn):
        return None, f"{name!r} in your file is a {type(fn).__name__}, not a function."
    return fn, ""
