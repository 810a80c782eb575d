"""Atomic writes, and standard output named as a path: `posenc progress export --out /dev/stdout >> log`
appends to `log` (it used to replace it: the path resolves to `log`), and `| cat` gets the backup (it used
to fail). Real shells and processes, since what matters is the descriptor the shell hands over."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import ROOT

from quizbank.atomicio import stream_descriptor, write_text_atomic


def posenc_export(tmp_path: Path, shell_tail: str, out: str = "/dev/stdout") -> subprocess.CompletedProcess:
    env = {**os.environ, "POSENC_DATA_DIR": str(tmp_path / "data"), "POSENC_BANK_DIR": str(tmp_path / "none")}
    command = f"{sys.executable} -m tui progress export --out {out} {shell_tail}"
    return subprocess.run(
        ["bash", "-c", command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.parametrize("out", ["/dev/stdout", "-", "/dev/fd/1", "/proc/self/fd/1"])
def test_export_to_stdout_appends_to_a_redirected_log(tmp_path: Path, out: str) -> None:
    log = tmp_path / "log"
    log.write_text("earlier line\n", encoding="utf-8")
    done = posenc_export(tmp_path, f">> {log}", out)
    assert done.returncode == 0, done.stderr
    text = log.read_text(encoding="utf-8")
    assert text.startswith("earlier line\n{")  # appended, not replaced
    backup = json.loads(text.removeprefix("earlier line\n"))
    assert backup["format"] == "posenc-progress" and backup["reviews"] == []
    assert not list(tmp_path.glob(".log.*"))  # no temporary file beside it


def test_export_to_stdout_writes_into_a_pipe(tmp_path: Path) -> None:
    done = posenc_export(tmp_path, "| cat")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["format"] == "posenc-progress"
    assert not list(Path(ROOT).glob("pipe:*"))


def test_a_named_pipe_is_written_into(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE, text=True)
    write_text_atomic(fifo, "through the pipe\n")
    out, _ = reader.communicate(timeout=30)
    assert out == "through the pipe\n" and fifo.is_fifo()


def test_a_regular_file_is_still_replaced_atomically(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_text("old", encoding="utf-8")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert write_text_atomic(link, "new") == target
    assert target.read_text(encoding="utf-8") == "new" and link.is_symlink()


@pytest.mark.parametrize(
    ("path", "fd"),
    [("-", 1), ("/dev/stdout", 1), ("/dev/stderr", 2), ("/dev/fd/3", 3), ("/proc/self/fd/7", 7),
     ("./-", None), ("/dev/stdout2", None), ("/tmp/dev/stdout", None)],
)  # fmt: skip
def test_stream_descriptor(path: str, fd: int | None) -> None:
    assert stream_descriptor(path) == fd


def test_a_new_file_gets_the_umask_mode_without_the_umask_being_touched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    previous = os.umask(0o027)
    try:

        def no_toggle(mask: int) -> int:
            raise AssertionError("os.umask changes the mask of every thread")

        monkeypatch.setattr(os, "umask", no_toggle)
        written = write_text_atomic(tmp_path / "new.txt", "x")
        assert oct(written.stat().st_mode & 0o777) == oct(0o640)
        (tmp_path / "kept.txt").write_text("old")
        (tmp_path / "kept.txt").chmod(0o604)
        assert oct(write_text_atomic(tmp_path / "kept.txt", "y").stat().st_mode & 0o777) == oct(0o604)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.txt", "new.txt"]  # no temporary left
    finally:
        monkeypatch.undo()
        os.umask(previous)


def test_the_folder_is_fsynced_after_the_rename(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import stat

    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        events.append("fsync folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else "fsync file")
        real_fsync(fd)

    def replace(src: str, dst: str) -> None:
        events.append("rename")
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    write_text_atomic(tmp_path / "out.txt", "data")
    assert events == ["fsync file", "rename", "fsync folder"]
    assert (tmp_path / "out.txt").read_text() == "data"
