"""quizbank.mock.keypoints: the simple view of the judge, one pre-tick per key point, True only if covered."""

from __future__ import annotations

from types import SimpleNamespace

from quizbank.loader import load_banks
from quizbank.mock.keypoints import covered, match_key_points


def point(en: str, zh: str | None = None, **fields: object) -> SimpleNamespace:
    return SimpleNamespace(**{"en": en, "zh": zh, "match": [], "accept": [], "misconceptions": [], **fields})


def test_a_contradicted_point_is_not_ticked() -> None:
    wrong = SimpleNamespace(claim=None, match=["rotat* ~ v|value"], correction=None)
    only_qk = point("RoPE rotates q and k, never v", accept=["v not rotat*"], misconceptions=[wrong])
    assert match_key_points([only_qk], "It leaves v alone: v is not rotated.") == [True]
    assert match_key_points([only_qk], "RoPE rotates v too.") == [False]
    assert not covered(only_qk, "") and not covered(only_qk, "   ")


def test_restating_a_point_ticks_it_and_another_point_stays_unticked() -> None:
    points = [
        point("The model must be initialised with care"),
        point("ALiBi adds a linear bias to the logits"),
    ]
    assert match_key_points(points, "initialize the model carefully") == [True, False]


def test_on_the_shipped_bank_the_model_answer_covers_most_points_and_another_answer_few() -> None:
    questions = [q for q in load_banks(include_user=False).ordered_questions() if q.type == "open"]
    own = other = total = 0
    for i, question in enumerate(questions):
        points = question.key_points
        own += sum(match_key_points(points, question.answer.get("en")))
        other += sum(match_key_points(points, questions[(i + 7) % len(questions)].answer.get("en")))
        total += len(points)
    # a model answer restates its points (most of them in its own sentences); another question's answer
    # ticks few (measured 13 of 323 before the bank's accept patterns; the first matcher ticked 42)
    assert own >= 0.6 * total and other <= 0.06 * total, (own, other, total)


def test_no_answer_preticks_nothing_over_the_shipped_bank() -> None:
    for question in load_banks(include_user=False).questions.values():
        points = getattr(question, "key_points", None)
        if points:
            assert not any(match_key_points(points, "我不知道，这个没学过")), question.id
            assert not any(match_key_points(points, "I have no idea, sorry")), question.id
