"""Key bursts at random speeds never crash the app: Quiz, Study (open, numeric and cloze cards, typed
answers) and the Demo lab, 50 runs (`make test`; one seeded run in `make check`), each key 0 to 300 ms
after the one before it.

Keys are posted as a terminal sends them (`post_keys`' way: without waiting for the app), so a key can
land while a card is being replaced, a rating saved or a demo run, which is where the `text-area--gutter`
crash came from. A run passes when the app is still running afterwards and nothing it did raised (an
exception in the app ends it, and `run_test` re-raises it).

The keys and gaps come from a seeded generator. The seed is printed (pytest shows it for a failing
test); replay one with `POSENC_STRESS_SEED=<seed> pytest tests/tui/test_key_bursts_stress.py`.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from support.apps import make_app, start_quiz
from support.pilot import settle, terminal_key, wait_for

from tui.screens.study import StudyScreen

RUNS = 50
CHUNKS = 10  # parametrized, so xdist spreads them; each chunk is one app doing RUNS // CHUNKS runs
KEYS_PER_SCREEN = 5  # presses, typed characters included: 50 runs take about 4 min of one core
MAX_GAP = 0.3  # seconds between two keys, at most
SEED = int(os.environ.get("POSENC_STRESS_SEED") or time.time_ns() % 1_000_000)
NOW = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)
SIZE = (100, 30)

QUIZ_IDS = ["fx.mcq", "fx.multi", "fx.truefalse", "fx.literal", "fx.numeric", "fx.cloze"]

# Open cards beside the fixture bank's six (one of them open), so Study often replaces a card whose revealed
# answer box is on screen: the window in which the `text-area--gutter` crash happened.
OPEN_BANK = r"""
topics:
  - topic: stress-open
    title: {en: "Open answers", zh: "开放题"}
    order: 9
    questions:
      - id: st.rope
        type: open
        difficulty: 2
        prompt: {en: "Why does RoPE encode relative position?", zh: "为什么 RoPE 编码的是相对位置？"}
        answer: {en: "Each pair rotates by an angle proportional to its position.", zh: "每一对按与位置成正比的角度旋转。"}
        key_points:
          - {en: "Rotation angle grows linearly with position", zh: "旋转角度随位置线性增长"}
          - {en: "The dot product depends only on the relative distance", zh: "点积只依赖相对距离"}
      - id: st.alibi
        type: open
        difficulty: 2
        prompt: {en: "What does ALiBi add to the logits?", zh: "ALiBi 往 logit 上加了什么？"}
        answer: {en: "A linear penalty, one slope per head.", zh: "线性惩罚，每个头一个斜率。"}
        key_points:
          - {en: "A penalty linear in distance", zh: "与距离成线性的惩罚"}
          - {en: "One fixed slope per head", zh: "每个头一个固定斜率"}
"""

# What a user does on each screen, as moves: a single key, a typed answer, or an answer then a rating
# (each key with its own gap). Keys that leave the screen for another (q, r, d on Quiz, c, p, Ctrl+Q)
# are left out, so every key of a run lands on the screen it was meant for or on a card of it.
TYPED = [list("slope"), list("0.004"), list("logit"), list("angle"), list("旋转")]
QUIZ_MOVES = [
    *[[key] for key in [*"1234", "t", "f", "up", "down", "enter", "space", "n", "y", "x", "h", "m"]],
    *[[key] for key in ["tab", "backspace", "escape", "ctrl+r", "l"]],
    ["enter", "n"],
    ["space", "n"],
]
STUDY_MOVES = [
    *[[key] for key in [*"1234", "enter", "space", "u", "ctrl+z", "tab", "backspace", "escape", "l"]],
    *[[reveal, rating] for reveal in ("enter", "ctrl+r", "space") for rating in "134"],
]
LAB_MOVES = [
    [key] for key in ["up", "down", "enter", "tab", "shift+tab", "d", "1", "2", "backspace", "escape"]
]


def burst(rng: random.Random, moves: list[list[str]]) -> list[str]:
    """KEYS_PER_SCREEN presses: moves, now and then (the start of) a typed answer."""
    out: list[str] = []
    while len(out) < KEYS_PER_SCREEN:
        out.extend(rng.choice(TYPED) if rng.random() < 0.25 else rng.choice(moves))
    return out[:KEYS_PER_SCREEN]


async def type_at_random_speed(app: Any, rng: random.Random, keys: list[str]) -> None:
    for key in keys:
        app.post_message(terminal_key(key))
        await asyncio.sleep(rng.uniform(0.0, MAX_GAP))


async def quiet(pilot: Any) -> None:
    """Wait until every key has been handled and the workers it started are done."""
    app = pilot.app
    await wait_for(
        lambda: not app.is_running or (app.key_queue.settled and all(w.is_finished for w in app.workers)),
        timeout=60,
        state=lambda: (
            f"in flight {app.key_queue.in_flight}, queued {app.key_queue.queued()}, screen {app.screen}"
        ),
    )
    if app.is_running:
        await settle(pilot)


async def back_to_home(pilot: Any) -> None:
    app = pilot.app
    while app.is_running and len(app.screen_stack) > 1:
        await app.pop_screen()
        await settle(pilot)


async def one_run(pilot: Any, rng: random.Random) -> None:
    app = pilot.app
    await start_quiz(pilot, rng.sample(QUIZ_IDS, len(QUIZ_IDS)))
    await type_at_random_speed(app, rng, burst(rng, QUIZ_MOVES))
    await quiet(pilot)
    await back_to_home(pilot)

    await app.push_screen(StudyScreen(None, clock=lambda: NOW))
    await settle(pilot)
    await type_at_random_speed(app, rng, burst(rng, STUDY_MOVES))
    await quiet(pilot)
    await back_to_home(pilot)

    app.open_demo(rng.choice(["alibi-bias", "alibi-slopes", "rope-relativity"]))
    await settle(pilot)
    await type_at_random_speed(app, rng, burst(rng, LAB_MOVES))
    await quiet(pilot)
    await back_to_home(pilot)


def drive(env: Path, seed: object, runs: list[int]) -> list[int]:
    """One app doing `runs` (each a Quiz, Study and Demo lab burst); returns the runs it finished."""
    done: list[int] = []

    async def run_all() -> None:
        app = make_app(env)
        (env / "banks" / "open.yaml").write_text(OPEN_BANK.lstrip(), encoding="utf-8")
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(lambda: app.bankset is not None and app.store is not None)
            app.store.set_setting("enable_fuzzing", False)
            for run in runs:
                print(f"run {run}")
                await one_run(pilot, random.Random(f"{seed}-{run}"))
                assert app.is_running, f"run {run} (seed {seed}) ended the app"
                done.append(run)

    asyncio.run(run_all())  # re-raises what the app raised
    return done


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS), ids=lambda c: f"chunk{c}")
def test_random_key_bursts_on_quiz_study_and_the_demo_lab_never_crash(env: Path, chunk: int) -> None:
    print(f"key-burst stress: POSENC_STRESS_SEED={SEED} (chunk {chunk})")
    runs = list(range(chunk, RUNS, CHUNKS))
    assert drive(env, SEED, runs) == runs


# Its bursts: Quiz moves on twice (x n enter n t), Study reveals and rates two cards in a row (u enter 4
# enter 3: the second reveal lands while the next card mounts), the Demo lab runs and edits (enter
# backspace 2 2 enter).
QUICK_SEED = 0


def test_one_seeded_key_burst_on_quiz_study_and_the_demo_lab(env: Path) -> None:
    """The fast loop's share of the stress test (`make check`): one run of the same bursts, seeded, so
    a change that breaks the key queue under a burst fails there and not only in `make test`."""
    assert drive(env, QUICK_SEED, [0]) == [0]
