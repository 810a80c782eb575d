"""Problems found in question banks, each tied to a place in a file.

A problem prints as ``path:line:col: message`` (1-based line and column), the form editors and
terminals turn into links. A problem about a whole file (it does not exist, it is too big) has
line 0 and prints as ``path: message``. Paths and messages hold text from files and file names, so
both print with control and bidi characters escaped (`quizbank.safetext`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from .safetext import escape_unsafe

ERROR = "error"
WARNING = "warning"


class Location(NamedTuple):
    """Where something is defined: a file path and a 1-based line and column (0: the whole file).

    A NamedTuple, so that the loader's many locations stay cheap for the garbage collector."""

    path: str
    line: int = 0
    col: int = 0

    def __str__(self) -> str:
        path = escape_unsafe(self.path, one_line=True)
        if self.line <= 0:
            return path
        return f"{path}:{self.line}:{self.col}"


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with a bank. `severity` is "error" (the file is rejected) or "warning"."""

    path: str
    line: int
    col: int
    message: str  # one line
    severity: str = ERROR
    # lines of the file around the problem, printed under it (a YAML indentation error); "" for none
    excerpt: str = field(default="", compare=False)

    def __str__(self) -> str:
        path = escape_unsafe(self.path, one_line=True)
        where = path if self.line <= 0 else f"{path}:{self.line}:{self.col}"
        prefix = "warning: " if self.severity == WARNING else ""
        below = f"\n{escape_unsafe(self.excerpt)}" if self.excerpt else ""
        return f"{where}: {prefix}{escape_unsafe(self.message)}{below}"

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR

    @property
    def location(self) -> Location:
        return Location(self.path, self.line, self.col)

    @classmethod
    def at(cls, where: Location, message: str, severity: str = ERROR) -> Problem:
        return cls(where.path, where.line, where.col, message, severity)


def has_errors(problems: list[Problem]) -> bool:
    return any(p.is_error for p in problems)
