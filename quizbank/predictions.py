"""Predict-then-reveal: guess one number a demo will compute, then compare (the Demo lab's `p`).

A target is one named value of a demo (`values.NAME`) or one cell of one of its matrices
(`matrices[k].values[i][j]`, the heatmap variant). `score` compares a prediction with the value the
demo computed. "Add to Study" turns the round into an ordinary numeric question backed by a check,
appended to `predictions.yaml` in the user's bank folder, so Study schedules it like any card.
Pure Python: no textual, no torch.
"""

from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .checks import as_number, resolve_path

PREDICTIONS_FILE = "predictions.yaml"
_SKIP = ("max_error", "error", "is_monotone", "refused", "float64_exact")


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
    """A hidden cell of matrix `which` of a demo result (a finite one, chosen by `seed`), or None."""
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
    return Target(
        f"matrices[{which}].values[{i}][{j}]",
        f"the cell (row {i}, column {j}) of “{title}”",
        f"“{title_zh}”中第 {i} 行、第 {j} 列的格子",
    )


def actual_value(result: Any, target: Target) -> float:
    """The number the demo computed at the target (raises CheckPathError / ValueError)."""
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
    close: bool  # within 5 %


def score(predicted: float, actual: float) -> Score:
    err = abs(predicted - actual)
    rel = err / abs(actual) if actual != 0 else None
    close = (rel is not None and rel <= 0.05) or (actual == 0 and err <= 1e-9)
    return Score(predicted, actual, err, rel, close)


def _params_text(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items())


def prediction_question(demo: Any, params: dict[str, Any], target: Target, actual: float) -> dict[str, Any]:
    """A numeric bank question for this round, backed by a check of the demo at these parameters."""
    digest = hashlib.sha256(f"{demo.name}|{sorted(params.items())}|{target.path}".encode()).hexdigest()[:10]
    tolerance = max(abs(actual) * 0.01, 1e-9)
    shown = _params_text(params)
    return {
        "id": f"predict.{demo.name}.{digest}",
        "type": "numeric",
        "difficulty": 2,
        "tags": ["prediction", demo.topic],
        "prompt": {
            "en": f"Demo {demo.name} ({shown}): predict {target.en}. Within 1%.",
            "zh": f"演示 {demo.name}（{shown}）：预测{target.zh}。误差 1% 以内。",
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


def add_to_bank(folder: str | Path, question: dict[str, Any]) -> tuple[Path, bool]:
    """Append `question` to predictions.yaml in `folder` (created if needed), atomically. Returns the
    file and False when a question with that id is already there (nothing is written)."""
    import yaml

    from .atomicio import write_text_atomic

    path = Path(folder) / PREDICTIONS_FILE
    data: dict[str, Any] = {
        "topic": "predictions",
        "title": {"en": "My predictions", "zh": "我的预测"},
        "questions": [],
    }
    if path.exists():
        loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(loaded, dict) and isinstance(loaded.get("questions"), list):
            data = loaded
    if any(isinstance(q, dict) and q.get("id") == question["id"] for q in data["questions"]):
        return path, False
    data["questions"].append(question)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, yaml.safe_dump(data, allow_unicode=True, sort_keys=False))
    return path, True
