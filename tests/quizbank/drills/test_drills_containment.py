"""The grader as an attacker sees it: every trick below failed on the old grader (the verdict was computed in the
candidate's process, `setsid()` escaped the group kill, only the soft memory limit was set, the environment and
the bytecode cache were inherited). The slow tests start one or two grading children (about 1.5 s each, quiet);
the fork bomb's test runs in `make check` too."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from support.paths import ROOT
from support.processes import alive, wait_gone

from quizbank import proclife
from quizbank.drills import get_drill, grade_file, grade_source
from quizbank.drills.confinement import EXTRA_PROCESSES
from quizbank.drills.grader import Supervisor, WarmGrader
from quizbank.drills.limits import MEMORY_ENV, memory_limit_bytes
from quizbank.progress.store import open_store

NTK = "ntk-inv-freq"
SOLUTION = get_drill(NTK).solution
WRONG = "def ntk_inv_freq(dim, base, factor):\n    raise NotImplementedError\n"
# `-I` ignores PYTHONPATH: put this checkout first, or the installed copy's grader would be the one tested.
HERE = f"import sys; sys.path.insert(0, {str(ROOT)!r}); "
CLI = HERE + "from tui.cli import main; sys.exit(main(sys.argv[1:]))"
GRADE = (
    HERE + "from quizbank.drills import grade_source; grade_source(sys.argv[1], sys.argv[2], timeout_s=60)"
)


def open_folder(tmp_path: Path) -> Path:
    """A folder the candidate can write in: as root it runs as another uid (see confinement.py)."""
    folder = tmp_path / "open"
    folder.mkdir(exist_ok=True)
    folder.chmod(0o777)
    return folder


@pytest.mark.slow
def test_setsid_and_a_double_fork_leave_no_process_behind(tmp_path: Path) -> None:
    pid_file = open_folder(tmp_path) / "escaped.pid"
    source = (
        "import os, time\n"
        "first = os.fork()\n"
        "if first == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        f"        open({str(pid_file)!r}, 'w').write(os.readlink('/proc/self'))\n"
        "        time.sleep(60)\n"
        "    os._exit(0)\n"
        "os.waitpid(first, 0)\n"
        f"while not os.path.exists({str(pid_file)!r}):\n"
        "    time.sleep(0.01)\n" + SOLUTION
    )
    report = grade_source(NTK, source)
    assert report.passed, [c.message for c in report.cases if not c.passed]
    pid = int(pid_file.read_text())
    assert wait_gone([pid]) == [], "the setsid() grandchild outlived the grade"


@pytest.mark.slow
def test_the_hard_memory_limit_cannot_be_raised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MEMORY_ENV, "2048")
    source = (
        "import resource\n"
        "try:\n"
        "    resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))\n"
        "    print('raised')\n"
        "except (ValueError, OSError) as exc:\n"
        "    print('refused', type(exc).__name__)\n"
        "print('limits', resource.getrlimit(resource.RLIMIT_AS), resource.getrlimit(resource.RLIMIT_NPROC))\n"
        + SOLUTION.replace("    new_base =", "    block = bytearray(3 * 2**30)\n    new_base =")
    )
    report = grade_source(NTK, source)
    assert not report.passed
    assert "refused" in report.output and "raised" not in report.output
    assert f"limits ({2048 * 2**20}, {2048 * 2**20})" in report.output
    assert "MemoryError" in report.cases[0].message


@pytest.mark.parametrize("raw", ["-1", "abc", "1.5", " 12x"])
def test_a_bad_memory_setting_is_a_usage_error(
    raw: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tui.cli import main

    monkeypatch.setenv(MEMORY_ENV, raw)
    with pytest.raises(ValueError, match=MEMORY_ENV):
        memory_limit_bytes()
    path = tmp_path / "mine.py"
    path.write_text(SOLUTION, encoding="utf-8")
    assert main(["drill", "check", NTK, str(path)]) == 2
    err = capsys.readouterr().err
    assert MEMORY_ENV in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


FORGE_SEND = """import gc, os, sys
frame = sys._getframe()
while frame is not None:  # the old harness kept its token-carrying `send` on the stack
    send = frame.f_locals.get("send")
    if callable(send):
        try:
            send("plan", cases=["x"])
            send("case", case="x", passed=True, message="ok", elapsed_ms=0.0)
            send("done")
        except TypeError:
            pass
    frame = frame.f_back
for obj in gc.get_objects():  # and anything else called send, with the grader's own kinds of message
    if getattr(obj, "__name__", "") == "send" and callable(obj):
        for fd in range(3, 64):
            try:
                obj(fd, {"event": "loaded"})
                obj(fd, {"ok": True, "value": {"none": 1}, "ms": 0.0})
                obj(fd, {"event": "exit", "code": 0, "passed": True})
            except Exception:
                pass
os._exit(0)
"""

PATCH_GRADER = """import quizbank.drills.judging as judging
judging.Grader.run = lambda self: iter([("x", lambda: (True, "ok"))])
judging.Grader.grade = lambda self, case: (True, "ok")
judging.compare_tensors = lambda *a, **k: judging.Verdict(True)
"""


@pytest.mark.slow
@pytest.mark.parametrize("attack", [FORGE_SEND, PATCH_GRADER + WRONG], ids=["forged-send", "patched-grader"])
def test_a_forged_verdict_fails_and_records_no_pass(attack: str, tmp_path: Path) -> None:
    report = grade_source(NTK, attack)
    assert not report.passed and report.cases_passed == 0
    store = open_store(tmp_path)  # what the Drill screen records: the parent's report, never the child's word
    try:
        created = store.record_drill_attempt(
            NTK, report.passed, report.cases_passed, len(report.cases), report.elapsed_ms
        )
        assert not created and store.card(f"drill:{NTK}") is None
        assert [a.passed for a in store.drill_attempts(NTK)] == [False]
    finally:
        store.close()


@pytest.mark.slow
def test_the_child_sees_no_inherited_secret_and_its_own_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POSENC_TEST_SECRET", "hunter2-do-not-leak")
    source = (
        "import os, socket\n"
        "print('env', sorted(os.environ))\n"
        "print('secret', os.environ.get('POSENC_TEST_SECRET'))\n"
        "print('home', os.environ['HOME'], 'tmp', os.environ['TMPDIR'])\n"
        "try:\n"
        "    socket.create_connection(('127.0.0.1', 9), timeout=1)\n"
        "except OSError as exc:\n"
        "    print('network', type(exc).__name__, exc.errno)\n" + SOLUTION
    )
    report = grade_source(NTK, source)
    assert report.passed
    assert "hunter2" not in report.output and "secret None" in report.output
    home = report.output.split("home ", 1)[1].split(" ", 1)[0]
    assert "posenc-drill-" in home and home != os.environ.get("HOME")
    assert "network" in report.output
    if report.network == "cut":  # a new network namespace: not even loopback is up (ENETUNREACH)
        assert "network OSError 101" in report.output


@pytest.mark.slow
def test_a_same_second_same_size_edit_is_graded_fresh(tmp_path: Path) -> None:
    wrong = SOLUTION.replace("base * factor **", "base / factor **")
    assert len(wrong) == len(SOLUTION) and wrong != SOLUTION
    path = tmp_path / "mine.py"
    path.write_text(wrong, encoding="utf-8")
    stamp = os.stat(path).st_mtime_ns
    assert not grade_file(NTK, path).passed
    path.write_text(SOLUTION, encoding="utf-8")
    os.utime(path, ns=(stamp, stamp))  # same size, same mtime: a bytecode cache would call it unchanged
    assert grade_file(NTK, path).passed
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.py"]  # no __pycache__


@pytest.mark.slow
def test_sigterm_to_drill_check_mid_grade_leaves_no_child(tmp_path: Path) -> None:
    started = open_folder(tmp_path) / "started"
    escaped = open_folder(tmp_path) / "escaped.pid"
    path = tmp_path / "mine.py"
    path.write_text(
        "import os, time\n"
        "def ntk_inv_freq(dim, base, factor):\n"
        "    if os.fork() == 0:\n"
        "        os.setsid()\n"
        f"        open({str(escaped)!r}, 'w').write(os.readlink('/proc/self'))\n"
        "        time.sleep(60)\n"
        "        os._exit(0)\n"
        f"    open({str(started)!r}, 'w').write(os.readlink('/proc/self'))\n"
        "    while True:\n"
        "        pass\n",
        encoding="utf-8",
    )
    cli = subprocess.Popen(
        [sys.executable, "-I", "-c", CLI, "drill", "check", NTK, str(path), "--timeout", "60"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120  # the child imports torch first: wait for it to say so, not a sleep
        while not (started.exists() and escaped.exists()):
            assert time.monotonic() < deadline and cli.poll() is None, cli.stderr.read() if cli.stderr else ""
            time.sleep(0.05)
        tree = proclife.descendants(cli.pid)
        assert len(tree) >= 3  # supervisor, worker, the setsid() child
        cli.send_signal(signal.SIGTERM)
        code = cli.wait(timeout=10)
        _, err = cli.communicate()
    finally:
        if cli.poll() is None:
            cli.kill()
    assert code == 128 + signal.SIGTERM and b"killed" in err
    assert wait_gone([*tree, int(escaped.read_text()), int(started.read_text())]) == []


@pytest.mark.slow
def test_a_grader_killed_mid_grade_leaves_no_child(tmp_path: Path) -> None:
    """kill -9 of the grading process (a closed browser tab, an app killed): its child cleans up after it."""
    started, escaped = open_folder(tmp_path) / "started", open_folder(tmp_path) / "escaped.pid"
    source = (
        "import os, time\n"
        "def ntk_inv_freq(dim, base, factor):\n"
        "    if os.fork() == 0:\n"
        "        os.setsid()\n"
        f"        open({str(escaped)!r}, 'w').write(os.readlink('/proc/self'))\n"
        "        time.sleep(60)\n"
        "        os._exit(0)\n"
        f"    open({str(started)!r}, 'w').write(os.readlink('/proc/self'))\n"
        "    time.sleep(60)\n"
    )
    grader = subprocess.Popen(
        [sys.executable, "-I", "-c", GRADE, NTK, source],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120
        while not (started.exists() and escaped.exists()):
            assert time.monotonic() < deadline and grader.poll() is None
            time.sleep(0.05)
        tree = proclife.descendants(grader.pid)
        grader.kill()
        grader.wait(timeout=10)
    finally:
        if grader.poll() is None:
            grader.kill()
    assert wait_gone([*tree, int(escaped.read_text()), int(started.read_text())]) == []


@pytest.mark.slow
def test_the_time_limit_starts_when_the_child_is_ready() -> None:
    supervisor = Supervisor.start()
    WarmGrader.warm_parent()
    supervisor.wait_ready()  # torch imported there and here: the candidate's 2 s start now
    started = time.monotonic()
    report = grade_source(NTK, SOLUTION, timeout_s=2.0, supervisor=supervisor)
    assert report.passed and time.monotonic() - started < 2.0 + 3.0
    assert not supervisor.alive()  # one grade per child, never reused


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def ntk_inv_freq(dim, base, factor)\n    return 1\n", "syntax error at line 1"),
        ("import torch\ndef other():\n    return torch.ones(1)\n", "defines no function 'ntk_inv_freq'"),
        ("def ntk_inv_freq(dim, base, factor):\n    return 1\nreturn 2\n", "syntax error at line 3"),
    ],
)
def test_a_file_that_cannot_define_the_function_fails_before_torch_is_imported(
    source: str, expected: str, tmp_path: Path
) -> None:
    path = tmp_path / "mine.py"
    path.write_text(source, encoding="utf-8")
    probe = (
        "import sys\n"
        "from quizbank.drills import grade_file\n"
        f"report = grade_file({NTK!r}, sys.argv[1])\n"
        "print(report.cases[0].name, '|', report.cases[0].message)\n"
        "print('torch' in sys.modules, 'quizbank.drills.specs' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", probe, str(path)], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    assert first.startswith("load | ") and expected in first
    assert second == "False False"  # neither torch nor the cases were imported: no child was started
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.py"]


@pytest.mark.slow
def test_the_child_cannot_reach_the_graders_memory() -> None:
    source = (
        "import os\n"
        "def parent(pid):\n"  # /proc shows pids outside its pid namespace: the supervisor is its grandparent
        "    return open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()[1]\n"
        "supervisor = parent(parent('self'))\n"
        "grader = int(open(f'/proc/{supervisor}/cmdline', 'rb').read().split(b'\\0')[-2])\n"
        "try:\n"
        "    open(f'/proc/{grader}/mem', 'r+b')\n"
        "    print('opened', grader)\n"
        "except OSError as exc:\n"
        "    print('denied', grader, type(exc).__name__)\n" + SOLUTION
    )
    report = grade_source(NTK, source)
    assert report.passed
    assert f"denied {os.getpid()}" in report.output, report.output


@pytest.mark.slow
def test_a_huge_reply_fails_its_case_and_does_not_grow_the_grader() -> None:
    """A 256 MiB returned tensor once grew the grader by about 1 GiB; now its length alone fails the case."""
    huge = "import torch\ndef ntk_inv_freq(dim, base, factor):\n    return torch.zeros(64 * 2**20)\n"
    probe = (
        "import resource, sys\n"
        "from quizbank.drills import grade_source\n"
        "from quizbank.drills.specs import spec_for\n"
        f"spec_for({NTK!r})  # torch and the cases: imported before the first figure\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        f"report = grade_source({NTK!r}, sys.argv[1], timeout_s=60)\n"
        "after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print((after - before) // 1024)\n"
        "print(report.passed, report.cases[0].message)\n"
        "print(sum(c.message == 'not run.' for c in report.cases))\n"
    )
    done = subprocess.run(  # not -I: this checkout's quizbank, from the current folder
        [sys.executable, "-c", probe, huge], cwd=ROOT, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr
    grown, verdict, not_run = done.stdout.splitlines()
    assert int(grown) < 64, grown  # MiB: the reply was refused from its length, never buffered
    assert verdict.startswith("False the program returned 256 MiB in one reply, more than the grader accepts")
    assert "(16 MiB)" in verdict and "while running case" in verdict
    assert int(not_run) >= 3


@pytest.mark.slow
def test_json_nested_too_deeply_on_the_channel_fails_cleanly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A frame whose header nests past the JSON parser's stack: a failed grade, no RecursionError, and no
    temporary folder left behind."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    source = (
        "import os, struct, sys\n"
        "deep = b'[' * 200000 + b']' * 200000\n"
        "os.write(int(sys.argv[2]), b'PSNC' + struct.pack('>II', len(deep), 0) + deep)\n" + SOLUTION
    )
    report = grade_source(NTK, source, timeout_s=60)
    assert not report.passed
    assert report.cases[0].message == (
        "the program wrote into the grader's private channel, which only the grader may use while loading."
    )
    assert list(tmp_path.iterdir()) == []  # the grade's folders are gone


FORK_BOMB = (
    "import os, time\n"
    "children = 0\n"
    "for _ in range(300):\n"
    "    try:\n"
    "        pid = os.fork()\n"
    "    except OSError:\n"
    "        break\n"
    "    if pid == 0:\n"
    "        time.sleep(60)\n"
    "        os._exit(0)\n"
    "    children += 1\n"
    "print('children', children, 'uid', os.getuid(), flush=True)\n" + SOLUTION
)


def test_a_fork_bomb_stops_at_the_process_cap_even_as_root() -> None:
    """RLIMIT_NPROC does nothing for the kernel's uid 0: as root the worker runs as another uid (300 before).
    Not marked slow: `make check` runs this one grade under the confinement (one grading child)."""
    report = grade_source(NTK, FORK_BOMB)
    assert report.passed, report.output
    children, uid = report.output.split("children ", 1)[1].split("\n", 1)[0].split(" uid ")
    assert int(children) == EXTRA_PROCESSES
    assert int(uid) != 0


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="starts the grader as a normal user, which takes root")
def test_a_fork_bomb_stops_at_the_process_cap_as_a_normal_user() -> None:
    """posenc run by uid 65534 (reading the interpreter wherever it lies, as a user owning it could)."""
    grade = (
        HERE
        + "from quizbank.drills import grade_source; print(grade_source(sys.argv[1], sys.argv[2]).output)"
    )
    done = subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=+dac_read_search"]
        + ["--ambient-caps=+dac_read_search", sys.executable, "-I", "-c", grade, NTK, FORK_BOMB],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "HOME": "/tmp"},
        timeout=180,
    )
    assert "children " in done.stdout, done.stderr[-2000:]
    children, uid = done.stdout.split("children ", 1)[1].split("\n", 1)[0].split(" uid ")
    assert (int(children), int(uid)) == (EXTRA_PROCESSES, 65534)


def marked(marker: str) -> list[int]:
    """Live processes whose command line holds `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if (
                entry.name.isdigit()
                and marker.encode() in (entry / "cmdline").read_bytes()
                and alive(int(entry.name))
            ):
                found.append(int(entry.name))
        except OSError:
            pass
    return found


@pytest.mark.slow
def test_a_killed_supervisor_takes_the_whole_tree_with_it() -> None:
    """The program tries to kill its supervisor and leaves sleepers (setsid, a double fork); the test kills the
    supervisor too, in case the program could not. Nothing marked may outlive the grade."""
    marker = f"posenc-orphan-{os.getpid()}-{time.monotonic_ns()}"
    sleeper = f"[sys.executable, '-c', 'import time; time.sleep(60)', {marker!r}]"
    source = (
        "import os, signal, subprocess, sys, time\n"
        f"subprocess.Popen({sleeper}, start_new_session=True)\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        f"        os.execv(sys.executable, {sleeper})\n"
        "    os._exit(0)\n"
        "for pid in (os.getppid(), int(open('/proc/self/stat').read().rsplit(')', 1)[1].split()[1])):\n"
        "    try:\n"
        "        os.kill(pid, signal.SIGKILL) if pid > 1 else None\n"
        "    except OSError as exc:\n"
        "        print('kill refused', type(exc).__name__, flush=True)\n"
        "def ntk_inv_freq(dim, base, factor):\n"
        "    time.sleep(60)\n"
    )
    supervisor = Supervisor.start()
    result: list[object] = []
    thread = threading.Thread(target=lambda: result.append(grade_source(NTK, source, supervisor=supervisor)))
    thread.start()
    deadline = time.monotonic() + 120
    while len(marked(marker)) < 2 and thread.is_alive():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    try:
        os.kill(supervisor.proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    thread.join(timeout=60)
    assert not thread.is_alive() and result and not result[0].passed  # type: ignore[attr-defined]
    deadline = time.monotonic() + 5
    while marked(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marked(marker) == []
