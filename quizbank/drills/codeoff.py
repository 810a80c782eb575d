"""Whether running the user's code is off: `POSENC_CODE_OFF=1` (set by `posenc serve --public` without
`--allow-code`), checked where code is run, not in each screen.

The grader's entry points (`grade_file`, `grade_source`, `Supervisor`, `WarmGrader.refill`) call
`refuse_when_off()` before they write a file, start a process or read the candidate's source, so no screen,
present or future, can grade around it. Each UI catches `CodeOff` and says why (the Drill screen's message).
Standard library only: no torch, no Textual.
"""

from __future__ import annotations

import os

__all__ = ["CODE_OFF_ENV", "CodeOff", "code_off", "refuse_when_off"]

CODE_OFF_ENV = "POSENC_CODE_OFF"


class CodeOff(Exception):
    """Running the user's code is off here: nothing was written, started or run."""

    def __init__(self) -> None:
        super().__init__(
            "running code is off here (posenc serve --public without --allow-code): nothing was run"
        )


def code_off() -> bool:
    """Whether running the user's code is off in this process."""
    return os.environ.get(CODE_OFF_ENV) == "1"


def refuse_when_off() -> None:
    """Raise `CodeOff` when running the user's code is off."""
    if code_off():
        raise CodeOff()
