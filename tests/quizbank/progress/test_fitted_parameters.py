"""A schedule fitted to the person: `posenc progress optimize` fits FSRS-6 parameters to the store's reviews
(quizbank/progress/optimize.py), keeps them (quizbank/progress/fitted.py) and the scheduler uses them; below
the minimum the defaults stay. Histories come from a simulated learner with known parameters
(tests/support/learner.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from support.learner import LEARNER_PARAMETERS, START, simulate_reviews, store_reviews
from support.paths import ROOT

from quizbank.progress.backup import decode_backup_json, export_backup, import_backup, parse_backup
from quizbank.progress.backup_check import BackupError
from quizbank.progress.optimize import MIN_REVIEWS, count_learnable, evaluate, review_logs
from quizbank.progress.records import ReviewRecord
from quizbank.progress.scheduler import DEFAULT_PARAMETERS, Rating
from quizbank.progress.store import open_store
from tui.cli import main

# slower stability growth (w8 1.2 against 1.8722) and a steeper forgetting curve (w20 0.35 against 0.1542)
FITTED = (*DEFAULT_PARAMETERS[:8], 1.2, *DEFAULT_PARAMETERS[9:20], 0.35)


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POSENC_BANK_DIR", str(tmp_path / "no-user-banks"))
    monkeypatch.delenv("POSENC_DATA_DIR", raising=False)


def test_learnable_reviews_are_those_a_day_after_the_cards_previous_among_its_first_64() -> None:
    day = timedelta(days=1)
    rows = [ReviewRecord("q", 3, START + n * day, None) for n in range(70)]  # 69 a day apart, 63 within 64
    rows += [ReviewRecord("p", 3, START, None), ReviewRecord("p", 1, START + timedelta(hours=23), None)]
    rows += [ReviewRecord("p", 3, START + timedelta(hours=47), None)]  # 24 h after the previous: counts
    logs = review_logs(rows)
    assert count_learnable(logs) == 63 + 1
    figures = evaluate(logs, DEFAULT_PARAMETERS)
    assert figures is not None and figures.reviews == 64 and figures.actual_retention == 1.0
    assert 0.5 < figures.predicted_retention < 1.0 and figures.log_loss > 0 and 0 < figures.rmse < 0.5
    assert evaluate(review_logs(rows[-3:-1]), DEFAULT_PARAMETERS) is None  # nothing a day apart


def test_the_learner_forgets_faster_than_the_defaults_predict() -> None:
    logs = review_logs(simulate_reviews(70))
    assert len(logs) >= 1000 and count_learnable(logs) >= MIN_REVIEWS
    defaults, truth = evaluate(logs, DEFAULT_PARAMETERS), evaluate(logs, LEARNER_PARAMETERS)
    assert (
        defaults.predicted_retention - defaults.actual_retention > 0.05
    )  # over-confident by 5 points or more
    assert truth.log_loss < defaults.log_loss


def _run_cli(data_dir: Path, *args: str) -> tuple[int, str, bool]:
    """`posenc progress optimize ARGS` in a fresh interpreter: (exit code, stdout, whether torch was imported)."""
    code = (
        "import sys\nfrom tui.cli import main\n"
        f"rc = main(['--data-dir', {str(data_dir)!r}, 'progress', 'optimize', *{list(args)!r}])\n"
        "print('TORCH', 'torch' in sys.modules)\nsys.exit(rc)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    out, _, flag = done.stdout.rpartition("TORCH ")
    return done.returncode, out, flag.strip() == "True"


def test_fifty_reviews_keep_the_defaults_say_so_and_never_import_torch(tmp_path: Path) -> None:
    with open_store(tmp_path) as store:
        store_reviews(store, simulate_reviews(5)[:50])
        assert store.review_count() == 50
    rc, out, torch = _run_cli(tmp_path)
    assert rc == 0 and not torch
    assert "reviews: 50 on " in out and "(FSRS learns from those; it needs 512)" in out
    assert "too few to fit: FSRS-6 needs at least 512 such reviews" in out
    assert (
        "the scheduler keeps fsrs's default parameters" in out and "defaults on this history: log loss" in out
    )
    rc, out, torch = _run_cli(tmp_path, "--json")
    data = json.loads(out)
    assert rc == 0 and not torch
    assert (data["fitted"], data["reason"], data["in_use"], data["reviews"]) == (
        False,
        "too_few",
        "default",
        50,
    )
    assert data["parameters"] == list(DEFAULT_PARAMETERS) and data["after"] is None and data["minimum"] == 512
    with open_store(tmp_path) as store:
        assert store.fitted() is None and store.scheduler.parameters == DEFAULT_PARAMETERS


def test_the_scheduler_uses_fitted_parameters_and_reset_goes_back(tmp_path: Path) -> None:
    with open_store(tmp_path) as store:
        store.set_setting("enable_fuzzing", False)
        card = store.review("q", Rating.Good, START).card_after
        card = store.review("q", Rating.Good, card.due).card_after  # graduated: a review card
        default_due = store.preview("q", card.due)[Rating.Good].due
        store.save_fitted(FITTED, 600, {"reason": "fitted"}, START)
        assert store.scheduler.parameters == FITTED
        fitted_due = store.preview("q", card.due)[Rating.Good].due
        assert fitted_due != default_due
        with pytest.raises(ValueError, match="w20 must be a number from 0.1 to 0.8"):
            store.save_fitted((*FITTED[:20], 0.95), 600)
    with open_store(tmp_path) as store:  # kept
        assert store.fitted().parameters == FITTED and store.fitted().report == {"reason": "fitted"}
        assert store.preview("q", card.due)[Rating.Good].due == fitted_due
    assert main(["--data-dir", str(tmp_path), "progress", "optimize", "--reset"]) == 0
    with open_store(tmp_path) as store:
        assert store.fitted() is None and store.preview("q", card.due)[Rating.Good].due == default_due


def test_a_backup_carries_the_fitted_parameters_and_a_restore_restores_them(tmp_path: Path) -> None:
    with open_store(tmp_path / "old") as store:
        store.review("q", Rating.Good, START)
        store.save_fitted(FITTED, 600, {"after": {"log_loss": 0.41}}, START)
        data = export_backup(store)
    assert data["fitted_parameters"] == {
        "parameters": list(FITTED), "fitted_at": "2025-01-01T09:00:00.000000+00:00", "reviews": 600,
        "report": {"after": {"log_loss": 0.41}},
    }  # fmt: skip
    with open_store(tmp_path / "new") as store:
        report = import_backup(store, decode_backup_json(json.dumps(data)))
        assert report.fitted_taken == 1 and store.fitted().parameters == FITTED
        assert store.scheduler.parameters == FITTED
        newer = store.save_fitted(DEFAULT_PARAMETERS, 900, {}, START + timedelta(days=1))
        assert import_backup(store, data).fitted_taken == 0  # the one fitted last stays
        assert store.fitted() == newer
    with open_store(tmp_path / "empty") as store:
        assert export_backup(store)["fitted_parameters"] is None


@pytest.mark.parametrize(
    ("fitted", "where"),
    [
        ({"parameters": [0.1] * 20, "fitted_at": "2025-01-01T00:00:00+00:00", "reviews": 1},
         "fitted_parameters.parameters: FSRS-6 parameters are a list of 21 numbers"),
        ({"parameters": [*DEFAULT_PARAMETERS[:20], "x"], "fitted_at": "2025-01-01T00:00:00+00:00", "reviews": 1},
         "fitted_parameters.parameters: FSRS-6 parameter w20"),
        ({"parameters": list(DEFAULT_PARAMETERS), "fitted_at": "yesterday", "reviews": 1},
         "fitted_parameters.fitted_at"),
        ({"parameters": list(DEFAULT_PARAMETERS), "fitted_at": "2025-01-01T00:00:00+00:00", "reviews": -1},
         "fitted_parameters.reviews"),
        ([1, 2], "fitted_parameters: must be an object or null"),
    ],
)  # fmt: skip
def test_malformed_fitted_parameters_are_named(fitted: object, where: str) -> None:
    with pytest.raises(BackupError) as info:
        parse_backup(
            {
                "format": "posenc-progress",
                "version": 2,
                "cards": [],
                "reviews": [],
                "fitted_parameters": fitted,
            }
        )
    assert where in str(info.value)


@pytest.mark.slow  # the fit itself: torch, five epochs over about 1,050 reviews (about 20 s here)
def test_a_thousand_reviews_are_fitted_and_predict_the_learner_better(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reviews = simulate_reviews(70)
    with open_store(tmp_path) as store:
        store.set_setting("enable_fuzzing", False)
        store_reviews(store, reviews)
        assert store.review_count() == len(reviews) >= 1000
    assert main(["--data-dir", str(tmp_path), "progress", "optimize"]) == 0
    out = capsys.readouterr().out
    assert f"reviews: {len(reviews):,} on 70 cards;" in out
    for label in ("log loss", "RMSE", "predicted retention", "actual retention"):
        assert label in out
    assert "the scheduler uses the fitted parameters from the next review on" in out
    with open_store(tmp_path) as store:
        fitted = store.fitted()
        assert fitted is not None and fitted.reviews == len(reviews)
        assert store.scheduler.parameters == fitted.parameters != DEFAULT_PARAMETERS
        figures = fitted.report
    before, after = figures["before"], figures["after"]
    assert figures["fitted"] is True and figures["reason"] == "fitted" and figures["learnable"] >= 512
    assert after["log_loss"] < before["log_loss"] and after["rmse"] < before["rmse"]
    # the defaults over-predict this learner's recall; the fitted parameters come close to what happened
    actual = before["actual_retention"]
    assert before["predicted_retention"] - actual > 0.05
    assert abs(after["predicted_retention"] - actual) < 0.02
    logs = review_logs([ReviewRecord(r.question_id, r.rating, r.reviewed_at, r.duration_ms) for r in reviews])
    assert evaluate(logs, fitted.parameters).log_loss == pytest.approx(after["log_loss"])
