"""Check a candidate's file without running it, then load it and find its function, saying how each fails.

`precheck` runs in the grader before torch is imported: it compiles the source (a syntax error is reported in
milliseconds) and looks for the function's name anywhere in it. `load_function` runs in the grading child: it
executes the very bytes the grader compiled, never through the import system's bytecode cache, so an edit
saved within the same second and of the same size is graded fresh and no `__pycache__` is written.
"""

from __future__ import annotations

import ast
import os
import stat
import sys
import traceback
import types
from collections.abc import Callable
from typing import Any, cast

from quizbank.safetext import escape_unsafe

MODULE_NAME = "candidate_solution"
SOURCE_LIMIT_BYTES = 256 * 2**10  # a drill solution is a few KiB


class SourceFileError(OSError):
    """A candidate's file that is refused before it is read whole: not a regular file, or too large."""


def read_source(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a candidate's file, at most `SOURCE_LIMIT_BYTES`. SourceFileError (one clear line) for a
    folder, a device, a pipe or a socket, and for a larger file; OSError when it cannot be read."""
    if not stat.S_ISREG(os.stat(path).st_mode):  # before open(): opening a device or a pipe may block or act
        raise SourceFileError(_not_regular(path))
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # swapped for something else since the stat
            raise SourceFileError(_not_regular(path))
        chunks, size = [], 0
        while size <= SOURCE_LIMIT_BYTES and (chunk := os.read(fd, SOURCE_LIMIT_BYTES + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > SOURCE_LIMIT_BYTES:
        raise SourceFileError(f"larger than {SOURCE_LIMIT_BYTES // 2**10} KiB; a drill solution is a few KiB")
    return b"".join(chunks)


def _not_regular(path: str | os.PathLike[str]) -> str:
    if os.path.isdir(path):
        return "a folder, not a Python file"
    return "not a regular file (a device, a pipe or a socket), not a Python file"


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
        tree = cast(ast.Module, compile(source, path, "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True))
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
    except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt too: the file must import cleanly
        return None, f"importing your file raised {exception_text(exc)}{_line_in(exc, path)}."
    fn = getattr(module, name, None)
    if fn is None:
        return None, _missing(name)
    if not callable(fn):
        return None, f"{name!r} in your file is a {type(fn).__name__}, not a function."
    return fn, ""
