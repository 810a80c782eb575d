"""Running code off (`POSENC_CODE_OFF=1`, `posenc serve --public` without `--allow-code`) is enforced where
code runs: every entry of the grader refuses with `CodeOff` before it writes a file, reads the candidate's
source or starts a process. A candidate that would write a marker file shows that nothing ran."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from support.drills import marker_source, spy_grading_children

from quizbank.drills import CodeOff, WarmGrader, grade_file, grade_source
from quizbank.drills.codeoff import CODE_OFF_ENV
from quizbank.drills.grader import Supervisor

NTK = "ntk-inv-freq"


@pytest.fixture
def code_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Code off, temporary files under tmp_path/tmp; returns the grading children started (their argv)."""
    monkeypatch.setenv(CODE_OFF_ENV, "1")
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    return spy_grading_children(monkeypatch)


def test_grade_source_writes_and_starts_nothing(tmp_path: Path, code_off: list[list[str]]) -> None:
    marker = tmp_path / "marker"
    with pytest.raises(CodeOff, match="--allow-code"):
        grade_source(NTK, marker_source(marker, NTK))
    assert code_off == [] and not marker.exists()
    assert list((tmp_path / "tmp").iterdir()) == []  # not even the temporary copy of the source


def test_grade_file_reads_and_starts_nothing(tmp_path: Path, code_off: list[list[str]]) -> None:
    marker = tmp_path / "marker"
    path = tmp_path / "ntk.py"
    path.write_text(marker_source(marker, NTK), encoding="utf-8")
    with pytest.raises(CodeOff):
        grade_file(NTK, path)
    with pytest.raises(CodeOff):
        grade_file(NTK, tmp_path / "missing.py")  # refused before the file is even looked at
    assert code_off == [] and not marker.exists()
    assert list((tmp_path / "tmp").iterdir()) == []


def test_no_grading_child_starts_ahead_or_on_its_own(code_off: list[list[str]]) -> None:
    warm = WarmGrader()
    with pytest.raises(CodeOff):
        warm.refill()
    assert warm.take() is None
    with pytest.raises(CodeOff):
        Supervisor()
    with pytest.raises(CodeOff):
        Supervisor.start()
    assert code_off == []


def test_drill_check_refuses_in_one_line(
    tmp_path: Path, code_off: list[list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    from tui.cli import main

    marker = tmp_path / "marker"
    path = tmp_path / "ntk.py"
    path.write_text(marker_source(marker, NTK), encoding="utf-8")
    assert main(["drill", "check", NTK, str(path)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "posenc drill: running code is off here (posenc serve --public without --allow-code): nothing was run"
    ]
    assert code_off == [] and not marker.exists()
