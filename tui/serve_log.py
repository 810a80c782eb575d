"""The `posenc serve` log: one line per kind of trouble, repeats counted instead of printed.

A flood (300 half-open sockets, a script opening websockets in a loop, a tab that keeps failing) must not turn
the log into thousands of tracebacks. `RepeatLog.report(key, line)` prints a key's line the first time; later
reports of the same key within `window_s` only count, and the next `flush` (every `window_s`, and at shutdown)
prints `... repeated N more times`. Records of aiohttp's and textual-serve's loggers come through
`RepeatLog.handler()` the same way, one line each, keyed by their message template, never with a traceback.
Every line passes through `quizbank.safetext.escape_unsafe`: it may hold what a client sent.
"""

from __future__ import annotations

import logging
import sys
import time
from typing import TextIO

__all__ = ["RepeatLog"]

PREFIX = "posenc serve: "


class RepeatLog:
    def __init__(self, window_s: float = 10.0, stream: TextIO | None = None) -> None:
        self.window_s = window_s
        self._stream = stream
        self._last: dict[str, float] = {}  # key -> when its line was printed
        self._repeats: dict[str, tuple[int, str]] = {}  # key -> (repeats since then, its line)

    def write(self, line: str) -> None:
        """Print one line now (for a line that already sums up a window)."""
        from quizbank.safetext import escape_unsafe

        stream = self._stream or sys.stderr
        print(PREFIX + escape_unsafe(line, one_line=True), file=stream, flush=True)

    def report(self, key: str, line: str) -> None:
        now = time.monotonic()
        if now - self._last.get(key, -self.window_s) < self.window_s:
            count, _ = self._repeats.get(key, (0, line))
            self._repeats[key] = (count + 1, line)
            return
        self._flush_key(key)
        self._last[key] = now
        self.write(line)

    def _flush_key(self, key: str) -> None:
        count, line = self._repeats.pop(key, (0, ""))
        if count:
            self.write(f"{line} (repeated {count} more time{'s' if count > 1 else ''})")

    def flush(self) -> None:
        """Print the counts of what was held back."""
        for key in list(self._repeats):
            self._flush_key(key)

    def handler(self) -> logging.Handler:
        """A logging handler that reports each record here, keyed by logger and message template."""
        log = self

        class Collapse(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                try:
                    line = record.getMessage()
                except Exception:  # noqa: BLE001 - a record whose arguments do not fit its template
                    line = str(record.msg)
                line = (line.strip().splitlines() or [""])[0]
                if record.exc_info and record.exc_info[1] is not None:
                    error = record.exc_info[1]
                    line = f"{line}: {type(error).__name__}: {error}".rstrip(": ")
                key = f"{record.name}:{record.msg}:{record.exc_info and record.exc_info[0]}"
                log.report(key, line)

        return Collapse(level=logging.WARNING)
