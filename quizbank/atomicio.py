"""Writing files the app produces, so that a kill or a full disk never leaves half a file.

* A regular file (or a new path) is written to a temporary file in the same folder, flushed,
  fsynced, then renamed over the target, and the folder is fsynced so the rename itself is on disk:
  the previous good file survives any failure. A new file gets the mode the process's umask gives
  (the kernel applies it when the temporary file is created; the umask is never changed, which
  would race with other threads creating files).
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
import secrets
import stat
import sys
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
    handle, tmp = _create_temporary(target)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if keep_mode is not None:
            os.chmod(tmp, keep_mode)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_folder(target.parent)
    return target


def _create_temporary(target: Path) -> tuple[int, Path]:
    """A new file beside `target`, opened for writing, mode 0o666 less the umask (applied by the kernel)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = target.parent / f".{target.name}.{secrets.token_hex(4)}.tmp"
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(17, "No free temporary name", str(target.parent))


def _fsync_folder(folder: Path) -> None:
    """Make a rename in `folder` durable. Where folders cannot be opened or synced (Windows), skip it."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_text_atomic(path: str | os.PathLike[str], text: str, *, mode: int | None = None) -> Path:
    """`write_bytes_atomic` for UTF-8 text."""
    return write_bytes_atomic(path, text.encode("utf-8"), mode=mode)
