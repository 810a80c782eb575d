"""A schedule fitted to the person: FSRS-6 parameters fitted to the store's own review history with the `fsrs`
package's optimizer (`fsrs.Optimizer.compute_optimal_parameters`, py-fsrs 6.3, which needs torch), and the
figures that say whether they predict this person's recall better than fsrs's defaults.

**How much history.** FSRS learns from reviews made a day or more after the card's previous review (a
same-day review says nothing about forgetting), among each card's first 64 reviews. py-fsrs 6.3's
`compute_optimal_parameters` counts those and returns the default parameters unchanged below 512 (its
`mini_batch_size`); Anki, which runs the same model, asked for 1,000 reviews before 24.04 and 400 since.
`fit_parameters` counts them first, without torch: below `MIN_REVIEWS` it keeps the defaults and says so.

**The figures** (`Evaluation`), computed without torch by replaying every card with `fsrs.Scheduler`, for the
defaults and for the fitted parameters, over the reviews the optimizer learns from: the predicted probability of
recall p before each review against what happened (y = 0 for Again, else 1): log loss -mean(y log p + (1 - y)
log(1 - p)), RMSE sqrt(mean((p - y)^2)), the mean of p (the predicted retention) and the mean of y (the
retention the person had). A fit that does not lower the log loss is not kept.

torch is imported only inside `fit_parameters`, after the count (`posenc progress optimize` is the only caller):
never at app start.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from fsrs import Card, Rating, ReviewLog, Scheduler

from quizbank.progress.scheduler import DEFAULT_PARAMETERS, check_parameters, stable_card_id

__all__ = [
    "MAX_SEQ_LEN",
    "MIN_REVIEWS",
    "Evaluation",
    "FitReport",
    "count_learnable",
    "evaluate",
    "fit_parameters",
    "review_logs",
]

MIN_REVIEWS = 512  # py-fsrs 6.3: compute_optimal_parameters returns the defaults below its mini_batch_size
MAX_SEQ_LEN = 64  # py-fsrs 6.3: the optimizer reads each card's first 64 reviews
_EPS = 1e-6  # p is clamped to [eps, 1 - eps] for the log loss


@dataclass(frozen=True)
class Evaluation:
    """How well a set of parameters predicts the history (see the module docstring)."""

    reviews: int  # reviews scored: a day or more after the card's previous one
    log_loss: float
    rmse: float
    predicted_retention: float  # mean predicted probability of recall
    actual_retention: float  # share of those reviews not rated Again


@dataclass(frozen=True)
class FitReport:
    """What `fit_parameters` did. `parameters` are the fitted ones when `fitted`, else the defaults."""

    reviews: int  # review rows read
    cards: int
    learnable: int  # reviews the optimizer learns from (a day or more after the card's previous one)
    minimum: int
    fitted: bool
    reason: (
        str  # "fitted", "too_few" (learnable < minimum) or "no_better" (the fit did not lower the log loss)
    )
    parameters: tuple[float, ...]
    before: Evaluation | None  # the defaults
    after: Evaluation | None  # the fitted parameters (None when too few reviews to fit)
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["parameters"] = list(self.parameters)
        return data


def review_logs(rows: Sequence[Any]) -> list[ReviewLog]:
    """The store's review rows (`ProgressStore.review_rows()`) as fsrs ReviewLogs, one card per question."""
    return [
        ReviewLog(
            card_id=stable_card_id(row.question_id),
            rating=Rating(int(row.rating)),
            review_datetime=row.reviewed_at,
            review_duration=row.duration_ms,
        )
        for row in rows
    ]


def _histories(logs: Sequence[ReviewLog]) -> dict[int, list[tuple[datetime, Rating]]]:
    """Each card's first MAX_SEQ_LEN reviews in time order (the optimizer's own selection)."""
    out: dict[int, list[tuple[datetime, Rating]]] = {}
    for log in logs:
        out.setdefault(log.card_id, []).append((log.review_datetime, Rating(int(log.rating))))
    return {
        card_id: sorted(history, key=lambda item: item[0])[:MAX_SEQ_LEN] for card_id, history in out.items()
    }


def count_learnable(logs: Sequence[ReviewLog]) -> int:
    """Reviews a day (24 h) or more after the same card's previous review, among each card's first 64: what
    py-fsrs's optimizer learns from and counts against its minimum."""
    total = 0
    for history in _histories(logs).values():
        total += sum(1 for (before, _), (at, _) in zip(history, history[1:]) if (at - before).days > 0)
    return total


def evaluate(logs: Sequence[ReviewLog], parameters: Sequence[float]) -> Evaluation | None:
    """The figures of `parameters` on the history (None when no review is a day after its card's previous)."""
    scheduler = Scheduler(parameters=tuple(parameters), enable_fuzzing=False)
    predicted: list[float] = []
    recalled: list[int] = []
    for card_id, history in _histories(logs).items():
        card: Card | None = None
        for at, rating in history:
            if card is None:
                card = Card(card_id=card_id, due=at)
            elif card.last_review is not None and (at - card.last_review).days > 0:
                predicted.append(float(scheduler.get_card_retrievability(card, at)))
                recalled.append(0 if rating == Rating.Again else 1)
            card, _ = scheduler.review_card(card, rating, at)
    n = len(predicted)
    if not n:
        return None
    clamped = [min(max(p, _EPS), 1 - _EPS) for p in predicted]
    log_loss = -sum(y * math.log(p) + (1 - y) * math.log(1 - p) for p, y in zip(clamped, recalled)) / n
    rmse = math.sqrt(sum((p - y) ** 2 for p, y in zip(predicted, recalled)) / n)
    return Evaluation(n, log_loss, rmse, sum(predicted) / n, sum(recalled) / n)


def fit_parameters(rows: Sequence[Any], *, minimum: int = MIN_REVIEWS) -> FitReport:
    """Fit FSRS-6 parameters to the review rows (`ProgressStore.review_rows()`). Below `minimum` learnable
    reviews nothing is fitted (and torch is not imported); a fit that does not lower the log loss on the
    history is reported but not recommended (`fitted` False)."""
    started = time.monotonic()
    logs = review_logs(rows)
    learnable = count_learnable(logs)
    cards = len({log.card_id for log in logs})
    before = evaluate(logs, DEFAULT_PARAMETERS)
    if learnable < minimum:
        return FitReport(
            len(logs), cards, learnable, minimum, False, "too_few", tuple(DEFAULT_PARAMETERS), before, None,
            time.monotonic() - started,
        )  # fmt: skip
    parameters = check_parameters(list(_optimizer()(logs).compute_optimal_parameters()))
    after = evaluate(logs, parameters)
    better = before is None or (after is not None and after.log_loss < before.log_loss)
    return FitReport(
        len(logs), cards, learnable, minimum, better, "fitted" if better else "no_better",
        parameters if better else tuple(DEFAULT_PARAMETERS), before, after, time.monotonic() - started,
    )  # fmt: skip


def _optimizer() -> Any:
    """`fsrs.optimizer.Optimizer` (imports torch).

    py-fsrs's optimizer module imports pandas and tqdm at the top (its `fsrs[optimizer]` extra) and, without
    them, defines a stand-in that raises ImportError. `compute_optimal_parameters` uses neither: tqdm only
    draws its progress bar (off unless verbose), pandas only serves `compute_optimal_retention`, which posenc
    does not call. So when either is missing, a minimal stand-in module is in `sys.modules` for the import of
    `fsrs.optimizer` only (tqdm: pass the iterable through; pandas: empty), and taken out again at once, so no
    other import sees it (torch's own import-time probes ask `find_spec("pandas")`).
    """
    import importlib
    import importlib.util
    import sys
    import types

    module = sys.modules.get("fsrs.optimizer")
    if module is not None and hasattr(module, "torch"):
        return module.Optimizer
    stand_ins: dict[str, types.ModuleType] = {}
    if importlib.util.find_spec("tqdm") is None:
        tqdm = types.ModuleType("tqdm")
        tqdm.tqdm = lambda iterable, *args, **kwargs: iterable  # type: ignore[attr-defined]
        stand_ins["tqdm"] = tqdm
    if importlib.util.find_spec("pandas") is None:
        stand_ins["pandas"] = types.ModuleType("pandas")
    for name, stand_in in stand_ins.items():
        sys.modules[name] = stand_in
    try:
        if module is None:
            module = importlib.import_module("fsrs.optimizer")
        else:  # imported before without its extras: the ImportError stand-in class
            module = importlib.reload(module)
    finally:
        for name, stand_in in stand_ins.items():
            if sys.modules.get(name) is stand_in:
                del sys.modules[name]
    if not hasattr(module, "torch"):
        raise RuntimeError("the FSRS optimizer needs torch, which is not installed")
    return module.Optimizer
