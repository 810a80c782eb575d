"""posenc's cache folder: $POSENC_CACHE_DIR, else the platform's user cache folder (platformdirs).

The loaded-bank cache (`bank_cache`) and the judge's Chinese dictionary cache (`judge.text`) live here.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["CACHE_ENV", "cache_dir"]

CACHE_ENV = "POSENC_CACHE_DIR"


def cache_dir() -> Path:
    folder = os.environ.get(CACHE_ENV)
    if folder:
        return Path(folder).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("posenc"))
