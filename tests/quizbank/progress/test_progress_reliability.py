"""Reliability with real processes: kill -9 mid-session loses no recorded review; two writers lose nothing."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from support.paths import ROOT

from quizbank.progress.store import DB_NAME, open_store

# A study session in miniature: rate a card, and print "recorded <n> <review id> <question>" once it is committed.
REVIEW_LOOP = """
import sys, time
from quizbank.progress.scheduler import Rating
from quizbank.progress.store import open_store

data_dir, prefix, count, go_file, pause = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], float(sys.argv[5])
store = open_store(data_dir)
print("ready", flush=True)
while go_file != "-" and not __import__("os").path.exists(go_file):
    time.sleep(0.001)
n = 0
while count < 0 or n < count:
    question_id = f"{prefix}{n % 12}"
    result = store.review(question_id, Rating(n % 4 + 1), duration_ms=1500)
    n += 1
    print(f"recorded {n} {result.review_id} {question_id}", flush=True)
    time.sleep(pause)
store.close()
print("done", flush=True)
"""


def _spawn(
    data_dir: Path, prefix: str, count: int, go_file: str = "-", pause: float = 0.0
) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    return subprocess.Popen(
        [sys.executable, "-c", REVIEW_LOOP, str(data_dir), prefix, str(count), go_file, str(pause)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )


def _recorded(lines: list[str]) -> list[tuple[int, str]]:
    out = []
    for line in lines:
        parts = line.split()
        if len(parts) == 4 and parts[0] == "recorded":
            out.append((int(parts[2]), parts[3]))
    return out


def _reviews_in_db(data_dir: Path) -> dict[int, str]:
    conn = sqlite3.connect(data_dir / DB_NAME)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return dict(conn.execute("SELECT id, question_id FROM reviews").fetchall())
    finally:
        conn.close()


def _assert_history_chains(data_dir: Path) -> None:
    """Each review's card_before is the previous review's card_after, and the card row is the last one's."""
    conn = sqlite3.connect(data_dir / DB_NAME)
    try:
        rows = conn.execute("SELECT question_id, card_before, card_after FROM reviews ORDER BY id").fetchall()
        cards = dict(conn.execute("SELECT question_id, card_json FROM cards").fetchall())
    finally:
        conn.close()
    last: dict[str, str | None] = {}
    for question_id, before, after in rows:
        assert before == last.get(question_id), question_id
        last[question_id] = after
    assert cards == last


@pytest.mark.slow
def test_sigkill_mid_session_loses_no_recorded_review(tmp_path):
    """Three sessions killed with SIGKILL at random moments; after each, every printed review is on disk."""
    rng = random.Random(1234)
    printed_total: list[tuple[int, str]] = []
    for round_number, stop_after in enumerate((7, 23, 41)):
        proc = _spawn(tmp_path, f"r{round_number}-", -1)
        assert proc.stdout.readline().strip() == "ready"
        seen = []
        for _ in range(stop_after):
            seen.append(proc.stdout.readline())
        time.sleep(rng.uniform(0, 0.02))  # land anywhere, likely inside a transaction
        os.kill(proc.pid, signal.SIGKILL)
        assert proc.wait(timeout=30) == -signal.SIGKILL
        # read the rest through the same buffered reader as `seen`: communicate() reads the pipe's file
        # descriptor directly and would skip lines readline() had already buffered (seen once: 3 lines)
        rest = proc.stdout.read()
        proc.stdout.close()
        proc.stderr.close()
        printed = _recorded(seen + rest.splitlines())
        assert len(printed) >= stop_after
        printed_total += printed
        in_db = _reviews_in_db(tmp_path)
        missing = [(rid, qid) for rid, qid in printed_total if in_db.get(rid) != qid]
        assert missing == [], f"round {round_number}: reviews shown as recorded but lost: {missing}"
        # At most the one review in flight may have committed without being printed.
        assert len(in_db) - len(printed_total) in (0, 1)
        printed_total = sorted(in_db.items())
    _assert_history_chains(tmp_path)
    with open_store(tmp_path) as store:  # reopens cleanly, no notice
        assert store.notices == [] and store.review_count() == len(printed_total)
    print(f"\nkill -9: {len(printed_total)} reviews over 3 killed sessions, none lost")


@pytest.mark.slow
@pytest.mark.parametrize("pause", [0.0, 0.002], ids=["flat-out", "paced"])
def test_two_processes_reviewing_at_once_lose_nothing(tmp_path, pause):
    """Flat out, one writer may win most lock races; paced (2 ms between reviews) they interleave finely."""
    per_process = 150
    go = tmp_path / "go"
    with open_store(tmp_path):
        pass  # create the schema first, like an already-used store
    procs = [_spawn(tmp_path, "shared-", per_process, str(go), pause) for _ in range(2)]
    for proc in procs:
        assert proc.stdout.readline().strip() == "ready"
    start = time.perf_counter()
    go.write_text("go")
    results = [proc.communicate(timeout=300) for proc in procs]
    elapsed = time.perf_counter() - start
    for proc, (out, err) in zip(procs, results):
        assert proc.returncode == 0, err
        assert "locked" not in err.lower() and "Traceback" not in err
        assert out.splitlines()[-1] == "done"
        assert len(_recorded(out.splitlines())) == per_process
    printed = [item for out, _ in results for item in _recorded(out.splitlines())]
    in_db = _reviews_in_db(tmp_path)
    assert len(in_db) == 2 * per_process
    assert all(in_db[rid] == qid for rid, qid in printed)
    # Both wrote the same 12 cards; the writes interleaved (both processes' reviews of one card alternate at
    # least once), and every card's history is one unbroken chain.
    _assert_history_chains(tmp_path)
    ids_a = {rid for rid, _ in _recorded(results[0][0].splitlines())}
    order = sorted(in_db)
    switches = sum(1 for x, y in zip(order, order[1:]) if (x in ids_a) != (y in ids_a))
    assert switches >= (20 if pause else 1)
    print(
        f"\nconcurrency ({'paced' if pause else 'flat out'}): 2 x {per_process} reviews in {elapsed:.2f} s, {switches} interleavings, none lost"
    )


# The real Study screen, headless, in a subprocess: it prints "recorded <n> <question>" from the screen's own
# "Recorded ..." feedback, i.e. exactly when the user would see the rating confirmed.
STUDY_SESSION = """
import asyncio, sys
from textual.worker import WorkerCancelled
from tui.app import PosencApp
from tui.screens import study

bank, data_dir = sys.argv[1], sys.argv[2]
limit = int(sys.argv[3]) if len(sys.argv) > 3 else -1
class LoggedStudy(study.StudyScreen):
    def _flash(self, text):
        super()._flash(text)
        if text.startswith("Recorded"):  # called before the plan moves on: the plan is the rated card
            print(f"recorded {self.done_count} {self.plan_question_id()}", flush=True)

async def main():
    app = PosencApp([bank], data_dir, include_shipped=False, include_user=False, language="en",
                    seed=3, warm_torch=False, cursor_blink=False)
    async with app.run_test(size=(100, 30)) as pilot:
        while app.bankset is None or not app.store_ready:
            await pilot.pause(0.02)
        screen = LoggedStudy(None)
        await app.push_screen(screen)
        print("ready", flush=True)
        while limit < 0 or screen.done_count < limit:
            await pilot.pause(0.01)
            if screen.view is None and screen.plan is not None and not screen.busy:
                break  # nothing left to study
            if screen.view is not None and not screen.busy:
                if not screen.revealed:
                    await pilot.press("enter")  # reveals from a text input too
                else:
                    await pilot.press("3")

        try:
            await app.workers.wait_for_complete()
        except WorkerCancelled:  # a worker the screen replaced: finished, not failed
            pass
    print(f"finished {screen.done_count}", flush=True)

asyncio.run(main())
"""


def _app_env(tmp_path: Path) -> dict[str, str]:
    return dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        POSENC_BANK_DIR=str(tmp_path / "no-user-banks"),
    )


@pytest.mark.slow
def test_sigkill_of_the_study_screen_loses_nothing_it_showed(tmp_path):
    from support.export_bank import write_fixture_bank

    bank = write_fixture_bank(tmp_path)
    env = _app_env(tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-c", STUDY_SESSION, str(bank), str(tmp_path / "data")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    watchdog = threading.Timer(120, proc.kill)  # never hang the suite on a stuck session
    watchdog.start()
    try:
        assert proc.stdout.readline().strip() == "ready"
        lines = [proc.stdout.readline() for _ in range(6)]
        time.sleep(0.05)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        watchdog.cancel()
    rest, err = proc.communicate(timeout=30)
    shown = [line.split() for line in lines + rest.splitlines() if line.startswith("recorded")]
    assert len(shown) >= 6, err
    with open_store(tmp_path / "data") as store:
        reviews = store.review_rows()
        assert store.notices == []
    # Every rating the screen confirmed is on disk, in order; at most one more was committed unseen.
    assert [r.question_id for r in reviews[: len(shown)]] == [qid for _, _, qid in shown]
    assert len(reviews) - len(shown) in (0, 1)


@pytest.mark.slow
def test_two_study_apps_on_one_data_dir_lose_nothing(tmp_path):
    """Two headless apps study the same cards at once until nothing is left; every confirmed rating is stored."""
    from support.export_bank import write_fixture_bank

    bank = write_fixture_bank(tmp_path)
    with open_store(tmp_path / "data"):
        pass
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", STUDY_SESSION, str(bank), str(tmp_path / "data"), "40"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_app_env(tmp_path),
            cwd=ROOT,
        )
        for _ in range(2)
    ]
    results = [proc.communicate(timeout=240) for proc in procs]
    confirmed = 0
    for proc, (out, err) in zip(procs, results):
        assert proc.returncode == 0, err[-2000:]
        assert "locked" not in err.lower() and "Traceback" not in err
        lines = out.splitlines()
        assert lines[-1].startswith("finished ")
        confirmed += sum(1 for line in lines if line.startswith("recorded"))
    in_db = _reviews_in_db(tmp_path / "data")
    assert confirmed >= 14 and len(in_db) == confirmed
    _assert_history_chains(tmp_path / "data")
    print(f"\ntwo study apps: {confirmed} ratings confirmed on screen, {len(in_db)} stored")


_OPEN_AT_ONCE = """
import sys, time
from quizbank.progress.store import open_store
start = float(sys.argv[2])
while time.time() < start:
    pass  # spin: all four open within microseconds of each other
with open_store(sys.argv[1]) as store:
    print(len(store.notices))
"""


def test_a_wal_or_shm_file_removed_while_it_is_checked_is_no_read_only_store(tmp_path, monkeypatch):
    """SQLite removes -wal and -shm as the last connection closes: another process (a serve tab) closing its
    store while this one checks them made os.access fail on a file no longer there, and the store refused to
    open as "read-only" (a fresh-clone run: one of four processes opening at once). A file still there and
    still refused is read-only."""
    from quizbank.progress import connection
    from quizbank.progress.connection import StoreError, ensure_files_writable

    db = tmp_path / DB_NAME
    shm = tmp_path / (DB_NAME + "-shm")
    db.write_bytes(b"")
    shm.write_bytes(b"")
    real_access = os.access

    def closed_meanwhile(path, mode):
        if Path(path) == shm:
            shm.unlink(missing_ok=True)  # the other process's last connection closes now
            return False
        return real_access(path, mode)

    monkeypatch.setattr(connection.os, "access", closed_meanwhile)
    ensure_files_writable(db)  # no error: the -shm file went away, it was not refused

    shm.write_bytes(b"")
    monkeypatch.setattr(connection.os, "access", lambda path, mode: Path(path) != shm)
    with pytest.raises(StoreError, match="read-only"):
        ensure_files_writable(db)


@pytest.mark.slow
def test_processes_creating_the_store_at_once_never_move_it_aside(tmp_path):
    # Two browser tabs (posenc serve) open a fresh store at the same instant. Read one by one, the integrity
    # probe could see "version 0, yet tables" mid-creation and move a good store aside, losing its reviews.
    for trial in range(20):
        folder = tmp_path / f"store{trial}"
        start = time.time() + 1.0
        procs = [
            subprocess.Popen(
                [sys.executable, "-I", "-c", _OPEN_AT_ONCE, str(folder), str(start)],
                stdout=subprocess.PIPE,
                text=True,
                cwd=ROOT,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
            )
            for _ in range(4)
        ]
        notices = [int(p.communicate(timeout=60)[0].strip() or -1) for p in procs]
        assert notices == [0, 0, 0, 0], trial
        assert sorted(p.name for p in folder.iterdir() if "corrupt" in p.name) == []
