"""Writing files the app produces, so that a kill or a full disk never leaves half a file.

* A regular file (or a new path) is written to a temporary file in the same folder, flushed,
  fsynced, then renamed over the target: the previous good file survives any failure.
* A symlink is followed: the write goes to its final target, and the link stays a link.
* A FIFO or character device (`/dev/stdout`, a pipe) is written straight into; it cannot be
  replaced and has no previous content to protect.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

__all__ = ["resolve_target", "write_bytes_atomic", "write_text_atomic"]


def resolve_target(path: str | os.PathLike[str]) -> Path:
    """The path a write to `path` should really go to: symlinks followed (even dangling ones)."""
    return Path(os.path.realpath(os.fspath(path)))


def _is_stream(path: Path) -> bool:
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes, *, mode: int | None = None) -> Path:
    """Write `data` to `path` atomically (see the module docstring). Returns the path written.

    `mode` sets the permissions of a new file; an existing file keeps its own."""
    target = resolve_target(path)
    if _is_stream(target):
        with open(target, "wb") as out:
            out.write(data)
        return target
    if target.is_dir():
        raise IsADirectoryError(21, "Is a directory", str(target))
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        keep_mode: int | None = stat.S_IMODE(target.stat().st_mode)
    except OSError:
        keep_mode = mode
    handle, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if keep_mode is not None:
            os.chmod(tmp, keep_mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def write_text_atomic(path: str | os.PathLike[str], text: str, *, mode: int | None = None) -> Path:
    """`write_bytes_atomic` for UTF-8 text."""
    return write_bytes_atomic(path, text.encode("utf-8"), mode=mode)
