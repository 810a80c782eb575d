"""quizbank validation: every malformed case reports the right line:col and message; cross-file
rules; checks recompute numbers (with a stand-in runner, and with the real demos)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from support.banks import ALL_TYPES, USER_BANK, shipped_dir, write
from support.paths import ROOT

from posenc_ref.demos.base import Check, DemoResult
from quizbank.checks import CheckPathError, check_report, parse_path, resolve_path, run_checks, value_name
from quizbank.loader import load_bank_text, load_banks
from quizbank.problems import Problem


def problems_in(text: str, languages: tuple[str, ...] = ()) -> list[str]:
    bank, problems = load_bank_text(textwrap.dedent(text), "b.yaml", require_languages=languages)
    assert all(isinstance(p, Problem) for p in problems)
    if problems:
        assert bank is None
    return [str(p) for p in problems]


HEAD = """\
topic: t
title: T
questions:
"""


def q(body: str) -> str:
    return HEAD + textwrap.indent(textwrap.dedent(body), "  ")


# -- schema errors on lines -------------------------------------------------------------------------------------------------
def test_valid_user_question_has_no_problems():
    assert problems_in(USER_BANK) == []


def test_unknown_key_suggests_the_field():
    text = q(
        """\
        - id: t.one
          type: truefalse
          promtp: Is it?
          correct: true
          explanation: E
        """
    )
    assert problems_in(text) == [
        "b.yaml:4:5: missing required key 'prompt'",
        "b.yaml:6:5: unknown key 'promtp' (did you mean 'prompt'?)",
    ]


def test_unknown_key_without_a_close_match_lists_the_keys():
    text = q(
        """\
        - id: t.one
          type: truefalse
          prompt: {en: P, cn: 中文}
          correct: true
          explanation: E
          zzz: 1
        """
    )
    out = problems_in(text)
    assert out[0] == "b.yaml:6:21: unknown key 'cn'; text takes the languages en and zh"
    assert out[1].startswith(
        "b.yaml:9:5: unknown key 'zzz'; valid keys here: id, prompt, explanation, answer"
    )


def test_missing_key_points_at_the_enclosing_mapping():
    text = q(
        """\
        - id: t.one
          type: open
          prompt: P
          explanation: E
        """
    )
    assert problems_in(text) == [
        "b.yaml:4:5: missing required key 'answer' (an open question needs it)",
        "b.yaml:4:5: missing required key 'key_points' (an open question needs it)",
    ]


def test_question_type_errors():
    text = q(
        """\
        - id: t.one
          type: mcqq
          prompt: P
        - id: t.two
          prompt: P
        """
    )
    assert problems_in(text) == [
        "b.yaml:5:11: unknown question type 'mcqq' (did you mean 'mcq'?); "
        "the types are open, mcq, multi, truefalse, numeric, cloze",
        "b.yaml:7:5: missing key 'type': say which kind of question this is "
        "(open, mcq, multi, truefalse, numeric, cloze)",
    ]


def test_wrong_types_say_what_was_expected():
    text = q(
        """\
        - id: 12
          type: truefalse
          prompt: [not, text]
          correct: maybe
          explanation: E
          difficulty: 7
          tags: rope
          demo: {name: rope-norm, params: {dim: [8]}}
        """
    )
    assert problems_in(text) == [
        "b.yaml:4:9: id: expected text, got the number 12 (put it in quotes)",
        "b.yaml:6:13: prompt: expected text: a string, or {en: ..., zh: ...}, got a list",
        "b.yaml:7:14: correct: expected true or false, got the text 'maybe'",
        "b.yaml:9:17: difficulty: must be <= 3, got the number 7",
        "b.yaml:10:11: tags: expected a list, got the text 'rope' (write [a, b] or one '- item' per line)",
        "b.yaml:11:43: demo.params.dim: expected a number, true/false or text, got a list",
    ]


def test_bad_ids_and_question_rules():
    text = q(
        """\
        - id: Bad Id
          type: truefalse
          prompt: P
          explanation: E
          correct: true
        - id: t.mcq
          type: mcq
          prompt: P
          explanation: E
          choices: [{text: a, correct: true}, {text: b, correct: true}]
        - id: t.cloze
          type: cloze
          prompt: 'Only {{1}} here.'
          explanation: E
          blanks: [{accept: [a]}, {accept: [b]}]
        - id: t.num
          type: numeric
          prompt: P
          explanation: E
          value: 3
          tolerance: 0
        - id: t.multi
          type: multi
          prompt: P
          explanation: E
          choices: [{text: a}]
        """
    )
    assert problems_in(text) == [
        "b.yaml:4:9: 'Bad Id' is not a valid id: use lowercase letters, digits, '.', '_' and '-', "
        "starting with a letter or digit",
        "b.yaml:9:5: an mcq question needs exactly one choice with correct: true (found 2)",
        "b.yaml:14:5: the en prompt has blanks [1] but 2 blank(s) are defined; write {{1}}..{{2}}",
        "b.yaml:19:5: a numeric question must be backed by a check that recomputes its value",
        "b.yaml:29:14: choices: needs at least 2 items, got 1",
    ]


def test_all_problems_come_in_one_run():
    text = q(
        """\
        - id: t.a
          type: truefalse
          prompt: P
          correct: true
          explanation: E
          follow_ups: [t.a]
        - id: t.b
          type: open
        - id: t.a
          type: truefalse
          prompt: P
          correct: false
          explanation: E
        - id: t.c
          type: truefalse
          prompt: P
          correct: yes
          explanation: E
          demo: {name: alibi-slopez}
        """
    )
    out = problems_in(text)
    assert "b.yaml:9:18: follow_ups lists the question itself ('t.a')" in out
    assert "b.yaml:10:5: missing required key 'prompt'" in out
    assert "b.yaml:12:9: duplicate id 't.a' (also defined at b.yaml:4:5)" in out
    assert "b.yaml:22:18: unknown demo 'alibi-slopez' (did you mean 'alibi-slopes'?)" in out
    assert len(out) == 7  # 4 missing keys for t.b, plus the three others


def test_missing_language_in_the_shipped_bank():
    text = """\
    topic: t
    title: {en: T, zh: 题}
    questions:
      - id: t.one
        type: truefalse
        prompt: {en: Is it?}
        correct: true
        explanation: Plain English.
    """
    assert problems_in(text, ("en", "zh")) == [
        "b.yaml:6:13: prompt: missing the zh text (this bank needs en and zh)",
        "b.yaml:8:18: explanation: plain text counts as English only; this bank needs en and zh: "
        "write {en: ..., zh: ...}",
    ]
    # user banks may be English-only
    assert problems_in(text) == []


def test_text_needs_some_language():
    text = q(
        """\
        - id: t.one
          type: truefalse
          prompt: {zh: "  "}
          correct: true
          explanation: ''
        """
    )
    assert problems_in(text) == [
        "b.yaml:6:13: prompt: text needs at least one language (en or zh) with non-empty text",
        "b.yaml:8:18: explanation: text needs at least one language (en or zh) with non-empty text",
    ]


def test_no_silent_type_coercion_and_numbers_are_finite():
    text = q(
        """\
        - id: t.one
          type: truefalse
          prompt: P
          correct: "yes"
          difficulty: true
          explanation: E
        - id: t.two
          type: numeric
          prompt: P
          value: "0.5"
          tolerance: .inf
          explanation: E
          checks:
            - {demo: alibi-slopes, path: first_slope, expect: .nan, tolerance: .inf}
        """
    )
    assert problems_in(text) == [
        "b.yaml:7:14: correct: expected true or false, got the text 'yes'",
        "b.yaml:8:17: difficulty: expected a whole number, got true",
        "b.yaml:13:12: value: expected a number, got the text '0.5'",
        "b.yaml:14:16: tolerance: expected a finite number, got the number inf",
        "b.yaml:17:57: checks[0].expect: expected a finite number, got the number nan",
        "b.yaml:17:74: checks[0].tolerance: expected a finite number, got the number inf",
    ]
    # numbers written as YAML ints are fine where a float is expected
    ok = q(
        """\
        - id: t.ok
          type: numeric
          prompt: P
          value: 1
          tolerance: 0
          explanation: E
          checks: [{demo: alibi-slopes, params: {n_heads: 1}, path: first_slope, expect: 0}]
        """
    )
    assert problems_in(ok) == ["b.yaml:4:5: no check expects the answer value 1.0 (within tolerance 0.0)"]


def test_empty_accepted_answers_tags_and_sources():
    text = q(
        """\
        - id: t.one
          type: cloze
          prompt: 'Base {{1}}.'
          blanks: [{accept: ["10000", "  "]}]
          tags: [""]
          sources: [ok, ""]
          explanation: E
        """
    )
    assert problems_in(text) == [
        "b.yaml:7:33: blanks[0].accept[1]: must not be empty or only spaces",
        "b.yaml:8:12: tags[0]: must not be empty or only spaces",
        "b.yaml:9:19: sources[1]: must not be empty or only spaces",
    ]


def test_choices_must_read_differently():
    text = q(
        """\
        - id: t.one
          type: mcq
          prompt: P
          choices:
            - {text: {en: RoPE, zh: 旋转}, correct: true}
            - {text: {en: ALiBi, zh: 线性偏置}}
            - {text: {en: "  rope ", zh: 别的}}
          explanation: E
        """
    )
    assert problems_in(text) == [
        "b.yaml:4:5: choices 1 and 3 have the same en text '  rope '; every choice must read differently"
    ]


def test_a_refused_tag_is_not_repeated_as_a_type_error():
    text = q(
        """\
        - !!python/object/apply:os.system ["echo hi"]
        - id: t.one
          type: truefalse
          prompt: P
          correct: true
          difficulty: !!int two
          explanation: E
        """
    )
    assert problems_in(text) == [
        "b.yaml:4:5: tag '!!python/object/apply:os.system' is not allowed: bank files hold data only, "
        "nothing is ever executed",
        "b.yaml:9:17: 'two' is not a valid !!int value",
    ]


def test_duplicate_id_of_a_question_that_fails_validation():
    text = q(
        """\
        - id: t.a
          type: truefalse
          prompt: P
          explanation: E
        - id: t.a
          type: truefalse
          prompt: P
          correct: true
          explanation: E
        """
    )
    assert problems_in(text) == [
        "b.yaml:4:5: missing required key 'correct' (a truefalse question needs it)",
        "b.yaml:8:9: duplicate id 't.a' (also defined at b.yaml:4:5)",
    ]


def test_questions_are_checked_when_their_topic_is_invalid():
    text = """\
topic: t
titel: T
questions:
  - id: t.one
    type: truefalse
    prompt: P
    correct: true
    explanation: E
    follow_ups: [t.one]
    demo: {name: alibi-slope}
"""
    assert problems_in(text) == [
        "b.yaml:1:1: missing required key 'title'",
        "b.yaml:2:1: unknown key 'titel' (did you mean 'title'?)",
        "b.yaml:9:18: follow_ups lists the question itself ('t.one')",
        "b.yaml:10:18: unknown demo 'alibi-slope' (did you mean 'alibi-slopes'?)",
    ]


# -- demo references (structural, no torch) -------------------------------------------------------------------------------
def test_demo_references_are_checked():
    text = q(
        """\
        - id: t.one
          type: numeric
          prompt: P
          explanation: E
          value: 0.5
          tolerance: 0.001
          demo: {name: alibi-slopes, params: {n_heads: 2000}}
          checks:
            - {demo: alibi-slopes, params: {n_head: 8}, path: values.first_slope, expect: 0.5}
            - {demo: alibi-slopes, path: first_slop, expect: 0.5}
            - {demo: alibi-slopes, path: 'tables[0]..rows', expect: 0.5}
            - {demo: rope-norm, params: {dim: 7}, path: max_norm_error, expect: 0.5}
            - {demo: no-such-demo-at-all, path: x, expect: 0.5}
        """
    )
    out = problems_in(text)
    assert (
        out[0] == "b.yaml:10:50: demo 'alibi-slopes': parameter 'n_heads' must be int in [1, 1024], got 2000"
    )
    assert out[1] == (
        "b.yaml:12:39: demo 'alibi-slopes' has no parameter 'n_head' (did you mean 'n_heads'?); "
        "its parameters: n_heads"
    )
    assert out[2].startswith(
        "b.yaml:13:36: demo 'alibi-slopes' declares no value 'first_slop' (did you mean 'first_slope'?); "
        "its values: first_slope,"
    )
    assert out[3].startswith("b.yaml:14:36: bad check path 'tables[0]..rows'")
    assert (
        out[4]
        == "b.yaml:15:41: demo 'rope-norm': parameter 'dim' must be even (int in [2, 8192] even), got 7"
    )
    assert out[5].startswith("b.yaml:16:16: unknown demo 'no-such-demo-at-all'; the demos are ")
    assert len(out) == 6


def test_demo_params_are_typed_as_yaml_and_invalid_checks_keep_their_params_checked():
    text = q(
        """\
        - id: t.one
          type: truefalse
          prompt: P
          correct: true
          explanation: E
          demo: {name: alibi-bias, params: {n_heads: "8", causal: "true"}}
          checks:
            - {demo: alibi-slopes, params: {n_heads: 9999}, path: first_slope}
        """
    )
    assert problems_in(text) == [
        "b.yaml:9:48: demo 'alibi-bias': parameter 'n_heads' takes a number (int in [1, 1024]), "
        "got the text '8'; write it without quotes",
        "b.yaml:9:61: demo 'alibi-bias': parameter 'causal' takes true or false, "
        "got the text 'true'; write it without quotes",
        "b.yaml:11:9: missing required key 'expect'",
        "b.yaml:11:48: demo 'alibi-slopes': parameter 'n_heads' must be int in [1, 1024], got 9999",
    ]


def test_demo_over_the_memory_budget(monkeypatch):
    monkeypatch.setenv("POSENC_MEMORY_BUDGET_MIB", "1")
    text = q(
        """\
        - id: t.one
          type: truefalse
          prompt: P
          correct: true
          explanation: E
          demo: {name: alibi-bias, params: {n_heads: 64, seq_len: 4096}}
        """
    )
    out = problems_in(text)
    assert len(out) == 1 and out[0].startswith(
        "b.yaml:9:38: demo 'alibi-bias' with these parameters needs about"
    )


# -- cross-file rules ----------------------------------------------------------------------------------------------------------
def test_duplicate_ids_across_files_name_both_places(tmp_path):
    folder = tmp_path / "banks"
    one = USER_BANK.replace("    follow_ups: [basics.open]\n", "")
    write(folder, "a.yaml", one)
    write(folder, "b.yaml", one.replace("topic: mine", "topic: other"))
    bankset = load_banks([folder], include_shipped=False, include_user=False)
    a, b = (str(folder / n) for n in ("a.yaml", "b.yaml"))
    assert [str(p) for p in bankset.problems] == [
        f"{b}:4:9: duplicate id 'mine.one' (also defined at {a}:4:5)",
        f"{b}:9:9: duplicate id 'mine.two' (also defined at {a}:9:5)",
    ]
    assert [path for path, _ in bankset.skipped] == [b]
    assert bankset.files == [a]


def test_user_question_reusing_a_shipped_id(tmp_path):
    shipped = shipped_dir(tmp_path)
    user = tmp_path / "user"
    write(user, "mine.yaml", USER_BANK.replace("id: mine.two", "id: basics.tf"))
    bankset = load_banks(shipped_dir=shipped, user_dir=user)
    user_file, shipped_file = str(user / "mine.yaml"), str(shipped / "basics.yaml")
    assert [str(p) for p in bankset.problems] == [
        f"{user_file}:10:9: id 'basics.tf' is already used by the shipped bank at {shipped_file}:33:5; "
        "pick another id (progress is kept per id)"
    ]
    assert len(bankset.questions) == 6 and "mine.one" not in bankset.questions


def test_follow_ups_to_unknown_ids(tmp_path):
    shipped = shipped_dir(tmp_path, ALL_TYPES.replace("follow_ups: [basics.mcq]", "follow_ups: [basics.mqc]"))
    bankset = load_banks(shipped_dir=shipped, include_user=False)
    assert [p.message for p in bankset.problems] == [
        "follow_ups: unknown question id 'basics.mqc' (did you mean 'basics.mcq'?)"
    ]
    assert (bankset.problems[0].line, bankset.problems[0].col) == (16, 18)
    assert "basics.open" in bankset.questions  # shipped questions are kept


def test_follow_up_into_a_skipped_file_says_so(tmp_path):
    user = tmp_path / "user"
    write(user, "a.yaml", USER_BANK.replace("basics.open", "bad.one"))
    write(user, "b.yaml", "topic: bad\ntitle: Bad\nquestions:\n  - id: bad.one\n    type: open\n")
    bankset = load_banks(shipped_dir=shipped_dir(tmp_path), user_dir=user)
    messages = [p.message for p in bankset.problems]
    assert (
        f"follow_ups: unknown question id 'bad.one' (it is defined in {user / 'b.yaml'}, which was skipped)"
        in messages
    )
    assert sorted(Path(p).name for p, _ in bankset.skipped) == ["a.yaml", "b.yaml"]


def test_skipped_files_still_get_every_cross_file_problem(tmp_path):
    """A file skipped for one error still has its ids and follow_ups checked, so one run of
    `posenc bank validate` shows every problem."""
    shipped = shipped_dir(tmp_path)
    user = tmp_path / "user"
    body = "    type: truefalse\n    prompt: P\n    correct: true\n    explanation: E\n"
    write(
        user,
        "a.yaml",
        "topic: u\ntitle: U\nquestions:\n"
        f"  - id: u.x\n{body}    follow_ups: [u.y, u.zzz]\n"
        f"  - id: basics.tf\n{body}"
        f"  - id: u.bad\n{body}    bogus: 1\n",
    )
    write(user, "b.yaml", f"topic: u\ntitle: U\nquestions:\n  - id: u.x\n{body}  - id: u.y\n{body}")
    bankset = load_banks(shipped_dir=shipped, user_dir=user)
    a, b, tf = str(user / "a.yaml"), str(user / "b.yaml"), str(shipped / "basics.yaml")
    assert [str(p) for p in sorted(bankset.problems)] == [
        f"{a}:9:23: follow_ups: unknown question id 'u.zzz'",
        f"{a}:10:9: id 'basics.tf' is already used by the shipped bank at {tf}:33:5; "
        "pick another id (progress is kept per id)",
        f"{a}:20:5: unknown key 'bogus'; valid keys here: id, prompt, explanation, answer, difficulty, "
        "tags, sources, follow_ups, demo, checks, drill, hints, replaces, type, correct",
        f"{b}:4:9: duplicate id 'u.x' (also defined at {a}:4:5)",
    ]
    assert sorted(Path(p).name for p, _ in bankset.skipped) == ["a.yaml", "b.yaml"]
    assert len(bankset.questions) == 6  # the shipped bank is untouched


def test_shipped_file_with_an_error_keeps_its_valid_questions(tmp_path):
    broken = ALL_TYPES.replace("    correct: false\n", "    correct: [no]\n")
    bankset = load_banks(shipped_dir=shipped_dir(tmp_path, broken), include_user=False)
    assert [p.message for p in bankset.problems] == ["correct: expected true or false, got a list"]
    assert len(bankset.questions) == 5 and "basics.tf" not in bankset.questions
    assert bankset.skipped == []


# -- check paths -------------------------------------------------------------------------------------------------------------
RESULT = {
    "values": {"max_error": 1e-7, "first_slope": 0.5, "flag": True},
    "tables": [{"title": "t", "columns": ["h", "slope"], "rows": [[1, 0.5], [2, 0.25], [3, "inf"]]}],
    "checks": [{"claim": "c", "passed": True, "max_abs_error": 0.0, "tolerance": 1e-6}],
}


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("values.max_error", 1e-7),
        ("max_error", 1e-7),
        ("tables[0].rows[1][1]", 0.25),
        ("tables[0].rows[-1][0]", 3),
        ("tables[0].columns[1]", "slope"),
        ("checks[0].max_abs_error", 0.0),
        (" values.flag ", True),
    ],
)
def test_resolve_path(path, expected):
    assert resolve_path(RESULT, path) == expected


@pytest.mark.parametrize(
    ("path", "fragment"),
    [
        ("tables[1].rows", "tables has 1 item(s), so no [1]"),
        ("tables[0].rows[0][1][0]", "is not a list"),
        ("values.nope", "values has no 'nope' (it has: max_error, first_slope, flag)"),
        ("tables.rows", "tables is not a mapping"),
        ("", "check path is empty"),
        ("tables[x]", "is not a name or name[index]"),
        ("rows[0]", "must start with one of"),
    ],
)
def test_resolve_path_errors(path, fragment):
    with pytest.raises(CheckPathError, match=None) as info:
        resolve_path(RESULT, path)
    assert fragment in str(info.value)


def test_parse_path_and_value_name():
    assert parse_path("tables[0].rows[2][1]") == ["tables", 0, "rows", 2, 1]
    assert parse_path("max_error") == ["values", "max_error"]
    assert value_name("values.first_slope") == "first_slope"
    assert value_name("first_slope") == "first_slope"
    assert value_name("checks[1].max_abs_error") is None


# -- running checks --------------------------------------------------------------------------------------------------------------
def fake_result(name: str, params: dict, values: dict, passed: bool = True) -> DemoResult:
    return DemoResult(
        name=name,
        title=name,
        claim="claim",
        device="cpu",
        dtype="float32",
        elapsed_ms=0.0,
        params=params,
        checks=[Check("self check", passed, 0.0 if passed else 0.5, 1e-6)],
        values=values,
    )


def test_checks_compare_within_tolerance_and_cache_runs(tmp_path):
    text = ALL_TYPES.replace(
        "    checks:\n",
        "    checks:\n"
        "      - {demo: alibi-slopes, params: {n_heads: 8.0}, path: last_slope, expect: 0.004, tolerance: 1.0e-4}\n"
        "      - {demo: alibi-slopes, params: {n_heads: 8}, path: 'checks[0].passed', expect: 1}\n",
    )
    bankset = load_banks(shipped_dir=shipped_dir(tmp_path, text), include_user=False)
    assert bankset.problems == []
    calls = []

    def runner(name, params):
        calls.append((name, params))
        if name == "alibi-slopes":
            return fake_result(name, params, {"first_slope": 0.5, "last_slope": 2**-8})
        return fake_result(name, params, {"no_pe_error": 0.0, "with_pe_difference": 1.0})

    report = check_report(bankset, runner=runner)
    assert report.problems == []
    assert (report.checks_run, report.checks_passed, report.demos_verified) == (3, 3, 2)
    # n_heads 8 and 8.0 resolve to the same run; the numeric question's demo shares it too
    assert sorted(c[0] for c in calls) == ["alibi-slopes", "permutation-equivariance"]
    assert report.runs == 2


def test_failed_check_is_reported_at_the_check(tmp_path):
    bankset = load_banks(shipped_dir=shipped_dir(tmp_path), include_user=False)

    def runner(name, params):
        return fake_result(name, params, {"first_slope": 0.4999})

    problems = run_checks(bankset, runner=runner)
    path = str(tmp_path / "shipped" / "basics.yaml")
    assert [str(p) for p in problems] == [
        f"{path}:47:9: check 1 of 'basics.numeric' failed: alibi-slopes {{n_heads: 8}} gives "
        "values.first_slope = 0.4999, expected 0.5 ± 1e-09 (off by 0.0001)"
    ]


def test_failing_self_check_and_crashing_demo(tmp_path):
    bankset = load_banks(shipped_dir=shipped_dir(tmp_path), include_user=False)

    def runner(name, params):
        if name == "permutation-equivariance":
            raise RuntimeError("boom\nsecond line")
        return fake_result(name, params, {"first_slope": 0.5}, passed=False)

    problems = run_checks(bankset, runner=runner)
    path = str(tmp_path / "shipped" / "basics.yaml")
    assert [str(p) for p in problems] == [
        f"{path}:17:11: demo 'permutation-equivariance' failed: RuntimeError: boom second line",
        f"{path}:45:11: demo 'alibi-slopes' fails its own check 'self check': max error 0.5 > tolerance 1e-06",
    ]


def test_check_value_that_is_not_a_number(tmp_path):
    bankset = load_banks(shipped_dir=shipped_dir(tmp_path), include_user=False)

    def runner(name, params):
        return fake_result(name, params, {"first_slope": "n/a"})

    problems = run_checks(bankset, runner=runner)
    assert [p.message for p in problems] == [
        "check 1 of 'basics.numeric': values.first_slope is 'n/a', not a number"
    ]


def test_real_demos_confirm_the_fixture(tmp_path):
    """The fixture's demo and check, run for real (imports torch)."""
    bankset = load_banks(shipped_dir=shipped_dir(tmp_path), include_user=False)
    report = check_report(bankset)
    assert report.problems == []
    assert report.checks_passed == 1 and report.demos_verified == 2


# -- the documentation's examples ------------------------------------------------------------------------------------
DOCS = ROOT / "docs" / "bank-format.md"


def _yaml_blocks() -> list[str]:
    text = DOCS.read_text(encoding="utf-8")
    blocks = []
    for chunk in text.split("```yaml\n")[1:]:
        blocks.append(chunk.split("```", 1)[0])
    return blocks


def test_docs_question_examples_validate():
    snippets = [b for b in _yaml_blocks() if b.startswith("- id:")]
    assert len(snippets) == 7  # one per type, and a generated (vary) numeric question
    text = "topic: docs\ntitle: {en: Docs, zh: 文档}\nquestions:\n" + "".join(
        textwrap.indent(s, "  ") for s in snippets
    )
    bank, problems = load_bank_text(text, "docs.yaml", require_languages=("en", "zh"))
    assert [str(p) for p in problems] == []
    assert sorted(q.type for q in bank.topics[0].questions) == sorted(
        ["open", "mcq", "multi", "truefalse", "numeric", "numeric", "cloze"]
    )


def test_docs_complete_file_validates_with_its_checks(tmp_path):
    (complete,) = [b for b in _yaml_blocks() if b.startswith("# my-notes.yaml")]
    bankset = load_banks(shipped_dir=shipped_dir(tmp_path, complete, "my-notes.yaml"), include_user=False)
    assert [str(p) for p in bankset.problems] == []
    assert len(bankset.questions) == 3
    report = check_report(bankset)
    assert report.problems == [] and report.checks_passed == 1
