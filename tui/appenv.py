"""Settings a parent process hands the app through its environment (`posenc serve` does, for each tab's app).

- `POSENC_DRILL_WORKSPACE=DIR`: the folder of this app's drill files, instead of `<data dir>/drills`. The server
  gives every app process (so every browser tab) a folder of its own: two tabs on one drill never share a file,
  and a save in one tab never re-grades another.
- `POSENC_CODE_OFF=1`: nothing the user writes is run (the Drill screen says why and grades nothing). Set by
  `posenc serve --public` without `--allow-code`: whoever can reach such a server must not run programs on it.

Standard library only: the server imports this without Textual.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["CODE_OFF_ENV", "WORKSPACE_ENV", "code_off", "workspace_override"]

WORKSPACE_ENV = "POSENC_DRILL_WORKSPACE"
CODE_OFF_ENV = "POSENC_CODE_OFF"


def workspace_override() -> Path | None:
    """The drill folder the parent chose, or None."""
    value = os.environ.get(WORKSPACE_ENV)
    return Path(value).expanduser() if value else None


def code_off() -> bool:
    """Whether running the user's code is off in this app."""
    return os.environ.get(CODE_OFF_ENV) == "1"
