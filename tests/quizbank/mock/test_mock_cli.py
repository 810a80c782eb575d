"""`posenc mock plan | report | history`: JSON shapes, exit codes, one-line errors, atomic report files, and the
store methods behind them (save_mock_session, mock_sessions, make_due_now)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from support.cli import cli_runner

from quizbank.loader import load_banks
from quizbank.mock.planner import plan_interview
from quizbank.mock.report import ItemResult, build_report
from quizbank.progress.store import open_store
from tui.cli import main

T0 = datetime(2026, 2, 1, 10, 0, tzinfo=UTC)


pytestmark = pytest.mark.usefixtures("env")  # data and user banks in tmp_path (conftest)


run = cli_runner(main)


def save_session(data_dir: Path, session_id: str, started: datetime, *, early: bool, answered: int) -> dict:
    bankset = load_banks(include_user=False)
    plan = plan_interview(bankset, [], minutes=10, seed=4)
    results = {
        item.id: ItemResult(item.id, "answered", 1.0 if n % 2 == 0 else 0.0, 30.0 + n, "answer")
        for n, item in enumerate(plan.items[:answered])
    }
    report = build_report(
        plan,
        results,
        session_id=session_id,
        started_at=started,
        language="en",
        ended_early=early,
        bankset=bankset,
    )
    with open_store(data_dir) as store:
        store.save_mock_session(
            session_id, started, 10, "standard", "en", early, report["score"], report
        )  # fmt: skip
    return report


def test_plan_json_shape(capsys: Any) -> None:
    code, out, err = run(capsys, "mock", "plan", "--json", "--seed", "7", "--minutes", "45")
    assert code == 0, err
    data = json.loads(out)
    assert {"minutes", "seed", "level", "items"} <= set(data)
    assert data["minutes"] == 45 and data["seed"] == 7 and data["level"] == "standard"
    assert data["items"], "an empty plan"
    for item in data["items"]:
        assert set(item) == {"kind", "id", "topic", "skill", "minutes", "follow_up_of"}
        assert item["kind"] in ("question", "drill")
        assert item["skill"] in ("concept", "derivation", "computation", "coding")
    assert abs(sum(item["minutes"] for item in data["items"]) - 45) <= 45 * 0.05
    assert any(item["kind"] == "drill" for item in data["items"])
    # the same seed prints the same plan
    assert json.loads(run(capsys, "mock", "plan", "--json", "--seed", "7", "--minutes", "45")[1]) == data


@pytest.mark.slow
def test_a_seed_gives_the_same_plan_in_any_process(env: Path) -> None:
    """`mock plan --seed 1` in two interpreters whose str hashes differ (PYTHONHASHSEED): one plan."""
    outputs = []
    for hash_seed in ("1", "2", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-m", "tui", "mock", "plan", "--minutes", "45", "--seed", "1", "--json"],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        outputs.append(json.loads(done.stdout))
    assert outputs[0]["seed"] == 1 and len(outputs[0]["items"]) >= 5
    assert outputs[1] == outputs[0] and outputs[2] == outputs[0]


def test_plan_text_and_topics(capsys: Any) -> None:
    code, out, _ = run(capsys, "mock", "plan", "--seed", "3", "--minutes", "20", "--topics", "rope,alibi")
    assert code == 0
    assert out.startswith("20-minute interview, level standard, seed 3")
    rows = out.splitlines()[1:]
    assert rows and all((" rope " in row or " alibi " in row) for row in rows)


def test_plan_without_seed_uses_the_store_and_reports_its_seed(capsys: Any) -> None:
    code, out, err = run(capsys, "mock", "plan", "--json", "--minutes", "15", "--level", "basic")
    assert code == 0, err
    data = json.loads(out)
    assert isinstance(data["seed"], int) and data["level"] == "basic"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--topics", "rope,nope"], "unknown topic 'nope'; choose from: why-pe, absolute"),
        (["--level", "hard"], "unknown level 'hard'; choose one of: basic, standard, deep"),
        (["--minutes", "4"], "minutes must be a whole number from 5 to 180 (got 4)"),
        (["--minutes", "181"], "from 5 to 180"),
        (["--minutes", "ten"], "--minutes must be a whole number"),
        (["--seed", "x"], "--seed must be a whole number"),
        (["--seed", "-1"], "--seed must be in 0..2147483647, got -1"),  # as `bank sample --seed -1`
        (["--seed", "2147483648"], "--seed must be in 0..2147483647, got 2147483648"),
        (["--seed", "9" * 5000], "--seed must be a whole number (got '" + "9" * 56 + "...)"),
        (["--minutes", "9" * 5000], "--minutes must be a whole number (got '" + "9" * 56 + "...)"),
    ],
)
def test_plan_usage_errors_exit_2_with_one_line(capsys: Any, args: list[str], needle: str) -> None:
    code, out, err = run(capsys, "mock", "plan", *args)
    assert code == 2
    assert out == ""
    assert needle in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert len(err) < 200  # a 5,000-digit value is cut, as the importer cuts it


def test_plan_bank_too_small_exits_1(capsys: Any) -> None:
    code, out, err = run(capsys, "mock", "plan", "--topics", "models", "--level", "deep", "--minutes", "180")
    assert code == 1 and out == ""
    assert "not enough material for 180 minutes" in err and "ask for at most" in err
    assert len(err.strip().splitlines()) == 1


def test_history_and_report(capsys: Any, env: Path) -> None:
    data_dir = env / "data"
    code, out, _ = run(capsys, "mock", "history", "--json")
    assert code == 0 and json.loads(out) == {"sessions": []}
    code, _, err = run(capsys, "mock", "report")
    assert code == 1 and "no mock interview saved yet" in err

    first = save_session(data_dir, "20260201-100000-aaaa", T0, early=False, answered=3)
    second = save_session(data_dir, "20260202-100000-bbbb", T0 + timedelta(days=1), early=True, answered=1)
    code, out, _ = run(capsys, "mock", "history", "--json")
    sessions = json.loads(out)["sessions"]
    assert [s["id"] for s in sessions] == [first["id"], second["id"]]
    assert set(sessions[0]) == {"id", "started_at", "minutes", "level", "ended_early", "score", "items"}
    assert set(sessions[0]["items"][0]) == {"id", "kind", "score", "seconds"}
    assert sessions[0]["score"] == pytest.approx(2 / 3, abs=1e-4)  # 1, 0, 1
    # ended after 1 of 3 items: the 2 not reached count as 0
    assert sessions[1]["ended_early"] is True and sessions[1]["score"] == pytest.approx(1 / 3, abs=1e-4)
    assert sessions[0]["items"][0]["seconds"] == 30.0

    code, out, _ = run(capsys, "mock", "history")
    assert code == 0 and "20260202-100000-bbbb" in out and "ended early" in out and "67%" in out

    code, out, _ = run(capsys, "mock", "report", "--last")
    assert code == 0 and out.startswith("# Mock interview report: 20260202-100000-bbbb")
    code, out, _ = run(capsys, "mock", "report", "20260201", "--lang", "zh")
    assert code == 0 and out.startswith("# 模拟面试报告: 20260201-100000-aaaa") and "总分: 67%" in out

    target = env / "out" / "report.md"
    target.parent.mkdir()
    target.write_text("old", encoding="utf-8")
    code, out, err = run(capsys, "mock", "report", first["id"], "--out", str(target))
    assert code == 0 and out == "" and str(target) in err
    assert target.read_text(encoding="utf-8").startswith("# Mock interview report: 20260201-100000-aaaa")
    assert [p.name for p in target.parent.iterdir()] == ["report.md"]  # no temporary file left behind

    code, _, err = run(capsys, "mock", "report", "nope")
    assert code == 2 and "no interview with id 'nope'" in err
    code, _, err = run(capsys, "mock", "report", "2026020")
    assert code == 2 and "ambiguous" in err
    code, _, err = run(capsys, "mock", "report", "--last", first["id"])
    assert code == 2


def test_make_due_now_creates_and_refreshes_cards(env: Path) -> None:
    with open_store(env / "store") as store:
        store.review("a.reviewed", 4, now=T0)  # easy: due days later
        later = store.card("a.reviewed").due
        assert later > T0 + timedelta(days=1)
        now = T0 + timedelta(hours=1)
        assert store.make_due_now(["a.reviewed", "b.new", "drill:rope-half", "b.new"], now=now) == 3
        assert store.card("a.reviewed").due == now
        assert store.card("b.new").due == now and store.card("drill:rope-half").due == now
        queue = store.study_queue(["a.reviewed", "b.new"], now=now, new_per_day=0)
        assert queue.due == ["a.reviewed", "b.new"]
        assert store.make_due_now(["b.new"], now=now) == 0  # already due: nothing to write
        assert store.review_count() == 1  # no review was invented
