"""`posenc bank validate` for generated questions: draw 8 seeded instances of each and run them.

For every instance (seeds 0..7, quizbank.generated.findings.VALIDATION_SEEDS) the answer's demo runs at
the instance's parameters, and a problem is reported at `path:line:col` for:

- a placeholder left unfilled in the prompt or explanation (an undeclared `{name}`);
- a parameter the demo refuses (outside its bounds or constraints, or refused at run time);
- a demo whose own self-check fails at those parameters;
- a path that does not lead to a number, or a non-finite answer;
- fewer than 4 distinct answers over the 8 instances (MIN_DISTINCT_ANSWERS: a candidate who has seen a few
  draws could otherwise recall the answer instead of computing it), unless the question says why it
  cannot in `few_answers:`; even then 2 at least (the numbers must really change);
- a `few_answers:` reason on a question that does draw 4 distinct answers (the reason is stale).

Demo runs are shared with the fixed checks through one `checks.RunCache`.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..checks import RunCache
from ..problems import Location, Problem
from .draw import VaryError, format_param, unfilled
from .findings import VALIDATION_SEEDS
from .instances import InstanceError, answer_from, draw_instance, is_generated

# distinct answers the 8 validation draws must give, unless the question's `few_answers:` says why not
MIN_DISTINCT_ANSWERS = 4


@dataclass(frozen=True)
class SeedFailure:
    """One problem of one generated question, on every seed where it happened (reported once)."""

    question_id: str
    key: str  # what it is about: "vary", "prompt", "explanation", "answer.params", "answer.path", "answer"
    where: Location
    message: str  # the first failing seed's message, without the seed
    seeds: tuple[int, ...]  # the seeds it failed on
    first_draw: str  # the first failing seed's parameters, `n_heads=6, head=4`
    total: int = len(VALIDATION_SEEDS)

    @property
    def tally(self) -> str:
        return f"fails on {len(self.seeds)} of {self.total} seeds"

    def problem(self) -> Problem:
        drawn = f" draws {self.first_draw}" if self.first_draw else ""
        return Problem.at(
            self.where, f"{self.question_id}: {self.message} ({self.tally}; seed {self.seeds[0]}{drawn})"
        )


@dataclass
class InstanceReport:
    problems: list[Problem] = field(default_factory=list)
    failures: list[SeedFailure] = field(default_factory=list)  # the problems, before they were lines
    questions: int = 0
    instances: int = 0
    instances_passed: int = 0
    seconds: float = 0.0

    def extend(self, other: InstanceReport) -> None:
        self.problems.extend(other.problems)
        self.failures.extend(other.failures)
        self.questions += other.questions
        self.instances += other.instances
        self.instances_passed += other.instances_passed
        self.seconds += other.seconds


def _params_text(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={format_param(v)}" for k, v in params.items())


class _Failures:
    """A question's failures by what they are about: the same problem on 8 seeds is one line."""

    def __init__(self, qid: str, where: Any) -> None:
        self.qid = qid
        self.where = where
        self.found: dict[str, tuple[str, list[int], str]] = {}

    def add(self, key: str, seed: int, drawn: str, message: str) -> None:
        entry = self.found.setdefault(key, (message, [], drawn))
        entry[1].append(seed)

    def failures(self) -> list[SeedFailure]:
        return [
            SeedFailure(self.qid, key, self.where(self.qid, key), message, tuple(seeds), drawn)
            for key, (message, seeds, drawn) in self.found.items()
        ]


def instance_report(source: Any, cache: RunCache, *, only: Iterable[str] | None = None) -> InstanceReport:
    """Run 8 seeded instances of every generated question of the BankSet `source` (or of `only`)."""
    start = time.perf_counter()
    wanted = set(only) if only is not None else None
    report = InstanceReport()
    origin: dict[str, Location] = dict(source.origin)
    live_origin: dict[tuple[str, str], Location] = dict(getattr(source, "live_origin", {}))

    def where(qid: str, key: str) -> Location:
        return live_origin.get((qid, key)) or origin.get(qid) or Location(f"question {qid}")

    for question in source.questions.values():
        if not is_generated(question) or (wanted is not None and question.id not in wanted):
            continue
        qid = question.id
        report.questions += 1
        values: list[float] = []
        complete = True
        found = _Failures(qid, where)
        for seed in VALIDATION_SEEDS:
            report.instances += 1
            try:
                inst = draw_instance(question, seed)
            except VaryError as exc:
                found.add("vary", seed, "", str(exc))
                complete = False
                continue
            drawn = _params_text(inst.params)
            bad_text = False
            for key, template in (("prompt", question.prompt), ("explanation", question.explanation)):
                for lang in sorted(template.languages()):
                    left = unfilled(template.get(lang), inst.params)
                    if left:
                        found.add(
                            key,
                            seed,
                            drawn,
                            f"the {lang} {key} keeps the placeholder "
                            f"{', '.join('{' + n + '}' for n in left)} unfilled",
                        )
                        bad_text = True
            data, error = cache.get(inst.demo_name, dict(inst.demo_params))
            if error is not None:
                found.add("answer.params", seed, drawn, error)
                complete = False
                continue
            try:
                inst = answer_from(data, inst, question)
            except InstanceError as exc:
                found.add("answer.path", seed, drawn, str(exc))
                complete = False
                continue
            if not inst.demo_passed:
                claims = "; ".join(repr(" ".join(c.split())) for c in inst.failed_checks)
                found.add("answer", seed, drawn, f"demo {inst.demo_name!r} fails its own check {claims}")
                continue
            assert inst.value is not None
            values.append(inst.value)
            if not bad_text:
                report.instances_passed += 1
        for failure in found.failures():
            report.failures.append(failure)
            report.problems.append(failure.problem())
        if complete:
            problem = _spread_problem(question, values)
            if problem:
                key = "few_answers" if getattr(question, "few_answers", None) is not None else "vary"
                report.problems.append(Problem.at(where(qid, key), problem))
    report.seconds = time.perf_counter() - start
    return report


def fold_into(problems: list[Problem], report: InstanceReport, origin: dict[str, Location]) -> list[Problem]:
    """`problems` (what the loader found) plus the report's, each problem said once. A seed failure of a
    question the loader already reported at the same place (or a placeholder the loader already named) is
    added to the loader's line, which says more ("did you mean"), as "fails on N of 8 seeds"; the other
    failures stay lines of their own. `origin`: where each question starts (id -> Location)."""
    starts: dict[str, list[tuple[int, str]]] = {}
    for qid, loc in origin.items():
        starts.setdefault(loc.path, []).append((loc.line, qid))
    for entries in starts.values():
        entries.sort()

    def question_of(problem: Problem) -> str | None:
        owner = None
        for line, qid in starts.get(problem.path, []):
            if line > problem.line:
                break
            owner = qid
        return owner

    out = list(problems)
    owners = [question_of(p) for p in out]
    tallied: set[int] = set()
    for failure in report.failures:
        target = next(
            (
                i
                for i, problem in enumerate(out)
                if owners[i] == failure.question_id
                and problem.is_error
                and (
                    problem.location == failure.where
                    or (failure.key in ("prompt", "explanation") and "placeholder {" in problem.message)
                )
            ),
            None,
        )
        if target is None:
            out.append(failure.problem())
            owners.append(failure.question_id)
        elif target not in tallied:
            tallied.add(target)
            old = out[target]
            out[target] = Problem.at(old.location, f"{old.message} ({failure.tally})", old.severity)
    lines = {failure.problem() for failure in report.failures}
    out.extend(p for p in report.problems if p not in lines)
    return out


def _spread_problem(question: Any, values: list[float]) -> str | None:
    """What is wrong with the spread of one question's 8 answers, or None."""
    qid = question.id
    distinct = len({round(v, 12) for v in values})
    reason = getattr(question, "few_answers", None)
    if distinct < 2:
        shown = format_param(values[0]) if values else "nothing"
        return (
            f"{qid}: all {len(values)} instances have the answer {shown}; "
            "vary must change the answer (fewer than 2 distinct answers)"
        )
    if distinct < MIN_DISTINCT_ANSWERS and reason is None:
        return (
            f"{qid}: the {len(values)} instances give only {distinct} distinct answers; vary must draw at "
            f"least {MIN_DISTINCT_ANSWERS}, or say why it cannot in few_answers: ..."
        )
    if distinct >= MIN_DISTINCT_ANSWERS and reason is not None:
        return (
            f"{qid}: the {len(values)} instances give {distinct} distinct answers, so few_answers "
            "no longer applies; remove it"
        )
    return None
