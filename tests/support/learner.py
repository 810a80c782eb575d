"""A simulated learner for the FSRS fitting tests: review histories drawn deterministically from a memory with
known FSRS-6 parameters, scheduled as the app schedules (fsrs's defaults), written to a store in one
transaction.

The learner forgets faster than fsrs's defaults assume (`LEARNER_PARAMETERS`: initial stabilities a fifth of the
defaults', slower stability growth, a steeper forgetting curve), so the defaults over-predict recall on its
history and a fit has something to find.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from fsrs import Card, Rating, Scheduler

from quizbank.progress.records import ImportedHistory, ReviewRecord
from quizbank.progress.scheduler import DEFAULT_PARAMETERS

__all__ = ["LEARNER_PARAMETERS", "START", "simulate_reviews", "store_reviews"]

START = datetime(2025, 1, 1, 9, 0, tzinfo=UTC)
LEARNER_PARAMETERS = (
    *(w * 0.2 for w in DEFAULT_PARAMETERS[:4]),
    *DEFAULT_PARAMETERS[4:8],
    DEFAULT_PARAMETERS[8] - 0.8,
    *DEFAULT_PARAMETERS[9:20],
    0.5,
)


def simulate_reviews(cards: int, days: int = 150, seed: int = 7) -> list[ReviewRecord]:
    """Reviews of `cards` questions (`sim.0`, `sim.1`, ...), four new a day, each reviewed when the default
    scheduler makes it due (plus up to ten hours) until `days` after START. At a review the learner recalls
    with the probability its own memory (LEARNER_PARAMETERS) gives; a recalled card is rated Hard, Good or Easy
    (1 : 8 : 1), a forgotten one Again; a first review is Again, Hard, Good or Easy (3 : 1 : 5 : 1)."""
    rng = random.Random(seed)
    memory = Scheduler(parameters=LEARNER_PARAMETERS, enable_fuzzing=False)
    app = Scheduler(enable_fuzzing=False)
    end = START + timedelta(days=days)
    out: list[ReviewRecord] = []
    for n in range(cards):
        at = START + timedelta(days=n // 4, hours=rng.random() * 8)
        shown, mind = Card(card_id=n + 1, due=at), Card(card_id=n + 1, due=at)
        while at < end:
            if mind.last_review is None:
                rating = rng.choices((1, 2, 3, 4), (3, 1, 5, 1))[0]
            elif rng.random() >= memory.get_card_retrievability(mind, at):
                rating = 1
            else:
                rating = rng.choices((2, 3, 4), (1, 8, 1))[0]
            shown, _ = app.review_card(shown, Rating(rating), at)
            mind, _ = memory.review_card(mind, Rating(rating), at)
            out.append(ReviewRecord(f"sim.{n}", rating, at, 5000))
            at = shown.due + timedelta(hours=rng.random() * 10)
    return out


def store_reviews(store, reviews: list[ReviewRecord]) -> None:
    """Write the reviews to `store` in one transaction (as a backup merge: each card rebuilt by replay)."""
    store.merge_backup(ImportedHistory(reviews=reviews))
