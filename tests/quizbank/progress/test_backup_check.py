"""Issue 8, cases 3 and 4: progress import validates every field before writing (exit 2, one line naming
the record, never a value the store cannot read back), and exports write through symlinks, straight into
FIFOs, and atomically for regular files."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import threading
import zipfile
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.export_bank import load_fixture_bankset, main, write_fixture_bank
from support.paths import ROOT

from quizbank.progress.backup import BackupError, export_backup, import_backup, parse_backup
from quizbank.progress.store import open_store


@pytest.fixture(autouse=True)
def no_user_banks(tmp_path, monkeypatch):
    monkeypatch.setenv("POSENC_BANK_DIR", str(tmp_path / "no-user-banks"))
    monkeypatch.delenv("POSENC_DATA_DIR", raising=False)


def _backup(review: dict | None = None, **extra) -> dict:
    base = {
        "question_id": "q.one",
        "rating": 3,
        "reviewed_at": "2025-03-01T09:00:00+00:00",
        "duration_ms": 1000,
    }
    return {
        "format": "posenc-progress",
        "version": 1,
        "cards": [],
        "reviews": [{**base, **(review or {})}],
        **extra,
    }


def _import(tmp_path: Path, data: dict | str, capsys) -> tuple[int, str]:
    path = tmp_path / "backup.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    code = main(["--data-dir", str(tmp_path / "data"), "progress", "import", str(path)])
    return code, capsys.readouterr().err


def _store_still_reads(tmp_path: Path, capsys) -> dict:
    assert main(["--data-dir", str(tmp_path / "data"), "progress", "export"]) == 0
    assert main(["--data-dir", str(tmp_path / "data"), "progress", "stats"]) == 0
    out = capsys.readouterr().out
    return json.loads(out[: out.rindex("}") + 1])


@pytest.mark.parametrize(
    ("review", "where"),
    [
        ({"duration_ms": 2**70}, "reviews[0].duration_ms"),  # beyond SQLite's 64-bit integers
        ({"duration_ms": 86_400_001}, "reviews[0].duration_ms"),  # more than a day
        ({"duration_ms": -1}, "reviews[0].duration_ms"),
        ({"reviewed_at": "9999-12-31T23:59:59-05:00"}, "reviews[0].reviewed_at"),  # overflows at UTC
        ({"reviewed_at": "0001-01-01T00:00:00+01:00"}, "reviews[0].reviewed_at"),  # underflows at UTC
        ({"reviewed_at": "0999-06-01T00:00:00+00:00"}, "reviews[0].reviewed_at"),  # stored as '999-...'
        ({"reviewed_at": "2200-01-01T00:00:00+00:00"}, "reviews[0].reviewed_at"),
        ({"reviewed_at": "1969-12-31T23:59:59+00:00"}, "reviews[0].reviewed_at"),
        ({"question_id": "q\ud800"}, "reviews[0].question_id"),  # a lone surrogate
        ({"question_id": "q\x1b]0;x\x07"}, "reviews[0].question_id"),
        ({"question_id": "q" * 201}, "reviews[0].question_id"),
        ({"question_id": "a\nb"}, "reviews[0].question_id"),
        ({"rating": 5}, "reviews[0].rating"),
    ],
)
def test_bad_fields_exit_2_with_one_line_naming_the_record(tmp_path, capsys, review, where):
    code, err = _import(tmp_path, _backup(review), capsys)
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("posenc: error: malformed backup: ") and where in err
    assert "Traceback" not in err
    assert _store_still_reads(tmp_path, capsys)["reviews"] == []  # nothing was written


def test_edges_of_the_window_are_accepted(tmp_path, capsys):
    data = _backup({"duration_ms": 86_400_000, "reviewed_at": "1970-01-01T00:00:00+00:00"})
    data["reviews"].append(
        {"question_id": "q.two", "rating": 1, "reviewed_at": "2199-12-31T23:59:59+00:00", "duration_ms": 0}
    )
    code, err = _import(tmp_path, data, capsys)
    assert code == 0, err
    exported = _store_still_reads(tmp_path, capsys)
    assert [r["reviewed_at"][:4] for r in exported["reviews"]] == ["1970", "2199"]


@pytest.mark.parametrize(
    ("card", "where"),
    [
        ({"stability": 1e300}, "cards[0].stability"),
        ({"difficulty": 11.0}, "cards[0].difficulty"),
        ({"step": 2**63}, "cards[0].step"),
        ({"due": "0999-01-01T00:00:00+00:00"}, "cards[0].due"),
        ({"last_review": "9999-12-31T23:59:59-01:00"}, "cards[0].last_review"),
    ],
)
def test_bad_card_fields_are_refused(tmp_path, capsys, card, where):
    good = {"question_id": "c.one", "state": 2, "step": None, "stability": 3.0, "difficulty": 5.0}
    good |= {"due": "2025-03-05T00:00:00+00:00", "last_review": "2025-03-01T00:00:00+00:00"}
    data = {"format": "posenc-progress", "version": 1, "cards": [{**good, **card}], "reviews": []}
    code, err = _import(tmp_path, data, capsys)
    assert code == 2 and where in err and err.count("\n") == 1


def test_attempt_response_and_settings_are_checked(tmp_path, capsys):
    attempt = {
        "question_id": "q",
        "correct": True,
        "response": "x\ud800",
        "attempted_at": "2025-01-01T00:00:00Z",
    }
    code, err = _import(tmp_path, _backup(attempts=[attempt]), capsys)
    assert code == 2 and "attempts[0].response: contains U+D800 (lone surrogate)" in err
    code, err = _import(tmp_path, _backup(settings={"keymap": {"posenc.x": "\x1b[31m"}}), capsys)
    assert code == 2 and "settings.keymap['posenc.x']" in err and "\x1b" not in err


def test_deep_json_is_one_line_not_a_traceback(tmp_path, capsys):
    code, err = _import(tmp_path, "[" * 100_000 + "]" * 100_000, capsys)
    assert code == 2 and err.count("\n") == 1 and "nested too deeply" in err


def test_huge_file_is_refused_before_reading(tmp_path, capsys):
    path = tmp_path / "huge.json"
    with path.open("wb") as handle:  # sparse: no disk used, and it is never read
        handle.truncate(257 * 1024 * 1024)
    code = main(["--data-dir", str(tmp_path / "data"), "progress", "import", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and "over the 256 MiB limit for a backup" in err


REVIEW_TIMES = st.datetimes(
    min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(UTC)
).flatmap(
    lambda moment: st.integers(-23 * 60, 23 * 60).map(
        lambda minutes: moment.replace(tzinfo=timezone(timedelta(minutes=minutes))).isoformat()
    )
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    at=REVIEW_TIMES,
    duration=st.one_of(st.none(), st.integers(-(2**64), 2**64)),
    qid=st.text(min_size=0, max_size=210),
)
def test_anything_accepted_can_be_read_back(tmp_path_factory, at, duration, qid):
    """Property: a backup is refused with BackupError, or imported into a store that then exports and
    re-parses it unchanged: never a crash, never a value the store cannot read back."""
    data = _backup({"reviewed_at": at, "duration_ms": duration, "question_id": qid})
    try:
        parse_backup(data)
    except BackupError as exc:
        assert len(str(exc).splitlines()) == 1
        return
    folder = tmp_path_factory.mktemp("prop")
    with open_store(folder) as store:
        import_backup(store, data)
        exported = export_backup(store)
    again = parse_backup(json.loads(json.dumps(exported)))
    assert len(again.reviews) == 1 and again.reviews[0][0] == qid and again.reviews[0][3] == duration


# ---------------------------------------------------------------------------------------------------- exports


def _seeded(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    with open_store(folder) as store:
        store.review("q.one", 3, datetime(2025, 3, 1, tzinfo=UTC), duration_ms=1000)
    return folder


def test_progress_export_writes_through_a_symlink(tmp_path, capsys):
    data = _seeded(tmp_path)
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
    data = _seeded(tmp_path)
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
from quizbank.progress.markdown_export import write_markdown
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
    from quizbank.progress.markdown_export import write_markdown

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


def test_a_store_broken_by_an_older_posenc_gives_one_line(tmp_path, capsys):
    """Before the import checks, a year-0999 review was stored as '999-...'; reading it must not crash."""
    import sqlite3

    data = _seeded(tmp_path)
    conn = sqlite3.connect(data / "progress.db")
    with conn:
        conn.execute("UPDATE reviews SET reviewed_at = '999-06-01T00:00:00.000000+00:00'")
    conn.close()
    for action in ("export", "stats"):
        assert main(["--data-dir", str(data), "progress", action]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "progress store holds an unreadable value" in err
