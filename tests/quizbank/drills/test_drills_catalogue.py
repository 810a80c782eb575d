"""The drill catalogue (the API other tools code against), the `drill:` bank field, and the cheap import."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import ROOT

from quizbank.drills import DRILL_NAMES, FIXED_DRILL_NAMES, CaseResult, Drill, DrillReport, drills, get_drill
from quizbank.loader import load_banks
from quizbank.stats import bank_stats

TOPICS = {
    "why-pe",
    "absolute",
    "relative",
    "rope",
    "rope-variants",
    "alibi",
    "context-extension",
    "models",
    "pitfalls",
}
# The frozen interface other tools grade against: these ten names, in this order, come first in the catalogue.
FIXED = (
    "sinusoidal-pe rope-half rope-interleaved alibi-slopes alibi-bias t5-bucket rope-attention-gqa ntk-inv-freq "
    "yarn-inv-freq llama3-inv-freq"
).split()
SIGNATURES = {
    "sinusoidal-pe": "sinusoidal_pe(seq_len, dim, base=10000.0)",
    "rope-half": "apply_rope(x, positions, base=10000.0)",
    "rope-interleaved": "apply_rope(x, positions, base=10000.0)",
    "alibi-slopes": "alibi_slopes(n_heads)",
    "alibi-bias": "alibi_bias(n_heads, seq_len)",
    "t5-bucket": "relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128)",
    "rope-attention-gqa": "rope_attention(q, k, v, positions, base=10000.0)",
    "ntk-inv-freq": "ntk_inv_freq(dim, base, factor)",
    "yarn-inv-freq": (
        "yarn_inv_freq(dim, base, factor, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0)"
    ),
    "llama3-inv-freq": (
        "llama3_inv_freq(dim, base, factor, original_max_position_embeddings, low_freq_factor, high_freq_factor)"
    ),
}


def signature_of(source: str, function: str) -> str:
    """`name(a, b=1.0)` of `function` in `source`, annotations left out."""
    tree = ast.parse(source)
    node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function)
    args = node.args.args
    defaults = [None] * (len(args) - len(node.args.defaults)) + list(node.args.defaults)
    parts = [a.arg if d is None else f"{a.arg}={ast.literal_eval(d)!r}" for a, d in zip(args, defaults)]
    return f"{function}({', '.join(parts)})"


def test_the_fixed_ten_lead_and_every_topic_drill_follows() -> None:
    """The contract: the ten fixed names first, in order; then every drill a topic package defines, once."""
    from quizbank.drills.topics import topic_modules

    assert list(FIXED_DRILL_NAMES) == FIXED
    assert list(DRILL_NAMES[:10]) == FIXED and [d.name for d in drills()] == list(DRILL_NAMES)
    defined = [d.name for module in topic_modules("drills") for d in module.DRILLS]
    assert sorted(DRILL_NAMES) == sorted(defined) and len(set(defined)) == len(defined)
    assert len(DRILL_NAMES) >= 18
    with pytest.raises(KeyError, match="unknown drill 'rope'"):
        get_drill("rope")


def test_a_drill_in_a_new_topic_package_is_found(tmp_path, monkeypatch) -> None:
    from quizbank.drills.catalogue import catalogue_order
    from quizbank.drills.topics import topic_modules

    topic = tmp_path / "extra_topics" / "zz_topic"
    topic.mkdir(parents=True)
    (tmp_path / "extra_topics" / "__init__.py").write_text("")
    (topic / "__init__.py").write_text("")
    (topic / "drills.py").write_text(
        "from quizbank.drills import get_drill\n"
        "import dataclasses\n"
        "DRILLS = (dataclasses.replace(get_drill('learned-pe'), name='zz-new'),)\n"
    )
    (tmp_path / "extra_topics" / "_private").mkdir()
    (tmp_path / "extra_topics" / "_private" / "__init__.py").write_text("raise RuntimeError('skipped')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        found = [
            d
            for m in topic_modules("drills", [str(tmp_path / "extra_topics")], "extra_topics.")
            for d in m.DRILLS
        ]
        assert [d.name for d in found] == ["zz-new"]
        ordered = catalogue_order([*found, *drills()])
        assert [d.name for d in ordered][:10] == FIXED and ordered[10].name == "zz-new"
        with pytest.raises(ValueError, match="defined twice"):
            catalogue_order([*drills(), drills()[3]])
        with pytest.raises(ValueError, match="defined in no topic"):
            catalogue_order(found)
    finally:
        for module in [m for m in sys.modules if m.startswith("extra_topics")]:
            monkeypatch.delitem(sys.modules, module)


@pytest.mark.parametrize("name", DRILL_NAMES)
def test_every_drill_is_complete_in_both_languages(name: str) -> None:
    drill = get_drill(name)
    assert isinstance(drill, Drill) and drill.name == name
    assert drill.topic in TOPICS and drill.difficulty in (1, 2, 3) and 5 <= drill.minutes <= 45
    for text in (drill.title, drill.statement, *drill.hints):
        assert set(text) == {"en", "zh"} and all(v.strip() for v in text.values())
    assert len(drill.hints) >= 2
    assert f"def {drill.function}(" not in drill.statement["en"] or drill.function in drill.statement["en"]
    assert drill.function in drill.statement["en"] and drill.function in drill.statement["zh"]
    starter = ast.parse(drill.starter)
    body = next(n for n in starter.body if isinstance(n, ast.FunctionDef) and n.name == drill.function).body
    assert isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)  # the docstring
    assert isinstance(body[-1], ast.Raise) and ast.unparse(body[-1].exc) == "NotImplementedError"
    assert signature_of(drill.solution, drill.function) == signature_of(drill.starter, drill.function)
    if name in SIGNATURES:
        assert signature_of(drill.starter, drill.function) == SIGNATURES[name]


def test_report_json_shape() -> None:
    report = DrillReport(
        "rope-half", False, (CaseResult("seq 1", True, "ok", 1.0), CaseResult("b", False, "no", 2.0)), 1234.56
    )
    assert report.cases_passed == 1
    assert report.to_json() == {
        "drill": "rope-half",
        "passed": False,
        "cases": [
            {"name": "seq 1", "passed": True, "message": "ok"},
            {"name": "b", "passed": False, "message": "no"},
        ],
        "elapsed_ms": 1234.6,
    }
    json.dumps(report.to_json())


def test_listing_and_validating_never_import_torch() -> None:
    code = (
        "import sys\n"
        "from quizbank.drills import DRILL_NAMES, drills, get_drill\n"
        "from quizbank.drills import cli\n"
        "from quizbank.reference_findings import drill_findings\n"
        "assert [d.name for d in drills()] == list(DRILL_NAMES)\n"
        "assert drill_findings('rope-halff')\n"
        "assert 'torch' not in sys.modules, 'torch imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


BANK = """topic: linked
title: {en: Linked}
questions:
  - id: linked.a
    type: truefalse
    prompt: {en: "RoPE rotates pairs."}
    explanation: {en: "Yes."}
    correct: true
    drill: rope-half
  - id: linked.b
    type: truefalse
    prompt: {en: "ALiBi adds a bias."}
    explanation: {en: "Yes."}
    correct: true
    drill: alibi-bais
  - id: linked.c
    type: truefalse
    prompt: {en: "T5 buckets distances."}
    explanation: {en: "Yes."}
    correct: true
    drill: write-my-own
"""


def test_bank_drill_field_is_validated_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "linked.yaml"
    path.write_text(BANK, encoding="utf-8")
    bank = load_banks([str(path)], include_shipped=False, include_user=False)
    problems = [str(p) for p in bank.problems]
    assert f"{path}:15:12: unknown drill 'alibi-bais' (did you mean 'alibi-bias'?)" in problems
    unknown = next(p for p in problems if "write-my-own" in p)
    assert unknown.startswith(f"{path}:21:12: unknown drill 'write-my-own'; the drills are sinusoidal-pe, ")
    assert "linked.a" not in bank.questions  # a file with an error is skipped, as with an unknown demo
    good = tmp_path / "good.yaml"
    good.write_text(
        BANK.replace("alibi-bais", "alibi-bias").replace("write-my-own", "t5-bucket"), encoding="utf-8"
    )
    bank = load_banks([str(good)], include_shipped=False, include_user=False)
    assert not bank.problems
    assert bank.questions["linked.a"].drill == "rope-half"
    assert bank_stats(bank)["with_drill"] == 3
