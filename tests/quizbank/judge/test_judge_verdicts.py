"""quizbank.judge.verdicts: covered, contradicted or not found per key point, with evidence and correction."""

from __future__ import annotations

from types import SimpleNamespace

from quizbank.judge import PointVerdict, effective_marks, judge_answer
from quizbank.schema import KeyPoint, Misconception, Text

ONLY_QK = KeyPoint(
    en="RoPE rotates only q and k; V is left as it is.",
    zh="RoPE 只旋转 q 和 k，V 保持不变。",
    accept=["only q k rotat*", "v not rotat*", "只 .. q k 旋转", "v 不 旋转"],
    misconceptions=[
        Misconception(
            claim=Text(en="V is rotated too.", zh="V 也要旋转。"),
            match=["rotat* ~ v", "旋转 ~ v"],
            correction=Text(en="Only q and k are rotated.", zh="只旋转 q 和 k。"),
        )
    ],
)
NTK = KeyPoint(
    en="NTK-aware scaling extrapolates the high frequencies and interpolates the low ones.",
    zh="NTK 缩放对高频外推、对低频内插。",
    accept=["high ~ extrapolat* low ~ interpolat*", "高频 ~ 外推 低频 ~ 内插"],
    misconceptions=[
        Misconception(
            claim=Text(en="It interpolates the high frequencies.", zh="它对高频内插。"),
            match=["high ~ interpolat*", "高频 ~ 内插"],
            correction=Text(en="High frequencies barely change.", zh="高频几乎不变。"),
        )
    ],
)


def test_three_verdicts_with_evidence_and_correction() -> None:
    answer = (
        "First we project. RoPE rotates only q and k. Raising the base interpolates the high frequencies."
    )
    covered, wrong = judge_answer([ONLY_QK, NTK], answer)
    assert covered.verdict == "covered" and covered.evidence == "RoPE rotates only q and k."
    assert answer[covered.span[0] : covered.span[1]] == covered.evidence
    assert covered.rule == "accept: only q k rotat*"
    assert wrong.verdict == "contradicted" and wrong.evidence.startswith("Raising the base")
    assert (
        wrong.claim.en == "It interpolates the high frequencies." and wrong.correction.zh == "高频几乎不变。"
    )


def test_a_misconception_wins_over_a_right_sentence_but_not_when_reported() -> None:
    both = "Only q and k are rotated. Actually V gets rotated too."
    assert [v.verdict for v in judge_answer([ONLY_QK], both)] == ["contradicted"]
    reported = "Only q and k are rotated. A common mistake is to think V is rotated too."
    assert [v.verdict for v in judge_answer([ONLY_QK], reported)] == ["covered"]


def test_a_negated_accept_is_a_contradiction_whose_correction_is_the_point() -> None:
    (verdict,) = judge_answer([ONLY_QK], "V is rotated too, unlike what people say? no: v rotates.")
    assert verdict.verdict == "contradicted"
    plain = KeyPoint(
        en="the slopes form a geometric sequence", zh="斜率是等比数列", accept=["geometric slope*"]
    )
    (denied,) = judge_answer([plain], "The slopes are not geometric at all.")
    assert denied.verdict == "contradicted" and denied.rule == "denied: geometric slope*"
    assert denied.correction is plain


def test_chinese_answers_in_other_words() -> None:
    covered, wrong = judge_answer(
        [ONLY_QK, NTK], "只对 q 和 k 做旋转，V 不旋转。提高底数时高频内插，低频外推。"
    )
    assert covered.verdict == "covered"
    assert wrong.verdict == "contradicted" and wrong.claim.zh == "它对高频内插。"


def test_swapped_roles_are_never_covered() -> None:
    (verdict,) = judge_answer([NTK], "NTK interpolates the high frequencies and extrapolates the low ones.")
    assert verdict.verdict == "contradicted"
    (right,) = judge_answer([NTK], "The low frequencies are interpolated, while high ones are extrapolated.")
    assert right.verdict == "covered"


def test_empty_and_off_topic_answers_find_nothing() -> None:
    for answer in ("", "   ", "I don't know", "ALiBi adds a linear bias per head", "我不知道"):
        assert [v.verdict for v in judge_answer([ONLY_QK, NTK], answer)] == ["not_found", "not_found"]


def test_a_point_without_patterns_is_covered_by_its_own_words_and_not_by_a_few() -> None:
    plain = SimpleNamespace(en="Concatenation widens every layer or steals dimensions from content", zh=None)
    (restated,) = judge_answer(
        [plain], "Concatenating widens each layer, or it steals dimensions from the content."
    )
    assert restated.verdict == "covered" and restated.rule.startswith("own words")
    (few,) = judge_answer([plain], "Every layer has content.")
    assert few.verdict == "not_found"


def test_a_supposition_hedges_its_own_clause_only() -> None:
    grow = KeyPoint(
        en="A larger base lengthens the longest wavelength.",
        zh="底数越大，最长波长越长。",
        misconceptions=[
            Misconception(
                claim=Text(en="A larger base shortens the context.", zh="底数越大上下文越短。"),
                match=["base ~ hurt* ~ context"],
                correction=Text(en="It lengthens the wavelengths.", zh="它让波长变长。"),
            )
        ],
    )
    (said,) = judge_answer([grow], "If you train at 4K, a bigger base would hurt long context.")
    assert said.verdict == "contradicted"  # the `if` clause is hedged, the claim after it is not
    (supposed,) = judge_answer([grow], "If a bigger base would hurt long context, nobody would raise it.")
    assert supposed.verdict == "not_found"


def test_one_negated_word_is_no_denial() -> None:
    once = KeyPoint(en="training is needed", zh="需要训练", accept=["train*"])
    assert [v.verdict for v in judge_answer([once], "No training needed.")] == ["not_found"]


def test_the_candidates_ticks_override_the_judge() -> None:
    """A tick covers a point; unticking a point the judge found contradicted makes it contradicted again;
    a point past the verdicts (never judged) is not found. Quiz, Study and the mock use these marks."""
    verdicts = [PointVerdict("covered"), PointVerdict("contradicted"), PointVerdict("not_found")]
    assert effective_marks([True, False, False], verdicts) == ["covered", "contradicted", "not_found"]
    assert effective_marks([False, True, True, False], verdicts) == [
        "not_found",
        "covered",
        "covered",
        "not_found",
    ]
    assert effective_marks([], verdicts) == []
