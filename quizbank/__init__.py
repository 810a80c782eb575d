"""quizbank: the YAML question-bank format, its line-aware loader and validator, and the checks
that recompute every number with posenc_ref demos.

Importing this package is cheap (names resolve on first use) and never imports torch::

    from quizbank import load_banks
    bank = load_banks(["my-bank/"])
    for problem in bank.problems:
        print(problem)            # path:line:col: message
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    "load_banks": "loader",
    "load_bank_file": "loader",
    "BankSet": "loader",
    "TopicEntry": "loader",
    "user_bank_dir": "loader",
    "shipped_bank_dir": "loader",
    "Problem": "problems",
    "Location": "problems",
    "bank_stats": "stats",
    "run_checks": "checks",
    "check_report": "checks",
    "resolve_path": "checks",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'quizbank' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
