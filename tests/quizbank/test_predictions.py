"""Predict-then-reveal's logic (quizbank.predictions): the verdict and a saved card share one tolerance,
a heatmap cell is named as the heatmap labels its axes, and saved predictions are own cards in the
progress store, the old `predictions.yaml` bank file moved there once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from posenc_ref.demos import get_demo
from posenc_ref.demos.base import DemoResult, Matrix
from quizbank.grading import grade_numeric
from quizbank.predictions import (
    CLOSE_WITHIN,
    LEGACY_FILE,
    Target,
    cell_target,
    close_percent,
    import_legacy_file,
    prediction_question,
    save_to_study,
    score,
    study_question,
)
from quizbank.progress.store import open_store
from quizbank.schema import NumericQuestion

SLOPES = get_demo("alibi-slopes")
FIRST = Target("values.first_slope", "the value first_slope", "数值 first_slope")


def card(actual: float, params: dict | None = None) -> NumericQuestion:
    return NumericQuestion.model_validate(
        prediction_question(SLOPES, params or {"n_heads": 8}, FIRST, actual)
    )


@pytest.mark.parametrize(
    ("predicted", "close"),
    [(0.5, True), (0.52, True), (0.48, True), (0.524, True), (0.53, False), (0.47, False), (-0.5, False)],
)
def test_the_verdict_and_the_saved_card_agree(predicted: float, close: bool) -> None:
    """The verdict said "within 5%" while the card it saved asked for 1%: an answer the screen called
    close was wrong in Study."""
    assert score(predicted, 0.5).close is close
    assert grade_numeric(card(0.5), repr(predicted)).correct is close


def test_one_tolerance_is_written_on_the_card() -> None:
    question = card(0.5)
    assert CLOSE_WITHIN == 0.05 and close_percent() == "5%"
    assert question.tolerance == pytest.approx(0.025) and question.checks[0].tolerance == question.tolerance
    assert question.prompt.en.endswith("Within 5%.") and "误差 5% 以内" in question.prompt.zh


def test_a_zero_answer_is_close_only_when_exact_enough() -> None:
    assert score(0.0, 0.0).close and not score(1e-6, 0.0).close
    assert grade_numeric(card(0.0), "0").correct and not grade_numeric(card(0.0), "1e-6").correct


def test_booleans_in_the_prompt_are_written_as_the_demo_panel_does() -> None:
    question = prediction_question(get_demo("alibi-bias"), {"causal": True}, FIRST, 1.0)
    assert "(causal=true)" in question["prompt"]["en"]


def _result(row_label: str, col_label: str, **zh: str) -> DemoResult:
    values = [[float(10 * i + j) for j in range(4)] for i in range(3)]
    return DemoResult(
        name="x",
        title="x",
        claim="x",
        device="cpu",
        dtype="float32",
        elapsed_ms=1.0,
        params={},
        matrices=[Matrix("ALiBi bias, head 1", values, row_label, col_label, title_zh="ALiBi 偏置", **zh)],
    )


def test_a_heatmap_cell_is_named_by_the_heatmap_axes_counting_from_zero() -> None:
    result = _result("query i", "key j", row_label_zh="查询 i", col_label_zh="键 j")
    target = cell_target(result, 0, seed=3)
    assert target is not None
    i, j = (int(part.rstrip("]")) for part in target.path.split("values[")[1].split("["))
    assert (
        target.en
        == f"the cell at query i = {i}, key j = {j} of “ALiBi bias, head 1” (counting from 0, as its axes do)"
    )
    assert target.zh == f"“ALiBi 偏置”中 查询 i = {i}、键 j = {j} 处的格子（与坐标轴一样从 0 数起）"
    assert result.matrices[0].values[i][j] == 10 * i + j


def test_a_heatmap_without_axis_labels_names_rows_and_columns() -> None:
    target = cell_target(_result("", ""), 0, seed=0)
    assert target is not None and target.en.startswith("the cell at row = ") and ", column = " in target.en
    assert " 行 = " in target.zh and "、列 = " in target.zh


# ---------------------------------------------------------------- own cards in the store


def test_a_saved_prediction_is_an_own_card_that_study_reads_back(tmp_path: Path) -> None:
    question = prediction_question(SLOPES, {"n_heads": 8}, FIRST, 0.5)
    with open_store(tmp_path) as store:
        assert save_to_study(store, question) is True
        assert save_to_study(store, question) is False  # once
        assert store.own_card_ids() == [question["id"]]
        assert store.own_card_ids("alibi") == [question["id"]] and store.own_card_ids("rope") == []
        shown = study_question(store, question["id"])
        assert study_question(store, "fixture.unknown") is None
    assert isinstance(shown, NumericQuestion)
    assert shown.prompt.en == "Demo alibi-slopes (n_heads=8): predict the value first_slope. Within 5%."
    assert shown.value == 0.5 and shown.demo is not None and shown.demo.name == "alibi-slopes"
    assert not list(tmp_path.glob("*.yaml"))  # no bank file anywhere


def test_own_cards_are_not_orphans(tmp_path: Path) -> None:
    question = prediction_question(SLOPES, {"n_heads": 8}, FIRST, 0.5)
    with open_store(tmp_path) as store:
        save_to_study(store, question)
        store.review(question["id"], 3)
        store.review("gone.question", 3)
        assert [o.question_id for o in store.orphans([])] == ["gone.question"]


def _legacy_bank(folder: Path, *questions: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LEGACY_FILE
    data = {
        "topic": "predictions",
        "title": {"en": "My predictions", "zh": "我的预测"},
        "questions": list(questions),
    }
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def test_the_old_predictions_bank_moves_into_the_store_once_with_nothing_lost(tmp_path: Path) -> None:
    old = dict(prediction_question(SLOPES, {"n_heads": 8}, FIRST, 0.5), tolerance=0.005)  # the old 1 % card
    old["checks"] = [dict(old["checks"][0], tolerance=0.005)]
    other = prediction_question(SLOPES, {"n_heads": 16}, FIRST, 0.5)
    broken = {"id": "predict.hand-edited", "type": "numeric"}
    path = _legacy_bank(tmp_path / "banks", old, other, broken)
    before = path.read_bytes()
    with open_store(tmp_path / "data") as store:
        store.review(old["id"], 3)  # studied while it was a bank question: its history stays
        moved = import_legacy_file(store, tmp_path / "banks")
        assert moved is not None and (moved.added, moved.present, moved.invalid) == (2, 0, 1)
        assert sorted(store.own_card_ids()) == sorted([old["id"], other["id"]])
        kept = study_question(store, old["id"])
        assert kept is not None and kept.tolerance == 0.005  # the card as it was saved
        assert store.card(old["id"]) is not None and store.orphans([]) == []
        assert json.loads(store.own_card(other["id"])) == other
        assert import_legacy_file(store, tmp_path / "banks") is None  # once: the file is gone
    assert not path.exists()
    assert moved.set_aside == tmp_path / "banks" / ".predictions.yaml.imported"
    assert moved.set_aside.read_bytes() == before  # every byte kept, the hand-edited entry too


def test_a_new_old_file_after_an_import_is_imported_and_set_aside_beside_the_first(tmp_path: Path) -> None:
    first = prediction_question(SLOPES, {"n_heads": 8}, FIRST, 0.5)
    second = prediction_question(SLOPES, {"n_heads": 4}, FIRST, 0.25)
    with open_store(tmp_path / "data") as store:
        _legacy_bank(tmp_path / "banks", first)
        import_legacy_file(store, tmp_path / "banks")
        _legacy_bank(tmp_path / "banks", first, second)  # an older posenc ran again meanwhile
        moved = import_legacy_file(store, tmp_path / "banks")
        assert moved is not None and (moved.added, moved.present) == (1, 1)
        assert moved.set_aside.name == ".predictions.yaml.imported-2"
        assert (tmp_path / "banks" / ".predictions.yaml.imported").exists()


@pytest.mark.parametrize(
    "text",
    [
        "topic: my-predictions\ntitle: Mine\nquestions: []\n",  # a bank of the user's own, by that name
        "topic: predictions\nquestions: [\n",  # does not parse: the loader reports it as it did
    ],
)
def test_a_predictions_file_that_is_not_the_labs_is_left_alone(tmp_path: Path, text: str) -> None:
    path = tmp_path / LEGACY_FILE
    path.write_text(text, encoding="utf-8")
    with open_store(tmp_path / "data") as store:
        assert import_legacy_file(store, tmp_path) is None
        assert store.own_card_ids() == []
    assert path.read_text(encoding="utf-8") == text


def test_an_export_moves_the_old_predictions_file_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`posenc export` run before the app ever started: no "My predictions" topic in what it writes."""
    from tui.cli import main

    question = prediction_question(SLOPES, {"n_heads": 8}, FIRST, 0.5)
    _legacy_bank(tmp_path / "banks", question)
    monkeypatch.setenv("POSENC_BANK_DIR", str(tmp_path / "banks"))
    data = ["--data-dir", str(tmp_path / "data")]
    assert main([*data, "export", "markdown", str(tmp_path / "md")]) == 0
    assert "saved predictions are Study cards now: 1" in capsys.readouterr().err
    assert "My predictions" not in (tmp_path / "md" / "README.md").read_text(encoding="utf-8")
    assert not (tmp_path / "banks" / LEGACY_FILE).exists()
    with open_store(tmp_path / "data") as store:
        assert store.own_card_ids() == [question["id"]]
    assert main([*data, "export", "markdown", str(tmp_path / "md2")]) == 0
    assert "predictions" not in capsys.readouterr().err  # once
