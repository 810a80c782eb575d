"""Generated (live) questions: `vary` parameters drawn per showing, answers computed by a demo."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.paths import ROOT

from posenc_ref import cli as demo_cli
from quizbank import cli
from quizbank.checks import RunCache, as_number, default_runner, resolve_path
from quizbank.generated.draw import draw, fill, fill_param, fill_path, placeholders
from quizbank.generated.findings import VALIDATION_SEEDS
from quizbank.generated.instance_checks import instance_report
from quizbank.generated.instances import (
    EXPORT_SEEDS,
    InstanceError,
    draw_instance,
    is_generated,
    materialise,
    resolve,
)
from quizbank.grading import grade_numeric
from quizbank.loader import load_bank_text
from quizbank.schema import VaryParam

HEAD = "topic: live\ntitle: {en: Live, zh: 实时}\nquestions:\n"


def generated(bankset):
    return [q for q in bankset.ordered_questions() if is_generated(q)]


def load(body: str):
    return load_bank_text(HEAD + textwrap.indent(textwrap.dedent(body), "  "), "live.yaml")


SLOPE = """\
- id: live.slope
  type: numeric
  vary:
    n_heads: {choices: [6, 8, 12, 16, 20, 32]}
    head: {int: [1, n_heads]}
  prompt:
    en: With {n_heads} heads, what slope does ALiBi give head {head}?
    zh: 有 {n_heads} 个头时，ALiBi 给第 {head} 个头的斜率是多少？
  explanation:
    en: Head $h$ of $n$ heads (a power of two) gets $2^{-8h/n}$; here $n = {n_heads}$.
    zh: 头数 $n$ 为 2 的幂时第 $h$ 个头的斜率为 $2^{-8h/n}$；这里 $n = {n_heads}$。
  answer: {demo: alibi-slopes, params: {n_heads: n_heads}, path: "tables[0].rows[{head}-1][1]", rel_tol: 1e-6}
"""


# -- drawing and filling -------------------------------------------------------------------------------------------
def test_a_generated_slope_question_loads_and_draws_within_its_bounds():
    bank, problems = load(SLOPE)
    assert problems == []
    question = bank.topics[0].questions[0]
    assert question.generated and question.value is None and question.answer is None
    for seed in range(50):
        params = draw(question.id, question.vary, seed)
        assert params["n_heads"] in (6, 8, 12, 16, 20, 32)
        assert 1 <= params["head"] <= params["n_heads"]


def test_same_seed_same_instance_and_seeds_differ():
    bank, _ = load(SLOPE)
    question = bank.topics[0].questions[0]
    first = [draw_instance(question, s).params for s in range(20)]
    assert first == [draw_instance(question, s).params for s in range(20)]
    assert len({tuple(p.values()) for p in first}) > 5
    # the id is part of the seed material: another question draws differently from the same seed
    other = question.model_copy(update={"id": "live.other"})
    assert [draw_instance(other, s).params for s in range(20)] != first


@settings(max_examples=150, deadline=None)
@given(
    lo=st.integers(-1000, 1000),
    width=st.integers(0, 5000),
    step=st.integers(1, 97),
    seed=st.integers(0, 2**31 - 1),
)
def test_int_ranges_keep_bounds_and_steps(lo, width, step, seed):
    spec = VaryParam.model_validate({"int": [lo, lo + width], "step": step})
    value = draw("q", {"x": spec}, seed)["x"]
    assert isinstance(value, int) and lo <= value <= lo + width and (value - lo) % step == 0


@settings(max_examples=150, deadline=None)
@given(lo=st.floats(1e-3, 1e3), ratio=st.floats(1.0, 1e4), seed=st.integers(0, 2**31 - 1))
def test_log_floats_stay_in_range_and_are_rounded_to_what_the_prompt_shows(lo, ratio, seed):
    spec = VaryParam.model_validate({"float": [lo, lo * ratio], "log": True})
    value = draw("q", {"x": spec}, seed)["x"]
    assert lo <= value <= lo * ratio
    shown = fill("{x}", {"x": value})
    assert float(shown) == value  # the number the candidate sees is the number computed with


def test_float_steps_are_exact_decimals():
    spec = VaryParam.model_validate({"float": [1.5, 8], "step": 0.5})
    values = {draw("q", {"f": spec}, s)["f"] for s in range(200)}
    assert values == {1.5 + 0.5 * k for k in range(14)}


def test_placeholders_escapes_and_path_arithmetic():
    assert placeholders("{a} $x_{{b}}$ {a} $B^{2i/d}$ {c}") == ["a", "c"]
    assert fill("{n} heads, $m_{{kv}}$, $10^{4}$", {"n": 12}) == "12 heads, $m_{kv}$, $10^{4}$"
    assert fill("{x}", {"x": 2.5}) + fill(" {x}", {"x": 500000.0}) == "2.5 500000"
    assert fill_path("tables[0].rows[{head}-1][1]", {"head": 3}) == "tables[0].rows[2][1]"
    assert (
        fill_path("values.first_collision_{dtype}", {"dtype": "float16"}) == "values.first_collision_float16"
    )
    assert [fill_param(v, {"n": 37, "x": 2.5}) for v in ("-{n}", "{n}+1", "x", "{x}", "bf16", 4)] == [
        -37,
        38,
        2.5,
        2.5,
        "bf16",
        4,
    ]


@pytest.mark.slow
def test_the_draw_is_the_same_in_any_process_whatever_pythonhashseed(user_banks):
    """Two `posenc bank sample` processes with different hash seeds print the same instance."""
    outputs = []
    for hash_seed in ("1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "OMP_NUM_THREADS": "1"}
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "quizbank.cli",
                "bank",
                "sample",
                "alibi.slope-any-heads",
                "--seed",
                "7",
                "--json",
            ],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=env,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        outputs.append(json.loads(done.stdout))
    assert outputs[0] == outputs[1]
    sample = outputs[0]
    assert set(sample) == {"id", "seed", "params", "prompt", "answer", "demo"}
    assert sample["seed"] == 7 and set(sample["prompt"]) == {"en", "zh"}
    n, h = sample["params"]["n_heads"], sample["params"]["head"]
    assert f"{n} heads" in sample["prompt"]["en"] and f"第 {h} 个头" in sample["prompt"]["zh"]
    assert sample["demo"] == {
        "name": "alibi-slopes",
        "params": {"n_heads": n},
        "path": f"tables[0].rows[{h - 1}][1]",
    }
    assert sample["answer"]["tolerance"] == pytest.approx(1e-3 * sample["answer"]["value"])


def test_sample_usage_errors_exit_2(capsys, user_banks):
    assert cli.main(["bank", "sample", "no.such-question"]) == 2
    assert "no question" in capsys.readouterr().err
    assert cli.main(["bank", "sample", "alibi.slopes-8-heads"]) == 2  # a fixed question
    assert "not a generated question" in capsys.readouterr().err
    assert cli.main(["bank", "sample", "alibi.slope-any-heads", "--seed", "-1"]) == 2


def test_sample_prints_the_instance_in_words(capsys, user_banks):
    assert cli.main(["bank", "sample", "relative.t5-bucket-before", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "relative.t5-bucket-before  seed 3" in out and "posenc demo run t5-buckets" in out
    assert out.count("\nen: ") == 1 and out.count("\nzh: ") == 1


# -- the loader: structural checks at path:line:col, no demo run ---------------------------------------------------
@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            ("{head}?\n    zh:", "{heads}?\n    zh:"),
            "live.yaml:10:11: placeholder {heads} is not a vary parameter",
        ),
        (("ALiBi 给第 {head} 个头", "ALiBi 给这个头"), "live.yaml:11:11: the zh prompt never shows {head}"),
        (
            ("head: {int: [1, n_heads]}", "head: {int: [1, heads]}"),
            "live.yaml:8:23: bound 'heads' of 'head' is not",
        ),
        (
            ("{n_heads: n_heads}", "{n_head: n_heads}"),
            "live.yaml:15:43: demo 'alibi-slopes' has no parameter 'n_head'",
        ),
        (
            ("{n_heads: n_heads}", "{n_heads: nheads}"),
            "live.yaml:15:52: demo 'alibi-slopes': parameter 'n_heads' must",
        ),
        (
            ("[6, 8, 12, 16, 20, 32]", "[6, 8, 2000]"),
            "live.yaml:15:42: seed 2 draws n_heads=2000, head=1936: demo",
        ),
        (
            ("{choices: [6, 8, 12, 16, 20, 32]}", "{int: [1, 1025]}"),  # the 8 seeds miss 1025
            "live.yaml:7:16: n_heads=1025 can be drawn, but demo 'alibi-slopes' refuses it",
        ),
        (("rel_tol: 1e-6", "rel_tol: -1"), "live.yaml:15:108: answer.rel_tol: must be >= 0"),
        (
            ("    head: {int", "    head: {choices: [1, 2], int"),
            "live.yaml:8:13: vary.head: a vary parameter is exactly one",
        ),
        (
            ("  answer:", "  value: 3\n  answer:"),
            "a generated question computes its answer per instance; remove value",
        ),
        (("rel_tol: 1e-6", "rel_tol: 1e-6, unknown: 1"), "unknown key 'unknown'"),
        # numbers too big to draw or to index with were an "internal error" for the whole file
        (
            (
                "    head: {int: [1, n_heads]}",
                "    head: {int: [1, n_heads]}\n    x: {float: [0, 1.0e+308], step: 1.0e-308}",
            ),
            "live.yaml:9:10: vary.x: the range [0, 1e+308] in steps of 1e-308 has more than 1,000,000 steps",
        ),
        (
            (
                "    head: {int: [1, n_heads]}",
                "    head: {int: [1, n_heads]}\n    x: {float: [-1.0e+308, 1.0e+308]}",
            ),
            "live.yaml:9:10: vary.x: the range [-1e+308, 1e+308] is wider than a float holds",
        ),
        (
            ("[{head}-1]", "[{head}-1000000000000]"),
            "live.yaml:15:68: answer.path: a number in the path has 13 digits; an index has at most 9",
        ),
        (("[{head}-1]", "[{head}-1" + "0" * 4400 + "]"), "live.yaml:15:68: answer.path: is longer than 500"),
    ],
)
def test_loader_reports_each_problem_at_its_place(edit, expected):
    old, new = edit
    assert old in SLOPE
    _, problems = load(SLOPE.replace(old, new))
    text = "\n".join(str(p) for p in problems)
    assert expected in text, text


def test_loading_generated_questions_never_imports_torch():
    code = (
        "import sys; from quizbank.loader import load_banks; b = load_banks(include_user=False); "
        "from quizbank.generated.instances import draw_instance, is_generated; "
        "[draw_instance(q, 1) for q in b.questions.values() if is_generated(q)]; "
        "print(sum(map(is_generated, b.questions.values())), 'torch' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.stdout.split() == [done.stdout.split()[0], "False"], done.stderr
    assert int(done.stdout.split()[0]) >= 40


# -- bank validate: 8 seeded instances -----------------------------------------------------------------------------
def _report(body: str):
    bank, problems = load(body)
    assert problems == []
    from quizbank.loader import BankSet

    bankset = BankSet()
    for q in bank.topics[0].questions:
        bankset.questions[q.id] = q
    return instance_report(bankset, RunCache(default_runner("cpu")))


def test_validate_reports_a_question_whose_answer_never_changes():
    body = SLOPE.replace('path: "tables[0].rows[{head}-1][1]"', "path: values.n8_last_slope")
    report = _report(body)
    assert report.instances == 8
    assert [p.message for p in report.problems] == [
        "live.slope: all 8 instances have the answer 0.00390625; vary must change the answer "
        "(fewer than 2 distinct answers)"
    ]


# heads 4 and 8 of 8 or 16: slopes 2^-4, 2^-8, 2^-2 and 2^-4, three answers at most
FEW_ANSWERS = SLOPE.replace(
    "n_heads: {choices: [6, 8, 12, 16, 20, 32]}", "n_heads: {choices: [8, 16]}"
).replace("head: {int: [1, n_heads]}", "head: {choices: [4, 8]}")


def test_validate_asks_for_4_distinct_answers_in_8_draws():
    report = _report(FEW_ANSWERS)
    assert [p.message for p in report.problems] == [
        "live.slope: the 8 instances give only 3 distinct answers; vary must draw at least 4, "
        "or say why it cannot in few_answers: ..."
    ]


def test_few_answers_says_why_a_question_draws_fewer():
    body = FEW_ANSWERS.replace(
        "  prompt:\n", "  few_answers: two head counts and two heads give three slopes\n  prompt:\n", 1
    )
    assert _report(body).problems == []
    question = load(body)[0].topics[0].questions[0]
    assert question.few_answers == "two head counts and two heads give three slopes"
    # a showing is an ordinary numeric question: the reason stays with the generated one
    shown = materialise(question, resolve(draw_instance(question, 1), question, default_runner("cpu")))
    assert shown.few_answers is None and not shown.generated and shown.value in (2**-2, 2**-4, 2**-8)


def test_few_answers_never_excuses_an_answer_that_never_changes():
    body = SLOPE.replace('path: "tables[0].rows[{head}-1][1]"', "path: values.n8_last_slope").replace(
        "  prompt:\n", "  few_answers: one answer\n  prompt:\n", 1
    )
    assert [p.message for p in _report(body).problems] == [
        "live.slope: all 8 instances have the answer 0.00390625; vary must change the answer "
        "(fewer than 2 distinct answers)"
    ]


def test_a_stale_few_answers_is_reported():
    body = SLOPE.replace("  prompt:\n", "  few_answers: not many\n  prompt:\n", 1)
    assert [p.message for p in _report(body).problems] == [
        "live.slope: the 8 instances give 5 distinct answers, so few_answers no longer applies; remove it"
    ]


def test_few_answers_belongs_to_generated_questions_only():
    body = """\
- id: live.fixed
  type: numeric
  few_answers: it is fixed
  prompt: {en: "1 + 1?", zh: "1 + 1？"}
  explanation: {en: Two., zh: 二。}
  value: 0.5
  tolerance: 0
  checks: [{demo: alibi-slopes, params: {n_heads: 8}, path: values.first_slope, expect: 0.5}]
"""
    _, problems = load(body)
    assert any("few_answers explains a generated question's few answers" in str(p) for p in problems), (
        problems
    )


def test_validate_reports_a_parameter_the_demo_refuses_at_run_time():
    body = SLOPE.replace(
        'answer: {demo: alibi-slopes, params: {n_heads: n_heads}, path: "tables[0].rows[{head}-1][1]"',
        "answer: {demo: sinusoidal-wavelengths, params: {dim: 8, pair: head}, path: values.pair_wavelength",
    )
    report = _report(body)
    # one line for the question, however many of its 8 seeds the demo refuses, naming the first
    [refused] = [p.message for p in report.problems]
    assert refused.startswith("live.slope: ") and "must be below dim/2" in refused
    assert re.search(r"\(fails on [1-8] of 8 seeds; seed \d draws n_heads=\d+, head=\d+\)$", refused), refused


def test_validate_catches_a_path_that_fails_only_for_some_draws():
    """Off by one: row head+1 exists for most draws, not when head is near n_heads. The loader cannot see
    it (a table's length is known only once the demo runs); validate reports it on every seed it hits."""
    bank, problems = load(SLOPE.replace("rows[{head}-1]", "rows[{head}+1]"))
    assert problems == []
    question = bank.topics[0].questions[0]
    hit = [
        s for s in VALIDATION_SEEDS if (d := draw(question.id, question.vary, s))["head"] + 1 >= d["n_heads"]
    ]
    assert 0 < len(hit) < len(VALIDATION_SEEDS)
    report = _report(SLOPE.replace("rows[{head}-1]", "rows[{head}+1]"))
    [line] = [p.message for p in report.problems]
    assert f"(fails on {len(hit)} of 8 seeds; seed {hit[0]} draws " in line, line
    assert report.instances_passed == 8 - len(hit)


def test_validate_says_a_problem_once_with_its_did_you_mean_and_how_many_seeds_fail(
    tmp_path, capsys, user_banks
):
    """A misspelt value failed the loader once and each of the 8 seeds again: 9 lines, the useful one last."""
    bank = tmp_path / "live.yaml"
    body = SLOPE.replace('path: "tables[0].rows[{head}-1][1]"', "path: values.first_slop")
    bank.write_text(HEAD + textwrap.indent(body, "  "), encoding="utf-8")
    assert cli.main(["bank", "validate", str(bank)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1, lines
    assert "declares no value 'first_slop' (did you mean 'first_slope'?)" in lines[0]
    assert lines[0].endswith("(fails on 8 of 8 seeds)")


def test_validate_reports_a_non_finite_answer():
    body = SLOPE.replace(
        'path: "tables[0].rows[{head}-1][1]"', 'path: "tables[0].rows[{head}-1][2]"'
    ).replace("rel_tol: 1e-6", "abs_tol: 0")
    body = body.replace(
        "alibi-slopes, params: {n_heads: n_heads}", "alibi-bias, params: {n_heads: 4, seq_len: 2}"
    )
    body = body.replace('"tables[0].rows[{head}-1][2]"', '"tables[0].rows[0][{head}-{head}+2]"')
    report = _report(body)
    assert any("not a finite number" in p.message for p in report.problems), report.problems


@pytest.mark.slow
def test_every_shipped_generated_question_passes_its_8_instances(shipped):
    report = instance_report(shipped, RunCache(default_runner("cpu")))
    assert report.problems == []
    assert report.questions >= 40 and report.instances == 8 * report.questions == report.instances_passed


@pytest.mark.slow
def test_each_instance_agrees_with_posenc_demo_run(shipped, capsys):
    """The value an instance shows is the number `posenc demo run NAME k=v --json` prints at its path."""
    runner = default_runner("cpu")
    printed: dict[tuple, dict] = {}
    checked = 0
    for question in generated(shipped):
        answers = set()
        for seed in VALIDATION_SEEDS:
            inst = resolve(draw_instance(question, seed), question, runner)
            key = (inst.demo_name, tuple(sorted(inst.demo_params.items())))
            if key not in printed:
                argv = ["demo", "run", inst.demo_name, *(f"{k}={v}" for k, v in inst.demo_params.items())]
                assert demo_cli.main([*argv, "--device", "cpu", "--json"]) == 0
                printed[key] = json.loads(capsys.readouterr().out)
            expected = as_number(resolve_path(printed[key], inst.path))
            assert inst.value == pytest.approx(expected, rel=1e-12, abs=1e-12), (question.id, seed)
            assert math.isfinite(inst.value) and inst.tolerance is not None
            answers.add(inst.value)
            checked += 1
        assert len(answers) >= 2, question.id
    assert checked >= 320


# -- the shipped questions -----------------------------------------------------------------------------------------
def test_at_least_40_bilingual_generated_questions_across_every_family(shipped):
    questions = generated(shipped)
    assert len(questions) >= 40
    demos = {q.live_answer.demo for q in questions}
    assert demos >= {
        "sinusoidal-wavelengths",
        "sinusoidal-linearity",
        "rope-relativity",
        "rope-scaling",
        "alibi-slopes",
        "alibi-bias",
        "t5-buckets",
        "shaw-relative",
        "kv-cache-memory",
        "nope-causal-position",
        "mrope-sections",
    }
    for q in questions:
        assert q.prompt.languages() == {"en", "zh"} and q.explanation.languages() == {"en", "zh"}, q.id


def test_generated_questions_sit_right_after_a_question_of_their_topic(shipped):
    """Inserted in learner order after the fixed question they generalise, not appended in a block."""
    for topic in shipped.topics:
        ids = topic.question_ids
        for i, qid in enumerate(ids):
            if is_generated(shipped.questions[qid]):
                assert i > 0, qid
        tail = [qid for qid in ids[-3:] if is_generated(shipped.questions[qid])]
        assert len(tail) < 3, topic.id


def test_a_materialised_instance_is_an_ordinary_numeric_question(shipped):
    question = shipped.questions["alibi.slope-any-heads"]
    inst = resolve(draw_instance(question, 5), question, default_runner("cpu"))
    shown = materialise(question, inst)
    assert shown.type == "numeric" and not shown.generated and shown.id == question.id
    assert shown.value == inst.value and shown.tolerance == pytest.approx(1e-3 * inst.value)
    assert "{" not in shown.prompt.en and shown.prompt.en == inst.prompt["en"]
    assert shown.demo is not None and shown.demo.params == inst.demo_params
    assert grade_numeric(shown, f"{inst.value * 1.0005:.10g}").correct is True
    assert grade_numeric(shown, f"{inst.value * 1.01:.10g}").correct is False


def test_materialising_before_the_answer_is_computed_is_refused(shipped):
    question = shipped.questions["alibi.slope-any-heads"]
    with pytest.raises(InstanceError):
        materialise(question, draw_instance(question, 1))


def test_export_seeds_are_fixed():
    assert EXPORT_SEEDS == (1, 2, 3)


def test_a_range_too_large_through_a_named_bound_is_a_vary_error():
    """The schema sees literal bounds only; a bound naming an earlier parameter is checked at the draw."""
    from quizbank.generated.draw import VaryError, draw, fill_path
    from quizbank.schema import VaryParam

    vary = {
        "n": VaryParam.model_validate({"choices": [1.0e300, 2.0e300]}),
        "x": VaryParam.model_validate({"float": [0, "n"], "step": 1.0e-300}),
    }
    with pytest.raises(VaryError, match="vary parameter 'x': more than 1,000,000 steps of 1e-300"):
        draw("q", vary, 0)
    with pytest.raises(VaryError, match="more than 9 digits"):
        fill_path("tables[0].rows[{h}-1" + "0" * 4400 + "][1]", {"h": 2})
    assert fill_path("tables[0].rows[{h}-1][1]", {"h": 2}) == "tables[0].rows[1][1]"


PAIR = """\
- id: live.pair
  type: numeric
  vary:
    dim: {choices: [8, 16, 64]}
    pair: {int: [0, dim/2 - 1]}
  prompt:
    en: With dim {dim}, what is the wavelength of pair {pair}?
    zh: dim 为 {dim} 时，第 {pair} 对的波长是多少？
  explanation:
    en: Pair $i$ turns with $\\theta_i = 10000^{-2i/d}$.
    zh: 第 $i$ 对的角速度为 $\\theta_i = 10000^{-2i/d}$。
  answer: {demo: sinusoidal-wavelengths, params: {dim: dim, pair: pair}, path: values.pair_wavelength, rel_tol: 1e-6}
"""


def test_a_bound_may_be_arithmetic_of_earlier_parameters():
    bank, problems = load(PAIR)
    assert problems == []
    question = bank.topics[0].questions[0]
    draws = [draw(question.id, question.vary, seed) for seed in range(300)]
    assert all(0 <= d["pair"] <= d["dim"] // 2 - 1 for d in draws)
    assert {d["pair"] for d in draws if d["dim"] == 8} == {0, 1, 2, 3}  # the upper end is drawn too


@pytest.mark.parametrize(
    ("bound", "expected"),
    [
        (
            "dim/2 -",
            "live.yaml:8:23: vary.pair.int[1]: bound 'dim/2 -' is not arithmetic of earlier parameters: "
            "the expression ends too early",
        ),
        (
            "dim//2",
            "live.yaml:8:23: vary.pair.int[1]: bound 'dim//2' is not arithmetic of earlier parameters: "
            "unexpected '/'",
        ),
        (
            "dimm/2 - 1",
            "live.yaml:8:23: bound 'dimm/2 - 1' of 'pair': 'dimm' is not an earlier parameter "
            "(did you mean 'dim'?)",
        ),
        (
            "pair - 1",
            "live.yaml:8:23: bound 'pair - 1' of 'pair': 'pair' is not an earlier parameter "
            "(it is declared later; declare it first)",
        ),
        (
            "dim/0",
            "live.yaml:7:7: seed 0: vary parameter 'pair': bound 'dim/0' with dim=16: division by zero",
        ),
        ("dim - 100", "live.yaml:7:7: seed 0: vary parameter 'pair': empty range [0, -84]"),
    ],
)
def test_a_bad_bound_expression_is_one_clear_line(bound, expected):
    _, problems = load(PAIR.replace("dim/2 - 1", bound))
    assert [str(p) for p in problems] == [expected]
