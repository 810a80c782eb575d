"""Writing files the app produces, so that a kill or a full disk never leaves half a file.

* A regular file (or a new path) is written to a temporary file in the same folder, flushed,
  fsynced, then renamed over the target: the previous good file survives any failure.
* A symlink is followed: the write goes to its final target, and the link stays a link.
* A FIFO or character device (a named pipe, `/dev/null`, a terminal) is written straight into; it
  cannot be replaced and has no previous content to protect.
* Standard output or error named as a path (`-`, `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`,
  `/proc/self/fd/N`) is written as a stream into the descriptor this process already holds,
  whatever it is: `--out /dev/stdout >> log` appends to `log` (the path resolves to `log`, which
  an atomic write would replace), and `--out /dev/stdout | cat` writes into the pipe.
"""

from __future__ import annotations

import os
import re
import stat
import sys
import tempfile
from pathlib import Path

__all__ = ["resolve_target", "stream_descriptor", "write_bytes_atomic", "write_text_atomic"]


def resolve_target(path: str | os.PathLike[str]) -> Path:
    """The path a write to `path` should really go to: symlinks followed (even dangling ones)."""
    return Path(os.path.realpath(os.fspath(path)))


def _is_stream(path: Path) -> bool:
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


_DESCRIPTOR_PATH = re.compile(r"/dev/(stdout|stderr)|/dev/fd/(\d+)|/proc/self/fd/(\d+)")


def stream_descriptor(path: str | os.PathLike[str]) -> int | None:
    """The open descriptor `path` names (`-` and `/dev/stdout` are 1, `/dev/fd/N` is N), or None."""
    text = os.fspath(path)
    if text == "-":
        return 1
    match = _DESCRIPTOR_PATH.fullmatch(text)
    if match is None:
        return None
    if match.group(1):
        return 1 if match.group(1) == "stdout" else 2
    return int(match.group(2) or match.group(3))


def _write_descriptor(fd: int, data: bytes) -> None:
    for stream in (sys.stdout, sys.stderr):  # what Python has buffered goes first
        if stream is not None:
            stream.flush()
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes, *, mode: int | None = None) -> Path:
    """Write `data` to `path` atomically (see the module docstring). Returns the path written.

    `mode` sets the permissions of a new file; an existing file keeps its own."""
    fd = stream_descriptor(path)
    if fd is not None:
        _write_descriptor(fd, data)
        return Path(os.fspath(path))
    if _is_stream(Path(path)):  # a named pipe or a device, through any link: opened as named
        with open(path, "wb") as out:
            out.write(data)
        return Path(os.fspath(path))
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
