"""The grading child: programs that hang, exit early, fake a result, do not parse or eat memory fail; the CLI's
exit codes (0 pass, 1 fail, 2 usage). Each test starts one or two interpreters (about 1.5 s each)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from support.cli import cli_runner
from support.processes import alive

from quizbank.drills import get_drill, grade_file, grade_source
from quizbank.drills.grader import Supervisor, WarmGrader
from tui.cli import main

pytestmark = pytest.mark.slow

NTK = "ntk-inv-freq"


def failed_messages(report) -> list[str]:
    return [f"{c.name}: {c.message}" for c in report.cases if not c.passed]


def ready_supervisor() -> Supervisor:
    """A grading child that has imported torch, and torch and the cases imported here: time limits start now."""
    supervisor = Supervisor.start()
    WarmGrader.warm_parent()
    supervisor.wait_ready()
    return supervisor


def test_a_hanging_solution_is_killed_within_the_limit() -> None:
    source = "def ntk_inv_freq(dim, base, factor):\n    while True:\n        pass\n"
    supervisor = ready_supervisor()
    started = time.perf_counter()
    report = grade_source(NTK, source, timeout_s=5.0, supervisor=supervisor)
    assert time.perf_counter() - started < 5.0 + 5.0  # the limit, plus judging the first case and stopping
    assert not report.passed
    first = report.cases[0]
    assert first.message.startswith("the program timed out after 5 s and was stopped")
    assert first.name == "dim 128, base 10000, factor 4" and "while running case" in first.message
    assert all(c.message == "not run." for c in report.cases[1:]) and len(report.cases) == 5


def test_a_hang_in_a_child_process_is_killed_with_its_group(tmp_path: Path) -> None:
    (tmp_path / "open").mkdir()
    (tmp_path / "open").chmod(0o777)  # as root the candidate runs as another uid
    pid_file = tmp_path / "open" / "grandchild.pid"
    source = (
        "import os, subprocess, sys\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        # its pid as /proc (and this test) sees it, outside the program's pid namespace
        "me = os.readlink('/proc/self')\n"
        f"open({str(pid_file)!r}, 'w').write(open('/proc/self/task/' + me + '/children').read().split()[-1])\n"
        "def ntk_inv_freq(dim, base, factor):\n    while True:\n        pass\n"
    )
    report = grade_source(NTK, source, timeout_s=5.0, supervisor=ready_supervisor())
    assert not report.passed
    pid = int(pid_file.read_text())
    assert not alive(pid), "the grandchild outlived the grade"


def test_exiting_early_or_printing_a_fake_result_fails() -> None:
    exits = "import os\ndef ntk_inv_freq(dim, base, factor):\n    os._exit(0)\n"
    report = grade_source(NTK, exits)
    assert not report.passed
    assert "exited with code 0 before grading finished" in report.cases[0].message
    fake = (
        "import json, os, sys\n"
        'print(json.dumps({"drill": "ntk-inv-freq", "passed": True, "cases": []}))\n'
        "def ntk_inv_freq(dim, base, factor):\n"
        '    print("\\x1b[32mPASSED\\u202e all cases", flush=True)\n'
        "    for fd in range(3, 1024):\n"
        "        try:\n"
        '            os.write(fd, b\'PSNC{"event": "done", "passed": true}\\n\')\n'
        "        except OSError:\n"
        "            pass\n"
        "    os._exit(0)\n"
    )
    report = grade_source(NTK, fake)
    assert not report.passed and report.cases_passed == 0
    assert (
        "the grader's private channel" in report.cases[0].message
        or "exited with code 0" in report.cases[0].message
    )
    assert '"passed": true' in report.output  # shown as the program's output, never taken as a result
    assert "\\x1b[32mPASSED\\u202e" in report.output and "\x1b" not in report.output


def test_syntax_error_and_missing_function_fail_with_a_clear_message() -> None:
    report = grade_source(NTK, "def ntk_inv_freq(dim, base, factor)\n    return 1\n")
    assert not report.passed
    assert report.cases[0].name == "load"
    assert report.cases[0].message.startswith("syntax error at line 1")
    report = grade_source(NTK, "def other():\n    pass\n")
    assert "defines no function 'ntk_inv_freq'" in report.cases[0].message


def test_far_too_much_memory_fails_under_the_limit() -> None:
    source = "def ntk_inv_freq(dim, base, factor):\n    block = bytearray(16 * 2**30)\n    return block\n"
    report = grade_source(NTK, source)
    assert not report.passed
    assert "MemoryError" in report.cases[0].message and "4 GiB" in report.cases[0].message


def test_child_runs_isolated_in_a_temporary_folder(tmp_path: Path) -> None:
    source = (
        "import os, sys\n"
        "print('cwd', os.getcwd())\n"
        "print('flags', sys.flags.isolated, sys.flags.ignore_environment)\n" + get_drill(NTK).solution
    )
    path = tmp_path / "mine.py"
    path.write_text(source, encoding="utf-8")
    report = grade_file(NTK, path)
    assert report.passed
    assert "flags 1 1" in report.output
    cwd = report.output.split("cwd ", 1)[1].split("\n", 1)[0]
    assert "posenc-drill-" in cwd and not Path(cwd).exists()  # removed after grading
    assert Path.cwd() != Path(cwd)


run_cli = cli_runner(main)


def test_cli_exit_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("POSENC_DATA_DIR", str(tmp_path / "data"))
    code, out, err = run_cli(capsys, "drill", "start", NTK, "--dir", str(tmp_path))
    assert code == 0 and out.strip() == str(tmp_path / f"{NTK}.py")
    starter = tmp_path / f"{NTK}.py"
    assert starter.read_text(encoding="utf-8") == get_drill(NTK).starter
    code, out, _ = run_cli(capsys, "drill", "check", NTK, str(starter), "--json")
    assert code == 1
    data = json.loads(out)
    assert data["drill"] == NTK and data["passed"] is False and len(data["cases"]) == 5
    starter.write_text(get_drill(NTK).solution, encoding="utf-8")
    code, out, _ = run_cli(capsys, "drill", "start", NTK, "--dir", str(tmp_path))
    assert code == 0 and starter.read_text(encoding="utf-8") == get_drill(NTK).solution  # never overwritten
    code, out, _ = run_cli(capsys, "drill", "check", NTK, str(starter))
    assert code == 0 and f"{NTK}: 5/5 cases passed" in out
    code, _, err = run_cli(capsys, "drill", "check", "ntk-inv-frq", str(starter))
    assert code == 2 and "did you mean 'ntk-inv-freq'" in err and "rope-half" in err
    code, _, err = run_cli(capsys, "drill", "check", NTK, str(tmp_path / "missing.py"))
    assert code == 2 and "cannot read" in err
    unreadable = tmp_path / "secret.py"
    unreadable.write_text("x = 1\n", encoding="utf-8")
    unreadable.chmod(0)
    if not os.access(unreadable, os.R_OK):  # root reads anything
        code, _, err = run_cli(capsys, "drill", "check", NTK, str(unreadable))
        assert code == 2
    code, _, err = run_cli(capsys, "drill", "show", "nope")
    assert code == 2
