"""Fitted FSRS parameters: the 21 FSRS-6 weights `posenc progress optimize` fitted to this store's reviews
(quizbank/progress/optimize.py), kept in one row of `fitted_parameters`. While the row is there the scheduler
uses them instead of fsrs's defaults (`SettingsTable.scheduler`); `clear_fitted()` goes back to the defaults.

Cards keep the memory state their past reviews gave them; the fitted weights shape every review from then on
(and the retrievability Home and Stats show).
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime
from typing import Any

from quizbank.progress.connection import StoreConnection
from quizbank.progress.records import FittedParameters, format_time, parse_time
from quizbank.progress.scheduler import check_parameters, to_utc

__all__ = ["FittedTable", "put_fitted"]


def put_fitted(conn: sqlite3.Connection, fitted: FittedParameters) -> None:
    """Write the one row inside the caller's write transaction (replacing any)."""
    conn.execute(
        "INSERT INTO fitted_parameters (id, parameters, fitted_at, reviews, report_json) VALUES (1, ?, ?, ?, ?) "
        "ON CONFLICT(id) DO UPDATE SET parameters = excluded.parameters, fitted_at = excluded.fitted_at, "
        "reviews = excluded.reviews, report_json = excluded.report_json",
        (
            json.dumps(list(fitted.parameters)),
            format_time(fitted.fitted_at),
            int(fitted.reviews),
            json.dumps(fitted.report, ensure_ascii=False, sort_keys=True),
        ),
    )


def read_fitted(conn: sqlite3.Connection) -> FittedParameters | None:
    """The row inside the caller's transaction; None when there is none or it no longer reads back."""
    row = conn.execute("SELECT parameters, fitted_at, reviews, report_json FROM fitted_parameters").fetchone()
    if row is None:
        return None
    try:
        parameters = check_parameters(json.loads(row[0]))
        report = json.loads(row[3])
        return FittedParameters(
            parameters, parse_time(row[1]), int(row[2]), report if isinstance(report, dict) else {}
        )
    except (ValueError, TypeError):
        return None  # a value no posenc wrote: the defaults schedule


class FittedTable(StoreConnection):
    """The `fitted_parameters` table (one row), cached in memory."""

    def fitted(self) -> FittedParameters | None:
        """The fitted parameters in use, or None (fsrs's defaults schedule)."""
        if self._fitted_cache is None:
            self._fitted_cache = (self._read(read_fitted),)
        return self._fitted_cache[0]

    def save_fitted(
        self,
        parameters: Any,
        reviews: int,
        report: dict[str, Any] | None = None,
        at: datetime | None = None,
    ) -> FittedParameters:
        """Keep fitted parameters (checked: 21 weights within fsrs's bounds, else ValueError); the scheduler
        uses them from the next review on."""
        fitted = FittedParameters(check_parameters(parameters), to_utc(at), int(reviews), dict(report or {}))
        json.dumps(fitted.report)  # JSON-ready, or TypeError before anything is written
        self._write(lambda conn: put_fitted(conn, fitted))
        self._fitted_cache = (fitted,)
        return fitted

    def clear_fitted(self) -> bool:
        """Forget the fitted parameters (back to fsrs's defaults). True if there were some."""
        cursor = self._write(lambda conn: conn.execute("DELETE FROM fitted_parameters"))
        self._fitted_cache = (None,)
        return bool(cursor.rowcount)
