"""Settings a parent process hands the app through its environment (`posenc serve` does, for each tab's app).

- `POSENC_DRILL_WORKSPACE=DIR`: the folder of this app's drill files, instead of `<data dir>/drills`. The server
  gives every app process (so every browser tab) a folder of its own: two tabs on one drill never share a file,
  and a save in one tab never re-grades another.
- `POSENC_CODE_OFF=1`: nothing the user writes is run. Set by `posenc serve --public` without `--allow-code`:
  whoever can reach such a server must not run programs on it. The grader itself refuses
  (`quizbank.drills.codeoff`), so every path that grades (the Drill screen, the Mock interview's drill, a
  Study drill card, `$EDITOR` saves, the file watcher) runs nothing; each says why.

No Textual: the server imports this.
"""

from __future__ import annotations

import os
from pathlib import Path

from quizbank.drills.codeoff import CODE_OFF_ENV, code_off

__all__ = ["CODE_OFF_ENV", "WORKSPACE_ENV", "code_off", "workspace_override"]

WORKSPACE_ENV = "POSENC_DRILL_WORKSPACE"


def workspace_override() -> Path | None:
    """The drill folder the parent chose, or None."""
    value = os.environ.get(WORKSPACE_ENV)
    return Path(value).expanduser() if value else None
