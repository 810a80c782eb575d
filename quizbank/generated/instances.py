"""Instances of generated questions: draw parameters from a seed, fill the texts, compute the answer.

A generated question (a numeric question with `vary:`, see quizbank/generated/draw.py) is a template. An
instance is one showing of it::

    inst = draw_instance(question, seed=7)        # pure Python: params, filled texts, demo call
    inst = resolve(inst, runner)                   # runs the demo once: value and tolerance
    shown = materialise(question, inst)            # an ordinary NumericQuestion for the widgets

The same (question id, seed) gives the same instance in any process. `runner(name, params)`
returns a demo result (a DemoResult or its dict); resolving never happens at load time and is the
only step that needs torch (the demos import it inside their run functions).
"""

from __future__ import annotations

import math
import secrets
from dataclasses import dataclass, field, replace
from typing import Any

from ..checks import CheckPathError, as_number, resolve_path
from ..schema import LANGS, CheckSpec, DemoRef, NumericQuestion, Text
from .draw import draw, fill, fill_params, fill_path

# the seeds the Anki and Markdown exports write (stable across exports)
EXPORT_SEEDS: tuple[int, ...] = (1, 2, 3)
MAX_SEED = 2**31 - 1


class InstanceError(ValueError):
    """An instance whose answer cannot be computed (the demo refuses or fails, a bad path, a non-number)."""


def is_generated(question: Any) -> bool:
    return bool(getattr(question, "vary", None)) and getattr(question, "live_answer", None) is not None


def fresh_seed() -> int:
    """A seed for a new showing (the app): any process, no global random state."""
    return secrets.randbelow(MAX_SEED) + 1


@dataclass(frozen=True)
class Instance:
    question_id: str
    seed: int
    params: dict[str, Any]
    prompt: dict[str, str]
    explanation: dict[str, str]
    hints: list[dict[str, str]]
    demo_name: str
    demo_params: dict[str, Any]
    path: str
    value: float | None = None
    tolerance: float | None = None
    demo_passed: bool | None = None  # the demo's own checks, once resolved
    failed_checks: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """`posenc bank sample --json`: id, seed, params, prompt, answer, demo."""
        return {
            "id": self.question_id,
            "seed": self.seed,
            "params": dict(self.params),
            "prompt": dict(self.prompt),
            "answer": {"value": self.value, "tolerance": self.tolerance},
            "demo": {"name": self.demo_name, "params": dict(self.demo_params), "path": self.path},
        }


def _texts(text: Text | None, params: dict[str, Any]) -> dict[str, str]:
    if text is None:
        return {}
    return {lang: fill(text.get(lang), params) for lang in LANGS if text.has(lang)}


def draw_instance(question: Any, seed: int) -> Instance:
    """Parameters and filled texts for `seed`; the answer is not computed yet. Raises VaryError."""
    live = question.live_answer
    params = draw(question.id, question.vary, seed)
    return Instance(
        question_id=question.id,
        seed=int(seed),
        params=params,
        prompt=_texts(question.prompt, params),
        explanation=_texts(question.explanation, params),
        hints=[_texts(h, params) for h in question.hints],
        demo_name=live.demo,
        demo_params=fill_params(dict(live.params), params),
        path=fill_path(live.path, params),
    )


def answer_from(result: Any, instance: Instance, question: Any) -> Instance:
    """The instance with its answer read from a demo `result` (a DemoResult or its dict)."""
    data = result.to_dict() if hasattr(result, "to_dict") else result
    try:
        raw = resolve_path(data, instance.path)
    except CheckPathError as exc:
        raise InstanceError(str(exc)) from None
    value = as_number(raw)
    if value is None:
        raise InstanceError(f"{instance.path} is {raw!r}, not a number")
    if not math.isfinite(value):
        raise InstanceError(f"{instance.path} is {raw!r}, not a finite number")
    failed = [str(c.get("claim", "")) for c in data.get("checks", []) if not c.get("passed", False)]
    return replace(
        instance,
        value=value,
        tolerance=question.live_answer.tolerance_for(value),
        demo_passed=not failed,
        failed_checks=failed,
    )


def resolve(instance: Instance, question: Any, runner: Any) -> Instance:
    """Run the instance's demo through `runner(name, params)` and read its answer."""
    from posenc_ref.demos import DemoError

    try:
        result = runner(instance.demo_name, dict(instance.demo_params))
    except DemoError as exc:
        raise InstanceError(f"demo {instance.demo_name!r} cannot run: {' '.join(str(exc).split())}") from None
    return answer_from(result, instance, question)


def materialise(question: Any, instance: Instance) -> NumericQuestion:
    """An ordinary numeric question for this instance: texts filled, value and tolerance computed,
    its demo panel set to the instance's demo and parameters, backed by a check of that value."""
    if instance.value is None or instance.tolerance is None:
        raise InstanceError(f"instance {instance.question_id}#{instance.seed} has no computed answer yet")
    data = question.model_dump(exclude={"vary", "live_answer", "few_answers"}, exclude_none=True)
    data.update(
        prompt=Text(**instance.prompt),
        explanation=Text(**instance.explanation),
        hints=[Text(**h) for h in instance.hints],
        value=instance.value,
        tolerance=instance.tolerance,
        demo=DemoRef(name=instance.demo_name, params=instance.demo_params),
        checks=[
            CheckSpec(
                demo=instance.demo_name,
                params=instance.demo_params,
                path=instance.path,
                expect=instance.value,
                tolerance=instance.tolerance,
            )
        ],
    )
    return NumericQuestion.model_validate(data)


def default_runner(device: str = "cpu") -> Any:
    """Run demos in this process (the CLI); the app runs them in its demo host instead."""

    def run(name: str, params: dict[str, Any]) -> Any:
        from posenc_ref.demos import run_demo

        return run_demo(name, params, device=device)

    return run


def export_showings(question: Any, runner: Any = None) -> list[NumericQuestion]:
    """The instances of seeds EXPORT_SEEDS, materialised: what the Anki and Markdown exports write
    (the same numbers in every export). Runs the demos (in this process unless `runner` is given)."""
    run = runner or default_runner("cpu")
    return [
        materialise(question, resolve(draw_instance(question, seed), question, run)) for seed in EXPORT_SEEDS
    ]
