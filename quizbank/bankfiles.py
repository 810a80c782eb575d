"""Where bank files are found: the shipped folder, `--bank` paths, the user's folder.

Light on purpose (no pydantic, no YAML): the app's first second uses it to key the loaded-bank cache
before anything heavy is imported.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # quizbank.problems (~1.5 ms) loads with the first problem, not on the way to the topics
    from .problems import Problem


__all__ = [
    "BANK_SUFFIXES",
    "ENV_BANK_DIR",
    "MAX_FILE_BYTES",
    "SHIPPED",
    "USER",
    "SHIPPED_LANGUAGES",
    "bank_files_in",
    "display_path",
    "bank_sources",
    "cache_enabled",
    "expand_bank_paths",
    "shipped_bank_dir",
    "user_bank_dir",
]

ENV_BANK_DIR = "POSENC_BANK_DIR"
SHIPPED = "shipped"
USER = "user"
BANK_SUFFIXES = (".yaml", ".yml")
SHIPPED_LANGUAGES: tuple[str, ...] = ("en", "zh")  # every shipped text has both
MAX_FILE_BYTES = 5 * 1024 * 1024  # the largest bank file read (quizbank.yamlsafe refuses larger ones)
# the bank file predictions were once added to, in the user's bank folder (`quizbank.predictions` imports it)
LEGACY_PREDICTIONS_FILE = "predictions.yaml"


def shipped_bank_dir() -> Path:
    """The folder of the shipped bank files (inside the installed package)."""
    return Path(__file__).resolve().parent / "data"


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


def bank_sources(
    extra_paths: Iterable[str | os.PathLike[str]] = (),
    *,
    include_shipped: bool = True,
    include_user: bool = True,
    user_dir: str | os.PathLike[str] | None = None,
    shipped_dir: str | os.PathLike[str] | None = None,
) -> tuple[list[tuple[Path, str]], list[Problem]]:
    """Every bank file a load reads, in load order, as (path, "shipped" | "user"), and the problems of the
    `--bank` paths (a missing path, a folder without bank files)."""
    sources: list[tuple[Path, str]] = []
    if include_shipped:
        folder = Path(shipped_dir) if shipped_dir is not None else shipped_bank_dir()
        if folder.is_dir():
            sources.extend((f, SHIPPED) for f in sorted(folder.glob("*.yaml")) if f.is_file())
    files, problems = expand_bank_paths(extra_paths)
    sources.extend((f, USER) for f in files)
    if include_user:
        folder = Path(user_dir) if user_dir is not None else user_bank_dir()
        if folder.is_dir():
            sources.extend((f, USER) for f in bank_files_in(folder))
    return sources, problems


def expand_bank_paths(paths: Iterable[str | os.PathLike[str]]) -> tuple[list[Path], list[Problem]]:
    """Files named by `--bank` style paths (files as given, folders searched), plus problems."""
    files: list[Path] = []
    problems: list[Problem] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            inside = bank_files_in(path)
            if not inside:
                problems.append(_problem(raw, "folder holds no *.yaml or *.yml bank files", warning=True))
            files.extend(inside)
        elif path.exists():
            files.append(path)
        else:
            problems.append(_problem(raw, "no such file or folder"))
    return files, problems


def _problem(raw: str | os.PathLike[str], message: str, *, warning: bool = False) -> Problem:
    from .problems import ERROR, WARNING, Problem

    return Problem(str(raw), 0, 0, message, WARNING if warning else ERROR)


def cache_enabled() -> bool:
    """The loaded-bank cache is on unless POSENC_BANK_CACHE=0."""
    return os.environ.get("POSENC_BANK_CACHE", "1") != "0"


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
