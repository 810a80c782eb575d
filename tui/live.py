"""Fresh instances of generated questions for the app (quizbank.generated.instances), one per showing.

A generated question is a template; a session shows it as an ordinary numeric question whose
numbers were drawn from a fresh seed and whose answer the demo host computed. `draw_showing` blocks
on a demo run, so screens call it from a thread worker (never on the UI thread) and get the result
back in a message. No textual here, and no torch: the runner is the app's demo host.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from quizbank.generated.draw import VaryError
from quizbank.generated.instances import (
    Instance,
    InstanceError,
    draw_instance,
    fresh_seed,
    is_generated,
    materialise,
    resolve,
)

__all__ = ["LiveShowing", "draw_plan_showings", "draw_showing", "is_generated", "instance_record"]

ATTEMPTS = 3  # a seed whose demo refuses its draw is replaced by another, this many times in all


@dataclass(frozen=True)
class LiveShowing:
    """One showing of a generated question: the question as the widgets see it, and its instance."""

    question: Any  # an ordinary NumericQuestion: texts filled, value and tolerance computed
    instance: Instance

    def record(self) -> dict[str, Any]:
        """What attempt and review rows keep: the seed and the drawn parameters."""
        return instance_record(self.instance)


def instance_record(instance: Instance) -> dict[str, Any]:
    return {"seed": instance.seed, "params": dict(instance.params)}


def draw_showing(question: Any, runner: Any, seed: int | None = None) -> LiveShowing:
    """Draw a fresh instance of `question` and compute its answer with `runner(name, params)`.
    Blocking: call it from a worker. Raises InstanceError when no seed gives an answer."""
    last: Exception | None = None
    for _ in range(1 if seed is not None else ATTEMPTS):
        chosen = fresh_seed() if seed is None else seed
        try:
            instance = resolve(draw_instance(question, chosen), question, runner)
            return LiveShowing(materialise(question, instance), instance)
        except (VaryError, InstanceError) as exc:
            last = exc
        except Exception as exc:  # noqa: BLE001 - the demo host's error (RemoteDemoError) or a dead host
            last = InstanceError(" ".join(f"{type(exc).__name__}: {exc}".split()))
    raise InstanceError(f"{question.id}: {last}")


def draw_plan_showings(
    plan: Any, bankset: Any, runner: Any
) -> tuple[Any, dict[str, LiveShowing], tuple[Any, ...]]:
    """A mock interview plan's showings (item id -> LiveShowing), one draw per generated item. An item no
    draw gives an answer for is left out of the plan, with its follow-ups, and the interview goes on without
    it. Returns (plan, showings, skipped: ((item id, why), ...)). Blocking: call it from a worker."""
    live: dict[str, LiveShowing] = {}
    skipped: list[tuple[str, str]] = []
    for item in plan.items:
        question = bankset.questions.get(item.id) if item.kind != "drill" else None
        if question is not None and is_generated(question):
            try:
                live[item.id] = draw_showing(question, runner)
            except Exception as exc:  # noqa: BLE001 - InstanceError, or the demo host's own failure
                skipped.append((item.id, " ".join(str(exc).split())))
    if skipped:
        left_out = {item_id for item_id, _ in skipped}
        kept = tuple(i for i in plan.items if i.id not in left_out and i.follow_up_of not in left_out)
        plan = replace(plan, items=kept)
    return plan, live, tuple(skipped)
