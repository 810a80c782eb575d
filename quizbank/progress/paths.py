"""Where the progress store lives, and a quick look at one saved setting without opening the store.

Light on purpose (stdlib only): the app reads the saved language here during its first second, before
the store module (FSRS, migrations) is imported.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

__all__ = ["DB_NAME", "ENV_DATA_DIR", "default_data_dir", "peek_setting"]

DB_NAME = "progress.db"
ENV_DATA_DIR = "POSENC_DATA_DIR"


def default_data_dir() -> Path:
    """$POSENC_DATA_DIR if set, else the platform's user data folder for 'posenc' (platformdirs)."""
    env = os.environ.get(ENV_DATA_DIR)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("posenc"))


def peek_setting(data_dir: str | os.PathLike[str] | None, key: str) -> Any:
    """The value the user saved for setting `key`, read from the store without opening it for writing, or
    None when there is no store, no such setting, or anything about the file is unexpected (the store's
    own open, which checks and repairs, decides later)."""
    import sqlite3

    path = (Path(data_dir).expanduser() if data_dir is not None else default_data_dir()) / DB_NAME
    if not path.is_file():
        return None
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=0.05)
    except (sqlite3.Error, ValueError, OSError):
        return None
    try:
        row = connection.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row is not None and isinstance(row[0], str) else None
    except (sqlite3.Error, ValueError):
        return None
    finally:
        connection.close()
