"""Exports as files on disk: `posenc progress export`, `export anki` and `export markdown` write through a
symlink, straight into a FIFO, and atomically for regular files (a failed write keeps the previous file
whole)."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import threading
import zipfile

import pytest
from support.export_bank import load_fixture_bankset, main, seeded_data_dir, write_fixture_bank
from support.paths import ROOT

pytestmark = pytest.mark.usefixtures("env")  # data and user banks in tmp_path (conftest)


def test_progress_export_writes_through_a_symlink(tmp_path, capsys):
    data = seeded_data_dir(tmp_path)
    synced = tmp_path / "synced"
    synced.mkdir()
    target = synced / "backup.json"
    target.write_text("old", encoding="utf-8")
    link = tmp_path / "backup-link.json"
    link.symlink_to(target)
    assert main(["--data-dir", str(data), "progress", "export", "--out", str(link)]) == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert json.loads(target.read_text(encoding="utf-8"))["reviews"][0]["question_id"] == "q.one"
    assert sorted(p.name for p in synced.iterdir()) == ["backup.json"]  # no temp file left behind


def test_progress_export_writes_straight_into_a_fifo(tmp_path, capsys):
    data = seeded_data_dir(tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    assert main(["--data-dir", str(data), "progress", "export", "--out", str(fifo)]) == 0
    reader.join(10)
    assert fifo.is_fifo()  # still a FIFO, not replaced by a regular file
    assert received, "nothing was written into the FIFO"
    assert json.loads(received[0])["reviews"][0]["question_id"] == "q.one"


@pytest.mark.slow
def test_anki_export_keeps_the_previous_package_when_writing_fails(tmp_path, capsys, monkeypatch):
    bank = write_fixture_bank(tmp_path)
    out = tmp_path / "deck.apkg"
    assert main(["--bank", str(bank), "export", "anki", str(out)]) == 0
    good = out.read_bytes()

    def disk_full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(zipfile.ZipFile, "writestr", disk_full)
    assert main(["--bank", str(bank), "export", "anki", str(out)]) == 1
    assert "No space left on device" in capsys.readouterr().err
    assert out.read_bytes() == good  # the previous good package survives
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".deck")) == []


@pytest.mark.slow
def test_anki_export_writes_through_a_symlink(tmp_path, capsys):
    bank = write_fixture_bank(tmp_path)
    (tmp_path / "real").mkdir()
    link = tmp_path / "deck.apkg"
    link.symlink_to(tmp_path / "real" / "deck.apkg")
    assert main(["--bank", str(bank), "export", "anki", str(link)]) == 0
    assert link.is_symlink() and zipfile.is_zipfile(tmp_path / "real" / "deck.apkg")


MARKDOWN_ON_A_FULL_DISK = """
import resource, signal, sys
sys.path.insert(0, sys.argv[3])
from support.export_bank import load_fixture_bankset
from quizbank.exports.markdown import write_markdown
from pathlib import Path
bankset = load_fixture_bankset(Path(sys.argv[1]))
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[2]), resource.RLIM_INFINITY))
try:
    write_markdown(bankset, Path(sys.argv[1]) / "md")
except OSError as exc:
    print("failed", exc.errno)
"""


def test_markdown_export_leaves_no_partial_file_on_a_full_disk(tmp_path):
    bankset = load_fixture_bankset(tmp_path)
    from quizbank.exports.markdown import write_markdown

    first = write_markdown(bankset, tmp_path / "md")
    before = {p.name: p.read_bytes() for p in first.files}
    for p in first.files:  # the next export must either replace a file whole or keep it
        p.write_bytes(b"previous " + p.name.encode())
    limit = min(len(b) for b in before.values()) // 2
    proc = subprocess.run(
        [sys.executable, "-c", MARKDOWN_ON_A_FULL_DISK, str(tmp_path), str(limit), str(ROOT / "tests")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.stdout.startswith("failed"), proc.stdout + proc.stderr
    for p in first.files:
        assert p.read_bytes() == b"previous " + p.name.encode()  # kept whole: not 0 bytes, not half
    assert [p.name for p in (tmp_path / "md").iterdir() if p.name.startswith(".")] == []
