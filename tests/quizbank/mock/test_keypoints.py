"""quizbank.mock.keypoints: a typed answer pre-ticks the key points it covers, paraphrases included."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from quizbank.loader import load_banks
from quizbank.mock.keypoints import covered, match_key_points


def point(en: str, zh: str | None = None) -> SimpleNamespace:
    return SimpleNamespace(en=en, zh=zh, match=[])


@pytest.mark.parametrize(
    ("key_point", "answer"),
    [
        (
            "Rows beyond the training length keep their random initialisation (zero gradient throughout)",
            "positions past the trained length stay random since they never receive any gradient",
        ),
        (
            "Concatenation widens every layer (more parameters and compute) or steals dimensions from content",
            "concatenating makes the model wider and costs more parameters",
        ),
        (
            "Neighbouring positions can differ in many bits (carries), so code distance does not track "
            "position distance",
            "adjacent positions may flip lots of bits so the gap between codes doesn't follow the positions",
        ),
        ("order is built into the computation graph, not the inputs", "the inputs carry no order"),
        (
            "Interpolating rows avoids untrained rows but lowers positional resolution",
            "interpolate the existing rows; no untrained rows but the resolution drops",
        ),
        ("The model must be initialised with care", "initialize the model carefully"),
    ],
)
def test_plain_paraphrases_tick(key_point: str, answer: str) -> None:
    assert covered(point(key_point), answer)


@pytest.mark.parametrize(
    ("key_point", "answer"),
    [
        ("order is built into the computation graph, not the inputs", "ALiBi adds a linear bias to logits"),
        ("Interpolating rows avoids untrained rows but lowers positional resolution", "RoPE rotates q and k"),
        ("Concatenation widens every layer or steals dimensions from content", ""),
    ],
)
def test_unrelated_answers_do_not_tick(key_point: str, answer: str) -> None:
    assert not covered(point(key_point), answer)


def test_on_the_shipped_bank_the_model_answer_covers_its_points_and_another_does_not() -> None:
    questions = [q for q in load_banks(include_user=False).ordered_questions() if q.type == "open"]
    own = other = total = 0
    for i, question in enumerate(questions):
        points = question.key_points
        own += sum(match_key_points(points, question.answer.get("en")))
        other += sum(match_key_points(points, questions[(i + 7) % len(questions)].answer.get("en")))
        total += len(points)
    # measured on the merged bank: 308/323 own (292 before the paraphrase rules); from another
    # question's answer 42/323 (25 before): the price of ticking paraphrases, which the candidate unticks
    assert own >= 0.93 * total and other <= 0.15 * total, (own, other, total)
