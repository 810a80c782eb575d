"""Predict-then-reveal: guess one number a demo will compute, then compare (the Demo lab's `p`).

A target is one named value of a demo (`values.NAME`) or one cell of one of its matrices
(`matrices[k].values[i][j]`, the heatmap variant). `score` compares a prediction with the value the
demo computed: within `CLOSE_WITHIN` of it counts as close. "Add to Study" turns the round into a
numeric question with that same tolerance, kept as an own card in the progress store
(`quizbank.progress.own_cards`), so Study schedules it like any card and no bank lists it.

Predictions were once appended to `predictions.yaml` in the user's bank folder, which made them a
topic everywhere (Home, Quiz, Mock, the Anki deck); `import_legacy_file` moves such a file's questions
into the store once and sets the file aside. Pure Python: no textual, no torch; importing it costs
only the standard library (the app checks for the legacy file before every bank load).
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .bankfiles import LEGACY_PREDICTIONS_FILE

__all__ = [
    "CLOSE_WITHIN",
    "LEGACY_FILE",
    "Score",
    "Target",
    "actual_value",
    "cell_target",
    "close_percent",
    "import_legacy_file",
    "move_legacy_file",
    "prediction_question",
    "save_to_study",
    "score",
    "study_question",
    "value_targets",
]

CLOSE_WITHIN = 0.05  # the relative error of a close prediction: the verdict's and a saved card's tolerance
LEGACY_FILE = (
    LEGACY_PREDICTIONS_FILE  # the bank file predictions were once added to, in the user's bank folder
)
LEGACY_TOPIC = "predictions"
SET_ASIDE_SUFFIX = ".imported"  # the legacy file after its import: `.predictions.yaml.imported` (hidden)
_SKIP = ("max_error", "error", "is_monotone", "refused", "float64_exact")


def close_percent() -> str:
    """`CLOSE_WITHIN` as the texts write it: "5%"."""
    return f"{100 * CLOSE_WITHIN:g}%"


@dataclass(frozen=True)
class Target:
    path: str  # a check path into the demo result
    en: str
    zh: str


def value_targets(demo: Any) -> list[Target]:
    """The demo's named values worth predicting (self-check errors left out)."""
    out = []
    for name in demo.values:
        if name.endswith(_SKIP):
            continue
        out.append(Target(f"values.{name}", f"the value {name}", f"数值 {name}"))
    return out


def cell_target(result: Any, which: int, seed: int) -> Target | None:
    """A hidden cell of matrix `which` of a demo result (a finite one, chosen by `seed`), or None.

    The cell is named as the heatmap labels its axes ("query i = 3, key j = 5"), counting from 0
    as the heatmap's axis numbers do."""
    from .checks import as_number

    data = result.to_dict() if hasattr(result, "to_dict") else result
    matrices = data.get("matrices") or []
    if not 0 <= which < len(matrices):
        return None
    matrix = matrices[which]
    cells = [
        (i, j)
        for i, row in enumerate(matrix["values"])
        for j, v in enumerate(row)
        if (x := as_number(v)) is not None and math.isfinite(x)
    ]
    if not cells:
        return None
    rng = random.Random(int.from_bytes(hashlib.sha256(f"{which}:{seed}".encode()).digest()[:8], "big"))
    i, j = cells[rng.randrange(len(cells))]
    title = matrix.get("title", "")
    title_zh = matrix.get("title_zh") or title
    row, col = matrix.get("row_label") or "row", matrix.get("col_label") or "column"
    row_zh = matrix.get("row_label_zh") or matrix.get("row_label") or "行"
    col_zh = matrix.get("col_label_zh") or matrix.get("col_label") or "列"
    return Target(
        f"matrices[{which}].values[{i}][{j}]",
        f"the cell at {row} = {i}, {col} = {j} of “{title}” (counting from 0, as its axes do)",
        f"“{title_zh}”中 {row_zh} = {i}、{col_zh} = {j} 处的格子（与坐标轴一样从 0 数起）",
    )


def actual_value(result: Any, target: Target) -> float:
    """The number the demo computed at the target (raises CheckPathError / ValueError)."""
    from .checks import as_number, resolve_path

    value = as_number(resolve_path(result, target.path))
    if value is None:
        raise ValueError(f"{target.path} is not a number")
    return value


@dataclass(frozen=True)
class Score:
    predicted: float
    actual: float
    abs_error: float
    rel_error: float | None  # None when the actual value is 0
    close: bool  # within CLOSE_WITHIN


def _tolerance(actual: float) -> float:
    return max(abs(actual) * CLOSE_WITHIN, 1e-9)


def score(predicted: float, actual: float) -> Score:
    """The verdict on one prediction: close when it is within the saved card's tolerance."""
    err = abs(predicted - actual)
    rel = err / abs(actual) if actual != 0 else None
    return Score(predicted, actual, err, rel, err <= _tolerance(actual))


def _params_text(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in params.items())


def prediction_question(demo: Any, params: dict[str, Any], target: Target, actual: float) -> dict[str, Any]:
    """A numeric question for this round (the predicted quantity; its answer the computed value, within
    `CLOSE_WITHIN`), backed by a check of the demo at these parameters."""
    digest = hashlib.sha256(f"{demo.name}|{sorted(params.items())}|{target.path}".encode()).hexdigest()[:10]
    tolerance = _tolerance(actual)
    shown = _params_text(params)
    within = close_percent()
    return {
        "id": f"predict.{demo.name}.{digest}",
        "type": "numeric",
        "difficulty": 2,
        "tags": ["prediction", demo.topic],
        "prompt": {
            "en": f"Demo {demo.name} ({shown}): predict {target.en}. Within {within}.",
            "zh": f"演示 {demo.name}（{shown}）：预测{target.zh}。误差 {within} 以内。",
        },
        "value": actual,
        "tolerance": tolerance,
        "explanation": {
            "en": f"{demo.title}: {demo.claim} Run `posenc demo run {demo.name}` with these parameters to see it.",
            "zh": f"{demo.title_zh or demo.title}：{demo.claim_zh or demo.claim} 用这些参数运行演示即可看到。",
        },
        "demo": {"name": demo.name, "params": dict(params)},
        "checks": [
            {
                "demo": demo.name,
                "params": dict(params),
                "path": target.path,
                "expect": actual,
                "tolerance": tolerance,
            }
        ],
    }


def _topic(question: dict[str, Any]) -> str:
    """The demo's topic, which `prediction_question` puts after the "prediction" tag."""
    tags = [t for t in question.get("tags") or [] if isinstance(t, str) and t != "prediction"]
    return tags[0] if tags else ""


def _own_card(question: dict[str, Any]) -> tuple[str, str, str]:
    from .progress.own_cards import question_text

    return question["id"], _topic(question), question_text(question)


def save_to_study(store: Any, question: dict[str, Any]) -> bool:
    """Keep `question` as an own card in the progress store. False when that card is there already."""
    return store.add_own_cards([_own_card(question)]) == 1


def study_question(store: Any, question_id: str) -> Any:
    """The own card `question_id` as a `NumericQuestion`, or None when the store holds no such card."""
    text = store.own_card(question_id)
    if text is None:
        return None
    from .schema import NumericQuestion

    return NumericQuestion.model_validate(json.loads(text))


@dataclass(frozen=True)
class LegacyImport:
    added: int  # questions now own cards in the store
    present: int  # questions the store held already (an earlier, interrupted import)
    invalid: int  # entries that are no numeric question: left in the set-aside file
    set_aside: Path  # where the file is now (hidden: no bank load lists it)


def import_legacy_file(store: Any, folder: str | Path) -> LegacyImport | None:
    """Move the questions of `folder`/predictions.yaml (the file the Demo lab once wrote) into the store
    as own cards, then rename the file to `.predictions.yaml.imported` beside it, which keeps every byte
    and which bank loading skips (a hidden file). None when there is no such file, or it is not the Demo
    lab's (another topic, or YAML that does not parse): it is left alone, a bank like any other."""
    path = Path(folder) / LEGACY_FILE
    if not path.is_file():
        return None
    from .schema import NumericQuestion
    from .yamlsafe import read_yaml_file

    doc, _problems = read_yaml_file(path)
    data = doc.data if doc is not None else None
    if not isinstance(data, dict) or data.get("topic") != LEGACY_TOPIC:
        return None
    cards, invalid = [], 0
    for question in data.get("questions") or []:
        try:
            NumericQuestion.model_validate(question)
        except Exception:  # noqa: BLE001 - hand-edited: stays in the set-aside file, nothing is lost
            invalid += 1
            continue
        cards.append(_own_card(question))
    added = store.add_own_cards(cards) if cards else 0
    target = path.with_name(f".{LEGACY_FILE}{SET_ASIDE_SUFFIX}")
    n = 1
    while target.exists():  # imported before, and a new file appeared since: keep both
        n += 1
        target = path.with_name(f".{LEGACY_FILE}{SET_ASIDE_SUFFIX}-{n}")
    path.rename(target)
    return LegacyImport(added, len(cards) - added, invalid, target)


def move_legacy_file(data_dir: str | Path | None, folder: str | Path) -> LegacyImport | None:
    """`import_legacy_file` into the store of `data_dir` (None: the default), opened only when `folder` holds
    the legacy file: the app calls this before every bank load."""
    if not (Path(folder) / LEGACY_FILE).is_file():
        return None
    from .progress.store import open_store

    with open_store(data_dir) as store:
        return import_legacy_file(store, folder)
