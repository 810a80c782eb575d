"""Where bank files are found: the shipped folder, the user's folder, `--bank` folders.

Light on purpose (no pydantic, no YAML): the app's first second uses it to decide whether the
shipped-bank cache applies before anything heavy is imported.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = [
    "BANK_SUFFIXES",
    "ENV_BANK_DIR",
    "SHIPPED_LANGUAGES",
    "bank_files_in",
    "display_path",
    "shipped_alone",
    "shipped_bank_dir",
    "shipped_bank_files",
    "user_bank_dir",
]

ENV_BANK_DIR = "POSENC_BANK_DIR"
BANK_SUFFIXES = (".yaml", ".yml")
SHIPPED_LANGUAGES: tuple[str, ...] = ("en", "zh")  # every shipped text has both


def shipped_bank_dir() -> Path:
    """The folder of the shipped bank files (inside the installed package)."""
    return Path(__file__).resolve().parent / "data"


def shipped_bank_files() -> list[Path]:
    """The shipped bank files, in load order."""
    folder = shipped_bank_dir()
    return sorted(f for f in folder.glob("*.yaml") if f.is_file()) if folder.is_dir() else []


def user_bank_dir() -> Path:
    """The user's bank folder: $POSENC_BANK_DIR, else <platform config dir>/posenc/banks."""
    env = os.environ.get(ENV_BANK_DIR)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir("posenc")) / "banks"


def bank_files_in(folder: Path) -> list[Path]:
    """Every *.yaml / *.yml file under `folder`, sorted, hidden folders skipped."""
    found = []
    for suffix in BANK_SUFFIXES:
        for file in folder.rglob(f"*{suffix}"):
            relative = file.relative_to(folder)
            if any(part.startswith(".") for part in relative.parts):
                continue
            if file.is_file():
                found.append(file)
    return sorted(set(found))


def shipped_alone(
    extra_paths: list[str | os.PathLike[str]] | tuple[str, ...] = (),
    *,
    include_shipped: bool = True,
    include_user: bool = True,
    user_dir: str | os.PathLike[str] | None = None,
) -> bool:
    """Whether a load is the shipped bank and nothing else (no `--bank` paths, no user bank files), so the
    shipped-bank cache may answer it. POSENC_BANK_CACHE=0 turns the cache off."""
    if os.environ.get("POSENC_BANK_CACHE", "1") == "0" or not include_shipped or extra_paths:
        return False
    if not include_user:
        return True
    folder = Path(user_dir) if user_dir is not None else user_bank_dir()
    return not folder.is_dir() or not bank_files_in(folder)


def display_path(path: Path) -> str:
    """How a file is named in messages: relative to the current folder when inside it."""
    try:
        resolved = path.resolve()
    except OSError:
        return str(path)
    try:
        return str(resolved.relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(resolved)
