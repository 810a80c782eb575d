"""The mock-interview planner (quizbank/mock/planner.py), key-point matching and the report, over the shipped bank,
the real drills catalogue and small synthetic banks."""

from __future__ import annotations

import dataclasses
import functools
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from support.banks import shipped_bankset as shipped
from support.question_types import register_type

from quizbank.drills import drills as drill_catalogue
from quizbank.loader import load_banks
from quizbank.mock.planner import (
    LEVELS,
    BankTooSmallError,
    PlanError,
    base_minutes,
    plan_interview,
    skill_of,
    weights_from_store,
)
from quizbank.mock.report import ItemResult, build_report, render_markdown
from quizbank.progress.store import open_store
from quizbank.question_types import question_type

PROPS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@functools.cache
def catalogue() -> tuple[Any, ...]:
    return tuple(drill_catalogue())


def topic_ids() -> list[str]:
    return [t.id for t in shipped().topics]


def check_budget(plan: Any, minutes: int) -> None:
    total = sum(item.minutes for item in plan.items)
    assert total <= minutes * 1.05 + 1e-9
    assert total >= minutes * 0.9 - 1e-9
    assert all(item.minutes > 0 for item in plan.items)


def check_follow_ups(plan: Any, bankset: Any) -> None:
    ids = [item.id for item in plan.items]
    assert len(ids) == len(set(ids)), "an item appears twice"
    for index, item in enumerate(plan.items):
        if item.follow_up_of is not None:
            assert index > 0 and plan.items[index - 1].id == item.follow_up_of
            assert item.id in bankset.questions[item.follow_up_of].follow_ups


# ---------------------------------------------------------------------------------------------------- shipped bank


@PROPS
@given(
    minutes=st.integers(5, 180),
    seed=st.integers(0, 2**31),
    level=st.sampled_from(sorted(LEVELS)),
)
def test_budgets_add_up_and_follow_ups_follow_their_parent(minutes: int, seed: int, level: str) -> None:
    plan = plan_interview(shipped(), catalogue(), minutes=minutes, seed=seed, level=level)
    check_budget(plan, minutes)
    check_follow_ups(plan, shipped())
    allowed = set(LEVELS[level])
    assert all(item.difficulty in allowed for item in plan.items)
    assert plan.to_json()["items"][0].keys() == {"kind", "id", "topic", "skill", "minutes", "follow_up_of"}


@PROPS
@given(
    minutes=st.integers(5, 14),
    seed=st.integers(0, 2**31),
    level=st.sampled_from(sorted(LEVELS)),
)
@example(minutes=11, seed=4, level="deep")  # found by hypothesis: a swap took out the easy open question
def test_a_short_interview_opens_easy_and_has_something_to_explain(
    minutes: int, seed: int, level: str
) -> None:
    """A 5-minute mock was a true/false and a numeric item: now a warm-up, then an open question."""
    plan = plan_interview(shipped(), catalogue(), minutes=minutes, seed=seed, level=level)
    check_budget(plan, minutes)
    types = [item.qtype for item in plan.items]
    assert "open" in types and types[0] != "truefalse", types
    assert len(types) >= 2 or level == "deep", types  # deep: one 4-minute open question fills 5 minutes
    opens = [item.difficulty for item in plan.items if item.qtype == "open"]
    assert min(opens) == min(LEVELS[level]), (level, opens)  # the easiest open question on offer


@PROPS
@given(seed=st.integers(0, 2**31))
@example(seed=3026)  # found by hypothesis: no question on the plan had a follow-up that fit
def test_default_interview_covers_topics_and_skills(seed: int) -> None:
    plan = plan_interview(shipped(), catalogue(), seed=seed)
    check_budget(plan, 45)
    assert len({item.topic for item in plan.items}) >= 4
    assert len({item.skill for item in plan.items}) >= 3
    first = plan.items[0]
    assert first.kind == "question" and first.skill == "concept"
    assert first.difficulty == min(LEVELS["standard"])  # a warm-up
    assert any(item.kind == "drill" for item in plan.items)
    assert any(item.follow_up_of is not None for item in plan.items)


@PROPS
@given(minutes=st.integers(30, 180), seed=st.integers(0, 2**31))
def test_a_coding_drill_from_30_minutes(minutes: int, seed: int) -> None:
    plan = plan_interview(shipped(), catalogue(), minutes=minutes, seed=seed)
    drills = [item for item in plan.items if item.kind == "drill"]
    assert 1 <= len(drills) <= 2
    assert all(item.skill == "coding" for item in drills)


@PROPS
@given(
    topics=st.lists(
        st.sampled_from(["why-pe", "rope", "alibi", "relative", "context-extension"]),
        min_size=1,
        max_size=3,
        unique=True,
    ),  # fmt: skip
    seed=st.integers(0, 2**31),
    minutes=st.integers(5, 30),
)
def test_topics_restrict_every_item(topics: list[str], seed: int, minutes: int) -> None:
    try:
        plan = plan_interview(shipped(), catalogue(), minutes=minutes, topics=topics, seed=seed)
    except BankTooSmallError:
        return  # said clearly (see the synthetic tests); nothing to check here
    assert {item.topic for item in plan.items} <= set(topics)
    check_budget(plan, minutes)
    check_follow_ups(plan, shipped())


@PROPS
@given(seed=st.integers(0, 2**31), minutes=st.integers(5, 180))
def test_same_seed_same_plan(seed: int, minutes: int) -> None:
    first = plan_interview(shipped(), catalogue(), minutes=minutes, seed=seed)
    again = plan_interview(shipped(), catalogue(), minutes=minutes, seed=seed)
    assert first == again
    assert first.seed == seed


def test_different_seeds_give_different_plans() -> None:
    plans = {tuple(i.id for i in plan_interview(shipped(), catalogue(), seed=s).items) for s in range(20)}
    assert len(plans) == 20


def test_skill_rule_and_base_times() -> None:
    questions = shipped().questions
    assert skill_of(questions["rope.complex-derivation"]) == "derivation"  # open, tagged derivation
    assert skill_of(questions["why-pe.permutation-equivariance"]) == "concept"  # open, no derivation tag
    # an open question asking for code ("Implement the sinusoidal table…") is coding, timed like a derivation
    assert skill_of(questions["coding.sinusoidal-table"]) == "coding"
    assert all(skill_of(q) == "coding" for q in questions.values() if q.type == "open" and "coding" in q.tags)
    assert base_minutes("coding", "open", 2) == 6.5
    numeric = next(q for q in questions.values() if q.type == "numeric")
    cloze = next(q for q in questions.values() if q.type == "cloze")
    assert skill_of(numeric) == skill_of(cloze) == "computation"
    assert base_minutes("concept", "mcq", 1) == 1.5
    assert base_minutes("derivation", "open", 3) == 8.0
    assert base_minutes("computation", "numeric", 2) == 3.5


@pytest.mark.parametrize(
    ("minutes", "topics", "level", "needle"),
    [
        (4, None, "standard", "from 5 to 180"),
        (181, None, "standard", "from 5 to 180"),
        (45, ["rope", "nope"], "standard", "unknown topic 'nope'; choose from: why-pe"),
        (45, None, "hard", "choose one of: basic, standard, deep"),
    ],
)
def test_bad_requests_name_the_valid_choices(minutes: int, topics: Any, level: str, needle: str) -> None:
    with pytest.raises(PlanError) as info:
        plan_interview(shipped(), catalogue(), minutes=minutes, topics=topics, level=level, seed=1)
    assert needle in str(info.value)
    assert "\n" not in str(info.value)


def test_weights_lean_towards_weak_and_unseen(tmp_path: Path) -> None:
    bankset = shipped()
    ids = list(bankset.questions)
    now = datetime(2026, 1, 10, tzinfo=UTC)
    with open_store(tmp_path) as store:
        known = ids[0]
        store.review(known, 4, now=now)  # easy: recall close to 1 right after
        store.record_attempt(ids[1], False, "x", 1000, at=now)
        store.record_drill_attempt("alibi-bias", False, 2, 7, 900.0, at=now)
        store.record_drill_attempt("alibi-slopes", True, 7, 7, 900.0, at=now)
        weights = weights_from_store(store, ids[:3], ["rope-half", "alibi-bias", "alibi-slopes"], now=now)
    assert weights[known] == pytest.approx(1.0, abs=0.01)
    assert weights[ids[1]] == 3.5  # unseen (2.0) + wrong last time (1.5)
    assert weights[ids[2]] == 2.0
    assert weights["drill:rope-half"] == 2.0  # never tried
    assert weights["drill:alibi-bias"] == 3.0 and weights["drill:alibi-slopes"] == 0.7  # failed, passed
    # a weighted plan still obeys every rule
    plan = plan_interview(bankset, catalogue(), seed=5, weights=weights)
    check_budget(plan, 45)


# ---------------------------------------------------------------------------------------------------- synthetic banks


def tiny_bank(tmp_path: Path, n_topics: int, per_topic: int) -> Any:
    lines = ["topics:"]
    for t in range(n_topics):
        lines += [f"  - topic: t{t}", f"    title: Topic {t}", "    questions:"]
        for q in range(per_topic):
            follow = f"[t{t}.q{q + 1}]" if q + 1 < per_topic else "[]"
            lines += [
                f"      - id: t{t}.q{q}",
                "        type: truefalse" if q % 2 else "        type: open",
                f"        difficulty: {1 + q % 3}",
                f"        prompt: Question {q} of topic {t}?",
                "        explanation: Because.",
                *(
                    ["        correct: true"]
                    if q % 2
                    else ["        answer: Yes.", "        key_points: [done]"]
                ),
                f"        follow_ups: {follow}",
            ]
    path = tmp_path / "tiny.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    bankset = load_banks([path], include_shipped=False, include_user=False)
    assert not bankset.errors, bankset.errors
    return bankset


@PROPS
@given(
    n_topics=st.integers(1, 3),
    per_topic=st.integers(1, 6),
    minutes=st.integers(5, 180),
    seed=st.integers(0, 99),
)
def test_tiny_banks_fill_the_time_or_say_so(
    tmp_path_factory: Any, n_topics: int, per_topic: int, minutes: int, seed: int
) -> None:
    bankset = tiny_bank(tmp_path_factory.mktemp("bank"), n_topics, per_topic)
    drills = [SimpleNamespace(name="d0", topic="t0", difficulty=2, minutes=10)]
    try:
        plan = plan_interview(bankset, drills, minutes=minutes, seed=seed)
    except BankTooSmallError as exc:
        message = str(exc)
        assert "\n" not in message
        assert f"not enough material for {minutes} minutes" in message or "no questions match" in message
        return
    check_budget(plan, minutes)
    check_follow_ups(plan, bankset)
    assert {item.topic for item in plan.items} <= {f"t{t}" for t in range(n_topics)}


def test_a_bank_too_small_says_how_much_it_holds(tmp_path: Path) -> None:
    bankset = tiny_bank(tmp_path, 1, 3)  # open 1 (3 min) + tf 2 (2 min) + open 3 (5 min) at standard level
    with pytest.raises(BankTooSmallError, match=r"fill about 10 minutes; ask for at most 13 minutes"):
        plan_interview(bankset, [], minutes=60, seed=1)
    plan = plan_interview(bankset, [], minutes=12, seed=1)
    check_budget(plan, 12)
    assert [i.id for i in plan.items][0] == "t0.q0"


# ---------------------------------------------------------------------------------------------------- report


def test_report_scores_missed_items_and_markdown() -> None:
    bankset = shipped()
    drills = {d.name: d for d in catalogue()}
    plan = plan_interview(bankset, catalogue(), minutes=30, seed=11)
    items = plan.items
    results = {
        items[0].id: ItemResult(items[0].id, "answered", 1.0, 30.0, "t"),
        items[1].id: ItemResult(items[1].id, "answered", 0.0, 400.0, "wrong"),
        items[2].id: ItemResult(items[2].id, "skipped", None, 5.0),
    }
    started = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    report = build_report(
        plan, results, session_id="s1", started_at=started, language="en", ended_early=True,
        bankset=bankset, drills=drills,
    )  # fmt: skip
    # the items not reached count as 0: 1 of n, not 1 of the 3 asked (n follows the shipped bank)
    n = len(items)
    assert n >= 4 and report["not_reached"] == n - 3
    assert report["score"] == pytest.approx(1 / n, abs=1e-4)
    assert report["asked_score"] == pytest.approx(1 / 3, abs=1e-4)
    assert report["ended_early"] is True
    assert report["missed"] == [items[1].id, items[2].id]
    assert [i["status"] for i in report["items"][3:]] == ["not_reached"] * (len(items) - 3)
    assert report["weakest_topics"][0] in {items[1].topic, items[2].topic}
    assert sum(v["items"] for v in report["by_topic"].values()) == 3
    md = render_markdown(report, "en")
    overall = f"{round(100 / n)}%"
    assert "# Mock interview report: s1" in md and f"**Overall: {overall}**" in md and "ended early" in md
    assert f"- {n - 3} of {n} items not reached, counted as 0; 33% on the 3 asked" in md
    assert f"### {items[1].id}" in md and "**Model answer:**" in md
    assert "6:40 ⚠" in md  # 400 s against a smaller budget
    zh = render_markdown(report, "zh")
    assert "模拟面试报告" in zh and "参考答案" in zh and "提前结束" in zh
    assert f"**总分: {overall}**" in zh
    assert f"{n} 题中有 {n - 3} 题未进行，按 0 分计；已答的 3 题得分 33%" in zh
    # a report saved before unreached items counted (no asked_score) renders the same way
    old = {k: v for k, v in report.items() if k not in ("asked_score", "not_reached")} | {"score": 1 / 3}
    assert render_markdown(old, "en") == md


def test_report_escapes_control_characters() -> None:
    plan = plan_interview(shipped(), [], minutes=5, seed=2)
    first = plan.items[0].id
    results = {first: ItemResult(first, "answered", 0.0, 10.0, "evil \x1b[31m red \u202e")}
    report = build_report(
        plan, results, session_id="s2", started_at=datetime(2026, 1, 1, tzinfo=UTC), language="en",
        ended_early=False, bankset=shipped(),
    )  # fmt: skip
    md = render_markdown(report)
    assert "\x1b" not in md and "\u202e" not in md
    assert "\\x1b[31m" in md and "\\u202e" in md


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_plan_reads_guessing_and_judging_from_the_registry(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The warm-up avoids a type whose blind guess is right half the time and the something-to-explain is a
    judged type, by the registry's say (`guessable`, `judged`), not by the names truefalse and open: with
    the roles swapped, a true/false question opens and a numeric one is among the things to explain."""
    bankset = shipped()  # loaded (and cached) before the swap: the loader reads `judged` too
    for name, flags in [
        ("truefalse", {"guessable": False}), ("mcq", {"guessable": True}), ("multi", {"guessable": True}),
        ("open", {"guessable": True, "judged": False}), ("numeric", {"judged": True}),
    ]:  # fmt: skip
        register_type(monkeypatch, dataclasses.replace(question_type(name), **flags))
    plan = plan_interview(bankset, catalogue(), minutes=8, seed=seed, level="basic")
    types = [item.qtype for item in plan.items]
    assert types[0] == "truefalse" and "numeric" in types, types
