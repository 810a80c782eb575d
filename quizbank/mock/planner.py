"""Plan a mock interview: an ordered list of questions and coding drills with time budgets.

Pure functions over a loaded bank (`quizbank.loader.BankSet`) and a list of drills (objects with `name`,
`topic`, `difficulty` and `minutes`, as `quizbank.drills.drills()` returns), so tests inject both.

Skills, from the question type and tags (one rule, documented in docs/usage.md "Mock interview"):

* `coding`: a drill;
* `computation`: a numeric or cloze question;
* `coding`: also an open question tagged `coding`, `code` or `implementation` ("Implement the sinusoidal
  table…");
* `derivation`: an open question tagged `derivation`, `proof`, `formula` or `theory`;
* `concept`: every other question (open, mcq, multi, truefalse).

Budgets: a base time per item from its skill and difficulty (`base_minutes`), a drill's own `minutes`; the
chosen items are then scaled together and apportioned in half minutes so that they add up to exactly the
requested minutes. Items are picked topic by topic (the least covered topic next) and skill by skill (the
skill furthest below its share next); the first item is a warm-up concept question of the lowest difficulty
available; from 30 minutes up one coding drill sits in the middle (two from 90 minutes). After a question,
one of its `follow_ups` may come right after it (at least one per plan when the bank has any), as an
interviewer would push on an answer.

`--level` sets the difficulties: basic 1-2 (mostly 1), standard 1-3 (mostly 2), deep 2-3 (mostly 3).
A seed fixes the plan; `weights` ({id: weight}, e.g. `weights_from_store`) tilt the draw towards weak and
unseen material when no seed is given.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from quizbank.question_types import question_type

__all__ = [
    "CODING_TAGS",
    "DERIVATION_TAGS",
    "LEVELS",
    "MAX_MINUTES",
    "MIN_MINUTES",
    "SKILLS",
    "BankTooSmallError",
    "InterviewPlan",
    "PlanError",
    "PlanItem",
    "base_minutes",
    "check_request",
    "plan_interview",
    "skill_of",
    "weights_from_store",
]

MIN_MINUTES = 5
MAX_MINUTES = 180
SKILLS: tuple[str, ...] = ("concept", "derivation", "computation", "coding")
DERIVATION_TAGS = frozenset({"derivation", "proof", "formula", "theory"})
CODING_TAGS = frozenset({"coding", "code", "implementation"})
# level -> {difficulty: preference weight}; difficulties outside the mapping are not used
LEVELS: dict[str, dict[int, float]] = {
    "basic": {1: 3.0, 2: 1.0},
    "standard": {1: 1.0, 2: 3.0, 3: 1.0},
    "deep": {2: 1.0, 3: 3.0},
}
# share of the question time each skill aims for (coding is the drills' own time)
SKILL_SHARE = {"concept": 0.45, "computation": 0.3, "derivation": 0.25}
FOLLOW_UP_CHANCE = 0.35
MAX_STRETCH = (
    1.3  # budgets may be stretched at most this much to fill the time; more means the bank is too small
)
MAX_SHRINK = 0.8
DRILL_FROM_MINUTES = 30
SHORT_MINUTES = 15  # below this the open question is an easy one
SECOND_DRILL_FROM_MINUTES = 90


class PlanError(ValueError):
    """A bad request (unknown topic or level, minutes out of range): one line naming the valid choices."""


class BankTooSmallError(PlanError):
    """The chosen topics and level hold too little material to fill the requested time. `at_most`: the longest
    interview they can fill (0 when nothing matches)."""

    def __init__(self, message: str, at_most: int = 0) -> None:
        super().__init__(message)
        self.at_most = at_most


@dataclass(frozen=True)
class PlanItem:
    kind: str  # "question" | "drill"
    id: str
    topic: str
    skill: str
    minutes: float
    follow_up_of: str | None = None
    difficulty: int = 2
    qtype: str = "drill"  # the question type, or "drill"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "id": self.id,
            "topic": self.topic,
            "skill": self.skill,
            "minutes": self.minutes,
            "follow_up_of": self.follow_up_of,
        }


@dataclass(frozen=True)
class InterviewPlan:
    minutes: int
    seed: int | None
    level: str
    topics: tuple[str, ...]
    items: tuple[PlanItem, ...] = field(default_factory=tuple)

    @property
    def total_minutes(self) -> float:
        return sum(item.minutes for item in self.items)

    def to_json(self) -> dict[str, Any]:
        return {
            "minutes": self.minutes,
            "seed": self.seed,
            "level": self.level,
            "topics": list(self.topics),
            "items": [item.to_json() for item in self.items],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> InterviewPlan:
        """The plan part of a saved report (items carry `difficulty` and `qtype` when saved by posenc)."""
        items = tuple(
            PlanItem(
                kind=str(raw["kind"]),
                id=str(raw["id"]),
                topic=str(raw.get("topic", "")),
                skill=str(raw.get("skill", "concept")),
                minutes=float(raw.get("minutes", 0.0)),
                follow_up_of=raw.get("follow_up_of"),
                difficulty=int(raw.get("difficulty", 2)),
                qtype=str(raw.get("qtype", "drill" if raw["kind"] == "drill" else "open")),
            )
            for raw in data.get("items", [])
        )
        return cls(
            minutes=int(data.get("minutes", 0)),
            seed=data.get("seed"),
            level=str(data.get("level", "standard")),
            topics=tuple(data.get("topics", ())),
            items=items,
        )


# ---------------------------------------------------------------------------------------------------- rules


def skill_of(question: Any) -> str:
    """The skill a question tests: its type's (`quizbank.question_types`), or for a type whose tags may say
    otherwise (open), coding or derivation when tagged so (see the module docstring)."""
    kind = question_type(question.type)
    tags = {tag.casefold() for tag in question.tags} if kind.tagged_skill else set()
    if CODING_TAGS & tags:
        return "coding"
    if DERIVATION_TAGS & tags:
        return "derivation"
    return kind.skill


def base_minutes(skill: str, qtype: str, difficulty: int) -> float:
    """The unscaled budget of one question: a derivation or a coding question 5 minutes (+1.5 a step of
    difficulty), any other its type's `minutes`; drills use their own `minutes`."""
    step = max(0, min(2, int(difficulty) - 1))
    if skill in ("derivation", "coding"):  # a coding drill brings its own minutes: this is an open question
        return 5.0 + 1.5 * step
    first, per_step = question_type(qtype).minutes
    return first + per_step * step


def _topic_ids(bankset: Any) -> list[str]:
    return [topic.id for topic in bankset.topics]


def check_request(bankset: Any, minutes: Any, topics: Sequence[str] | None, level: str) -> tuple[str, ...]:
    """Validate a request; returns the topic ids to use. PlanError (one line, valid choices) otherwise."""
    known = _topic_ids(bankset)
    if level not in LEVELS:
        raise PlanError(f"unknown level {level!r}; choose one of: {', '.join(LEVELS)}")
    if isinstance(minutes, bool) or not isinstance(minutes, int) or not MIN_MINUTES <= minutes <= MAX_MINUTES:
        raise PlanError(
            f"minutes must be a whole number from {MIN_MINUTES} to {MAX_MINUTES} (got {minutes!r})"
        )
    if not topics:
        if not known:
            raise BankTooSmallError("no topics are loaded; add a bank or check `posenc bank validate`")
        return tuple(known)
    chosen: list[str] = []
    for topic in topics:
        if topic not in known:
            raise PlanError(f"unknown topic {topic!r}; choose from: {', '.join(known)}")
        if topic not in chosen:
            chosen.append(topic)
    return tuple(chosen)


# ---------------------------------------------------------------------------------------------------- planning


@dataclass
class _Candidate:
    kind: str
    id: str
    topic: str
    skill: str
    difficulty: int
    qtype: str
    base: float
    weight: float
    follow_ups: tuple[str, ...] = ()
    judged: bool = False  # its type is answered in words (`QuestionType.judged`): something to explain
    guessable: bool = False  # its type's blind guess is right half the time: a poor warm-up


def _weighted_choice(rng: random.Random, items: Sequence[_Candidate]) -> _Candidate:
    total = sum(c.weight for c in items)
    pick = rng.random() * total
    upto = 0.0
    for candidate in items:
        upto += candidate.weight
        if pick < upto:
            return candidate
    return items[-1]


def _apportion(bases: Sequence[float], total_units: int) -> list[int]:
    """Split `total_units` (half minutes) in proportion to `bases`, each item at least one unit (largest
    remainder), so the parts add up to exactly `total_units`."""
    n = len(bases)
    if n == 0:
        return []
    scale = total_units / sum(bases)
    raw = [b * scale for b in bases]
    units = [max(1, int(r)) for r in raw]
    order = sorted(range(n), key=lambda i: (-(raw[i] - int(raw[i])), i))
    i = 0
    while sum(units) < total_units:
        units[order[i % n]] += 1
        i += 1
    while sum(units) > total_units:  # only when many items were raised to the minimum
        j = max(range(n), key=lambda k: (units[k], -k))
        units[j] -= 1
    return units


def plan_interview(
    bankset: Any,
    drills: Iterable[Any] = (),
    *,
    minutes: int = 45,
    topics: Sequence[str] | None = None,
    level: str = "standard",
    seed: int | None = None,
    weights: Mapping[str, float] | None = None,
) -> InterviewPlan:
    """Plan an interview (see the module docstring). PlanError for a bad request, BankTooSmallError when the
    chosen material cannot fill `minutes`. With `seed=None` a seed is drawn (and reported in the plan)."""
    chosen_topics = check_request(bankset, minutes, topics, level)
    if seed is None:
        seed = random.SystemRandom().randrange(1, 2**31)
    rng = random.Random(seed)
    prefer = LEVELS[level]
    weights = weights or {}
    allowed = set(chosen_topics)

    pool: dict[str, _Candidate] = {}
    for topic_id in chosen_topics:
        for question in bankset.questions_in(topic_id):
            if question.difficulty not in prefer:
                continue
            skill = skill_of(question)
            kind = question_type(question.type)
            pool[question.id] = _Candidate(
                kind="question",
                id=question.id,
                topic=topic_id,
                skill=skill,
                difficulty=question.difficulty,
                qtype=question.type,
                base=base_minutes(skill, question.type, question.difficulty),
                weight=prefer[question.difficulty] * float(weights.get(question.id, 1.0)),
                follow_ups=tuple(question.follow_ups),
                judged=kind.judged,
                guessable=kind.guessable,
            )
    drill_pool = [
        _Candidate(
            kind="drill",
            id=drill.name,
            topic=drill.topic,
            skill="coding",
            difficulty=int(drill.difficulty),
            qtype="drill",
            base=float(max(1, int(drill.minutes))),
            weight=prefer[int(drill.difficulty)] * float(weights.get(f"drill:{drill.name}", 1.0)),
        )
        for drill in drills
        if drill.topic in allowed and int(drill.difficulty) in prefer
    ]

    target = float(minutes)
    n_drills = 0 if minutes < DRILL_FROM_MINUTES else (2 if minutes >= SECOND_DRILL_FROM_MINUTES else 1)
    picked_drills: list[_Candidate] = []
    for _ in range(n_drills):
        fitting = [d for d in drill_pool if d not in picked_drills and d.base <= 0.5 * target]
        if not fitting:
            break
        picked_drills.append(_weighted_choice(rng, fitting))
    drill_time = sum(d.base for d in picked_drills)
    question_target = target - drill_time

    sequence: list[tuple[_Candidate, str | None]] = []  # (candidate, follow_up_of)
    used: set[str] = set()
    topic_count = {t: 0 for t in chosen_topics}
    skill_time = {s: 0.0 for s in SKILL_SHARE}
    spent = 0.0

    def take(candidate: _Candidate, parent: str | None) -> None:
        nonlocal spent
        sequence.append((candidate, parent))
        used.add(candidate.id)
        topic_count[candidate.topic] = topic_count.get(candidate.topic, 0) + 1
        skill_time[candidate.skill] = skill_time.get(candidate.skill, 0.0) + candidate.base
        spent += candidate.base

    def fits(candidate: _Candidate) -> bool:
        return spent + candidate.base <= question_target * 1.05

    # warm-up: a concept question of the lowest difficulty on offer, one a blind guess rarely gets right
    # where there is one (not true/false: a guess is a poor start)
    concepts = [c for c in pool.values() if c.skill == "concept" and fits(c)]
    opens = [c.base for c in pool.values() if c.judged and fits(c)]
    if concepts and opens and min(c.base for c in concepts) + min(opens) > question_target * 1.05:
        concepts = []  # no room for a warm-up and an open question: the open question opens
    if concepts:
        easiest = min(c.difficulty for c in concepts)
        warm = [c for c in concepts if c.difficulty == easiest]
        take(_weighted_choice(rng, [c for c in warm if not c.guessable] or warm), None)
    # then something to explain, however short the interview: an open (judged) question (the lowest
    # difficulty on offer when time is short), so that no plan is only true/false and numbers
    explain = [c for c in pool.values() if c.judged and c.id not in used and fits(c)]
    if explain:
        easiest = min(c.difficulty for c in explain) if target < 15 else 0
        take(_weighted_choice(rng, [c for c in explain if c.difficulty >= easiest and (
            target >= 15 or c.difficulty == easiest)]), None)  # fmt: skip

    follow_ups_taken = 0
    while spent < question_target * 0.95:
        free = [c for c in pool.values() if c.id not in used and fits(c)]
        if not free:
            break
        # the least covered topic that still has material, then the skill furthest below its share
        # sets are sorted before the draw: their order follows str hashes, which PYTHONHASHSEED changes
        topics_free = sorted(sorted({c.topic for c in free}), key=lambda t: (topic_count[t], rng.random()))
        topic = topics_free[0]
        in_topic = [c for c in free if c.topic == topic]
        skills_free = sorted({c.skill for c in in_topic})
        skill = min(
            skills_free,
            key=lambda s: (skill_time.get(s, 0.0) / max(spent, 1e-9) - SKILL_SHARE.get(s, 0.0), rng.random()),
        )
        candidate = _weighted_choice(rng, [c for c in in_topic if c.skill == skill])
        take(candidate, None)
        options = [
            pool[f]
            for f in candidate.follow_ups
            if f in pool and f not in used and fits(pool[f]) and pool[f].topic in allowed
        ]
        if options and (follow_ups_taken == 0 or rng.random() < FOLLOW_UP_CHANCE):
            take(_weighted_choice(rng, options), candidate.id)
            follow_ups_taken += 1

    if follow_ups_taken == 0:
        _add_one_follow_up(sequence, pool, used, question_target)

    total_base = sum(c.base for c, _ in sequence) + drill_time
    if not sequence and not picked_drills:
        raise BankTooSmallError(
            f"no questions match topics {', '.join(chosen_topics)} at level {level}; "
            "choose more topics or another level"
        )
    if total_base * MAX_STRETCH < target:
        most = int(total_base * MAX_STRETCH)
        raise BankTooSmallError(
            f"not enough material for {minutes} minutes: topics {', '.join(chosen_topics)} at level {level} "
            f"fill about {total_base:.0f} minutes; ask for at most {max(most, MIN_MINUTES)} minutes, "
            "or add topics or another level",
            at_most=max(most, MIN_MINUTES),
        )

    ordered = _place_drills([(c, p) for c, p in sequence], picked_drills, question_target)
    bases = [c.base for c, _ in ordered]
    if sum(bases) * MAX_SHRINK > target:  # cannot happen with `fits`, kept as a guard
        raise PlanError("internal: the chosen items overrun the time")
    units = _apportion(bases, int(round(target * 2)))
    items = tuple(
        PlanItem(
            kind=c.kind,
            id=c.id,
            topic=c.topic,
            skill=c.skill,
            minutes=u / 2,
            follow_up_of=parent,
            difficulty=c.difficulty,
            qtype=c.qtype,
        )
        for (c, parent), u in zip(ordered, units, strict=True)
    )
    return InterviewPlan(minutes=minutes, seed=seed, level=level, topics=chosen_topics, items=items)


def _add_one_follow_up(
    sequence: list[tuple[_Candidate, str | None]],
    pool: Mapping[str, _Candidate],
    used: set[str],
    question_target: float,
) -> None:
    """No follow-up was drawn: put one after the first question that has a free one, dropping trailing
    stand-alone questions (never the easiest open one) when the time is short, as long as the plan still fills
    at least 85% of the time.
    The list and `used` are changed in place."""
    for index, (candidate, parent) in enumerate(sequence):
        if parent is not None:
            continue
        options = [pool[f] for f in candidate.follow_ups if f in pool and f not in used]
        if not options:
            continue
        follow = min(options, key=lambda c: (c.base, c.id))
        trial = list(sequence)
        spent = sum(c.base for c, _ in trial)
        for j in range(len(trial) - 1, index, -1):
            if spent + follow.base <= question_target * 1.05:
                break
            dropped, dropped_parent = trial[j]
            is_parent = j + 1 < len(trial) and trial[j + 1][1] == dropped.id
            if dropped_parent is None and not is_parent and not _is_the_easiest_open(dropped, trial):
                del trial[j]
                spent -= dropped.base
        spent += follow.base
        if not question_target * 0.85 <= spent <= question_target * 1.05:
            continue
        trial.insert(index + 1, (follow, candidate.id))
        sequence[:] = trial
        used.clear()
        used.update(c.id for c, _ in trial)
        return
    _swap_in_a_pair(sequence, pool, used, question_target)


def _is_the_easiest_open(candidate: _Candidate, sequence: Sequence[tuple[_Candidate, str | None]]) -> bool:
    """The plan's something-to-explain: the only open question of the lowest difficulty among its open
    questions. Dropping or swapping it would leave a short interview without an easy open question."""
    if not candidate.judged:
        return False
    opens = [c.difficulty for c, _ in sequence if c.judged]
    return candidate.difficulty == min(opens) and opens.count(candidate.difficulty) == 1


def _swap_in_a_pair(
    sequence: list[tuple[_Candidate, str | None]],
    pool: Mapping[str, _Candidate],
    used: set[str],
    question_target: float,
) -> None:
    """No question on the plan has a follow-up that fits: replace one stand-alone question (never the
    warm-up, nor the easiest open one) by a question of the same topic and skill together with one of its
    follow-ups, if the plan then fills 85-105% of the time. The closest fit wins; ties go by id, so a seed
    still gives one plan. The list and `used` are changed in place."""
    spent = sum(c.base for c, _ in sequence)
    best: tuple[float, str, str, int] | None = None
    for index, (old, parent) in enumerate(sequence):
        if index == 0 or parent is not None:
            continue
        if any(p == old.id for _, p in sequence):
            continue  # it has a follow-up already
        if _is_the_easiest_open(old, sequence):
            continue
        for head in pool.values():
            if head.id in used or head.topic != old.topic or head.skill != old.skill:
                continue
            for follow_id in head.follow_ups:
                follow = pool.get(follow_id)
                if follow is None or follow.id in used or follow.id == head.id or follow.topic != head.topic:
                    continue
                total = spent - old.base + head.base + follow.base
                if question_target * 0.85 <= total <= question_target * 1.05:
                    key = (abs(total - question_target), head.id, follow.id, index)
                    if best is None or key < best:
                        best = key
    if best is None:
        return
    _, head_id, follow_id, index = best
    sequence[index : index + 1] = [(pool[head_id], None), (pool[follow_id], head_id)]
    used.clear()
    used.update(c.id for c, _ in sequence)


def _place_drills(
    sequence: list[tuple[_Candidate, str | None]], drills: Sequence[_Candidate], question_target: float
) -> list[tuple[_Candidate, str | None]]:
    """Drills go in after the questions reach about 40% (and 75%) of the question time, never between a
    question and its follow-up."""
    if not drills:
        return sequence
    marks = [0.4, 0.75][: len(drills)]
    out: list[tuple[_Candidate, str | None]] = []
    spent = 0.0
    pending = list(drills)
    for index, (candidate, parent) in enumerate(sequence):
        out.append((candidate, parent))
        spent += candidate.base
        next_is_follow_up = index + 1 < len(sequence) and sequence[index + 1][1] is not None
        while (
            pending and spent >= marks[len(drills) - len(pending)] * question_target and not next_is_follow_up
        ):
            out.append((pending.pop(0), None))
    out.extend((d, None) for d in pending)
    return out


# ---------------------------------------------------------------------------------------------------- progress


def weights_from_store(
    store: Any, question_ids: Iterable[str], drill_names: Iterable[str] = (), now: datetime | None = None
) -> dict[str, float]:
    """{id: weight} from the progress store: unseen 2.0; studied 1 + 2 * (1 - recall); +1.5 when the latest
    quiz answer was wrong; drills `drill:NAME`: unseen 2.0, failed last time 3.0, passed 0.7."""
    from quizbank.progress.scheduler import to_utc

    when = to_utc(now)
    scheduler = store.scheduler
    cards = store.cards()
    latest: dict[str, bool | None] = {}
    for attempt in store.attempts():
        latest[attempt.question_id] = attempt.correct
    out: dict[str, float] = {}
    for qid in question_ids:
        card = cards.get(qid)
        if card is None:
            weight = 2.0
        else:
            recall = float(scheduler.get_card_retrievability(card, when))
            weight = 1.0 + 2.0 * (1.0 - recall)
        if latest.get(qid) is False:
            weight += 1.5
        out[qid] = weight
    drill_last = (
        {row.drill: row.passed for row in store.drill_attempts()} if hasattr(store, "drill_attempts") else {}
    )
    for name in drill_names:
        passed = drill_last.get(name)
        out[f"drill:{name}"] = 2.0 if passed is None else (0.7 if passed else 3.0)
    return out
