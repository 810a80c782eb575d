"""`posenc bank judge` and the judge checks of `posenc bank validate` (examples, common one-word terms)."""

from __future__ import annotations

import io
import json
import textwrap
from pathlib import Path

import pytest
from support.cli import cli_runner

from quizbank import cli

BANK = textwrap.dedent(
    """\
    topic: jt
    title: {en: Judge test, zh: 判官测试}
    questions:
      - id: jt.only-qk
        type: open
        prompt: {en: Why does RoPE rotate only q and k?, zh: 为什么 RoPE 只旋转 q 和 k？}
        answer: {en: Only q and k are rotated., zh: 只旋转 q 和 k。}
        explanation: {en: The score is where rotations meet., zh: 旋转在打分里相遇。}
        key_points:
          - en: RoPE rotates only q and k; V is left as it is.
            zh: RoPE 只旋转 q 和 k，V 保持不变。
            accept: ["only q k rotat*", "v not rotat*", "只 .. q k 旋转", "v 不 旋转"]
            misconceptions:
              - claim: {en: V is rotated too., zh: V 也要旋转。}
                match: ["rotat* ~ v", "旋转 ~ v"]
                correction: {en: Only q and k are rotated., zh: 只旋转 q 和 k。}
          - en: the two rotations meet in q·k and leave only m - n
            zh: 两次旋转在 q·k 中相遇，只剩 m - n
            accept: ['cancel* "m - n"|offset|distance', '抵消|只剩 "m - n"|相对距离|相对位置']
        examples:
          - kind: paraphrase
            answer: Just q and k get rotated. In the dot product the two rotations cancel, leaving the offset.
            expect: [covered, covered]
          - kind: wrong
            answer: RoPE rotates q, k and v.
            expect: [contradicted, not_found]
          - kind: zh
            answer: 只对 q 和 k 做旋转，V 不旋转；点积里两个旋转抵消，只剩相对距离。
            expect: [covered, covered]
      - id: jt.tf
        type: truefalse
        prompt: {en: RoPE rotates V., zh: RoPE 旋转 V。}
        correct: false
        explanation: {en: No., zh: 不。}
    """
)


@pytest.fixture
def bank(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("POSENC_BANK_DIR", str(tmp_path / "user-banks"))
    path = tmp_path / "jt.yaml"
    path.write_text(BANK, encoding="utf-8")
    return path


run = cli_runner(cli.main)


def test_judge_prints_each_point_with_its_evidence_and_correction(bank: Path, capsys) -> None:
    code, out, _ = run(
        capsys, "--bank", str(bank), "bank", "judge", "jt.only-qk", "--answer", "RoPE rotates v too."
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "jt.only-qk: 0/2 covered, 1 contradicted"
    assert lines[1] == "✗ 1. contradicted: RoPE rotates only q and k; V is left as it is."
    assert lines[2] == "    evidence: RoPE rotates v too.  [misconception: rotat* ~ v]"
    assert lines[3] == "    correction: Only q and k are rotated."
    assert lines[4].startswith("· 2. not found")


def test_judge_json_and_chinese(bank: Path, capsys, tmp_path: Path) -> None:
    answer = tmp_path / "a.txt"
    answer.write_text("只对 q 和 k 做旋转，V 不旋转。", encoding="utf-8")
    code, out, _ = run(
        capsys, "--bank", str(bank), "bank", "judge", "jt.only-qk", "--answer-file", str(answer), "--json"
    )
    result = json.loads(out)
    assert code == 0 and result["covered"] == 1 and result["total"] == 2
    assert (
        result["points"][0]["verdict"] == "covered"
        and result["points"][0]["text"] == "RoPE 只旋转 q 和 k，V 保持不变。"
    )
    assert result["points"][0]["span"] == [0, len("只对 q 和 k 做旋转，V 不旋转。")]


def test_judge_jsonl_one_result_per_line(bank: Path, capsys, monkeypatch) -> None:
    lines = [
        json.dumps({"id": "jt.only-qk", "answer": "only q and k are rotated"}),
        json.dumps({"id": "jt.tf", "answer": "x"}),
        "[[[[",
    ]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    code, out, _ = run(capsys, "--bank", str(bank), "bank", "judge", "--jsonl")
    first, second, third = (json.loads(line) for line in out.splitlines())
    assert code == 1 and first["covered"] == 1
    assert second == {"line": 2, "error": "'jt.tf' is a truefalse question; only open questions are judged"}
    assert third["line"] == 3 and "error" in third


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["nope", "--answer", "x"], "no question 'nope'"),
        (["jt.tf", "--answer", "x"], "'jt.tf' is a truefalse question"),
        (["jt.only-qk", "--answer", "   "], "the answer is empty"),
        (["jt.only-qk"], "give --answer TEXT"),
    ],
)
def test_judge_usage_errors_exit_2_with_one_line(bank: Path, capsys, argv: list[str], message: str) -> None:
    code, out, err = run(capsys, "--bank", str(bank), "bank", "judge", *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err


def test_validate_judges_every_example_and_names_the_point_that_differs(bank: Path, capsys) -> None:
    code, out, err = run(capsys, "--bank", str(bank), "bank", "judge", "--examples", str(bank))
    assert code == 0 and "3/3 examples agree (6/6 key-point verdicts) in 1 open questions" in err
    wrong = BANK.replace("expect: [contradicted, not_found]", "expect: [covered, not_found]")
    bank.write_text(wrong, encoding="utf-8")
    code, out, err = run(capsys, "bank", "validate", str(bank))
    line = next(line for line in out.splitlines() if "example 2" in line)
    assert code == 1
    assert line == (
        f"{bank}:24:9: example 2 (wrong): key point 1 should be covered, the judge says contradicted "
        "(misconception: rotat* ~ v; evidence: 'RoPE rotates q, k and v.')"
    )
    assert "2/3 judge examples agree (5/6 key-point verdicts)" in err


def test_validate_refuses_a_common_one_word_term_and_a_broken_pattern(bank: Path, capsys) -> None:
    bank.write_text(BANK.replace('"v not rotat*",', '"v not rotat*", "position",'), encoding="utf-8")
    code, out, _ = run(capsys, "bank", "validate", str(bank))
    assert code == 1 and "the one-word term 'position' is in" in out and f"{bank}:12:53:" in out
    bank.write_text(BANK.replace('"v not rotat*",', '"v ~",'), encoding="utf-8")
    code, out, _ = run(capsys, "bank", "validate", "--no-checks", str(bank))
    assert code == 1 and "pattern 'v ~': the pattern ends with an operator or `not` (column 3)" in out
