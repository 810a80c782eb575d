"""`posenc bank validate` for generated questions: draw 8 seeded instances of each and run them.

For every instance (seeds 0..7, quizbank.vary_findings.VALIDATION_SEEDS) the answer's demo runs at
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

from .checks import RunCache
from .instances import InstanceError, answer_from, draw_instance, is_generated
from .problems import Location, Problem
from .vary import VaryError, format_param, unfilled
from .vary_findings import VALIDATION_SEEDS

# distinct answers the 8 validation draws must give, unless the question's `few_answers:` says why not
MIN_DISTINCT_ANSWERS = 4


@dataclass
class InstanceReport:
    problems: list[Problem] = field(default_factory=list)
    questions: int = 0
    instances: int = 0
    instances_passed: int = 0
    seconds: float = 0.0


def _params_text(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={format_param(v)}" for k, v in params.items())


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
        for seed in VALIDATION_SEEDS:
            report.instances += 1
            lead = f"{qid} seed {seed}"
            try:
                inst = draw_instance(question, seed)
            except VaryError as exc:
                report.problems.append(Problem.at(where(qid, "vary"), f"{lead}: {exc}"))
                complete = False
                continue
            drawn = _params_text(inst.params)
            bad_text = False
            for key, template in (("prompt", question.prompt), ("explanation", question.explanation)):
                for lang in sorted(template.languages()):
                    left = unfilled(template.get(lang), inst.params)
                    if left:
                        report.problems.append(
                            Problem.at(
                                where(qid, key),
                                f"{lead} ({drawn}): the {lang} {key} keeps the placeholder "
                                f"{', '.join('{' + n + '}' for n in left)} unfilled",
                            )
                        )
                        bad_text = True
            data, error = cache.get(inst.demo_name, dict(inst.demo_params))
            if error is not None:
                report.problems.append(Problem.at(where(qid, "answer.params"), f"{lead} ({drawn}): {error}"))
                complete = False
                continue
            try:
                inst = answer_from(data, inst, question)
            except InstanceError as exc:
                report.problems.append(Problem.at(where(qid, "answer.path"), f"{lead} ({drawn}): {exc}"))
                complete = False
                continue
            if not inst.demo_passed:
                claims = "; ".join(repr(" ".join(c.split())) for c in inst.failed_checks)
                report.problems.append(
                    Problem.at(
                        where(qid, "answer"),
                        f"{lead} ({drawn}): demo {inst.demo_name!r} fails its own check {claims}",
                    )
                )
                continue
            assert inst.value is not None
            values.append(inst.value)
            if not bad_text:
                report.instances_passed += 1
        if complete:
            problem = _spread_problem(question, values)
            if problem:
                key = "few_answers" if getattr(question, "few_answers", None) is not None else "vary"
                report.problems.append(Problem.at(where(qid, key), problem))
    report.seconds = time.perf_counter() - start
    return report


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
