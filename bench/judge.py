"""Benchmark: the open-answer judge (quizbank/judge) on held-out typed answers, and its speed.

`bench/judge_eval.yaml` holds answers written from the questions' prompts and key points only, never from
the judge's patterns or the bank's examples: per question a strong answer, a paraphrase, a partial one, a
wrong one that uses the right words, an off-topic one and a Chinese one, each labelled per key point
(covered / contradicted / not_found) as a strict interviewer would.

Prints, for the judge and (with --before REV) for the keyword matcher at a git revision:

- F1 of "covered" over all (point, answer) pairs, and Cohen's kappa of the three labels;
- the share of points ticked covered on the wrong answers (goal <= 15%);
- recall on the paraphrases (goal >= 75%) and on the Chinese answers (goal >= 80%);
- warm time per answer, as a ratio to judging an empty answer list (the same calls without the work)
  and in ms (goal <= 50 ms on this machine), median of --repeat rounds.

    .venv/bin/python bench/judge.py                      # the judge
    .venv/bin/python bench/judge.py --before caa1eb0     # and the keyword matcher it replaced
    .venv/bin/python bench/judge.py --misses             # every disagreement, to read

It asserts nothing (tests/quizbank/judge/ checks correctness).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

LABELS = ("covered", "contradicted", "not_found")


def load_set() -> list[tuple[Any, str, str, list[str]]]:
    """(question, kind, answer, labels) for every held-out answer."""
    import yaml

    from quizbank.loader import load_banks

    bank = load_banks(include_user=False)
    data = yaml.safe_load((REPO / "bench" / "judge_eval.yaml").read_text(encoding="utf-8"))
    out = []
    for entry in data["questions"]:
        question = bank.questions[entry["id"]]
        for answer in entry["answers"]:
            out.append((question, answer["kind"], answer["text"], list(answer["labels"])))
    return out


def kappa(pairs: list[tuple[str, str]]) -> float:
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    want, got = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    expected = sum(want[label] * got[label] for label in LABELS) / (n * n)
    return (observed - expected) / (1 - expected) if expected < 1 else 1.0


def figures(
    items: list[tuple[Any, str, str, list[str]]], judge: Callable[[Any, str], list[str]]
) -> dict[str, Any]:
    pairs: list[tuple[str, str, str]] = []  # (kind, label, verdict)
    for question, kind, answer, labels in items:
        for label, verdict in zip(labels, judge(question, answer), strict=True):
            pairs.append((kind, label, verdict))
    tp = sum(1 for _, lab, v in pairs if lab == "covered" and v == "covered")
    fp = sum(1 for _, lab, v in pairs if lab != "covered" and v == "covered")
    fn = sum(1 for _, lab, v in pairs if lab == "covered" and v != "covered")
    wrong = [(lab, v) for k, lab, v in pairs if k == "wrong"]
    para = [(lab, v) for k, lab, v in pairs if k == "paraphrase" and lab == "covered"]
    zh = [(lab, v) for k, lab, v in pairs if k == "zh" and lab == "covered"]
    contradicted = [(lab, v) for _, lab, v in pairs if lab == "contradicted"]
    return {
        "f1": 2 * tp / (2 * tp + fp + fn) if tp else 0.0,
        "kappa": kappa([(lab, v) for _, lab, v in pairs]),
        "wrong_ticked": sum(v == "covered" for _, v in wrong) / len(wrong),
        "wrong_fully": sum(
            1
            for question, kind, answer, _ in items
            if kind == "wrong" and all(v == "covered" for v in judge(question, answer))
        ),
        "wrong_answers": sum(1 for _, kind, _, _ in items if kind == "wrong"),
        "paraphrase_recall": sum(v == "covered" for _, v in para) / len(para),
        "zh_recall": sum(v == "covered" for _, v in zh) / len(zh),
        "contradiction_recall": sum(v == "contradicted" for _, v in contradicted) / max(1, len(contradicted)),
        "pairs": len(pairs),
    }


def judge_now(question: Any, answer: str) -> list[str]:
    from quizbank.judge import judge_answer

    return [v.verdict for v in judge_answer(question.key_points, answer)]


def matcher_at(rev: str) -> Callable[[Any, str], list[str]]:
    """The keyword matcher (quizbank/mock/keypoints.py) as it was at `rev`: ticked -> covered."""
    source = subprocess.run(
        ["git", "-C", str(REPO), "show", f"{rev}:quizbank/mock/keypoints.py"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    path = Path(tempfile.mkdtemp()) / "old_keypoints.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("old_keypoints", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    def judge(question: Any, answer: str) -> list[str]:
        return ["covered" if t else "not_found" for t in module.match_key_points(question.key_points, answer)]

    return judge


def show(name: str, f: dict[str, Any]) -> None:
    print(
        f"{name:>10}: F1 {f['f1']:.2f} · kappa {f['kappa']:.2f} · wrong answers ticked {f['wrong_ticked']:.0%} "
        f"({f['wrong_fully']} of {f['wrong_answers']} fully) · paraphrase recall {f['paraphrase_recall']:.0%} "
        f"· zh recall {f['zh_recall']:.0%} · contradictions found {f['contradiction_recall']:.0%} "
        f"({f['pairs']} point-answer pairs)"
    )


def speed(items: list[tuple[Any, str, str, list[str]]], repeat: int) -> None:
    from quizbank.judge import judge_answer, warm
    from quizbank.judge.rarity import bank_rarity

    code = (
        "import time; t = time.perf_counter(); from quizbank.judge import warm; "
        "from quizbank.judge.rarity import bank_rarity; warm(); bank_rarity(); print(time.perf_counter() - t)"
    )
    first = float(subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                                 check=True).stdout)  # fmt: skip
    warm()
    bank_rarity()
    answers = [(q.key_points, a) for q, _, a, _ in items]
    rounds, empty = [], []
    for _ in range(repeat):
        # a fresh answer each round: the judge caches an answer's reading, so vary the text
        tag = f" ({len(rounds)})"
        t = time.perf_counter()
        for points, answer in answers:
            judge_answer(points, answer + tag)
        rounds.append((time.perf_counter() - t) / len(answers))
        t = time.perf_counter()
        for points, _answer in answers:
            judge_answer(points, "")
        empty.append((time.perf_counter() - t) / len(answers))
    per = statistics.median(rounds)
    base = statistics.median(empty)
    print(
        f"     speed: {per * 1000:.1f} ms per answer warm (median of {repeat} rounds over {len(answers)} answers, "
        f"max round {max(rounds) * 1000:.1f} ms; {per / base:.0f}x an empty answer's call); "
        f"first use in a fresh process (stemmer, segmenter, bank rarity) {first:.2f} s"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--before", metavar="REV", help="also measure the keyword matcher at this git revision"
    )
    parser.add_argument("--misses", action="store_true", help="print every disagreement")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    items = load_set()
    print(f"held-out set: {len({q.id for q, *_ in items})} questions, {len(items)} answers")
    if args.before:
        show("before", figures(items, matcher_at(args.before)))
    show("judge", figures(items, judge_now))
    for kind in ("strong", "paraphrase", "partial", "wrong", "offtopic", "zh"):
        part = [i for i in items if i[1] == kind]
        agree = sum(
            lab == v for q, _, a, labels in part for lab, v in zip(labels, judge_now(q, a), strict=True)
        )
        total = sum(len(labels) for *_, labels in part)
        print(f"{kind:>10}: {agree}/{total} point verdicts agree")
    speed(items, args.repeat)
    if args.misses:
        from quizbank.judge import judge_answer

        for question, kind, answer, labels in items:
            verdicts = judge_answer(question.key_points, answer)
            for n, (label, v) in enumerate(zip(labels, verdicts, strict=True), 1):
                if label != v.verdict:
                    print(f"- {question.id} [{kind}] point {n}: want {label}, got {v.verdict} ({v.rule})")
                    print(f"    point: {question.key_points[n - 1].en}")
                    print(f"    answer: {answer[:160]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
