"""Mock interviews: one row per interview with its whole report (items, timings, grades) as JSON."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from quizbank.progress.connection import StoreConnection
from quizbank.progress.records import format_time

__all__ = ["MockSessionsTable"]


class MockSessionsTable(StoreConnection):
    """The `mock_sessions` table."""

    def save_mock_session(
        self,
        session_id: str,
        started_at: datetime,
        minutes: int,
        level: str,
        language: str,
        ended_early: bool,
        score: float | None,
        report: Mapping[str, Any],
    ) -> None:
        """Save (or replace) one mock interview with its whole report (JSON) in one transaction."""
        text = json.dumps(report, ensure_ascii=False, sort_keys=True)
        row = (session_id, format_time(started_at), int(minutes), level, language, int(bool(ended_early)))
        self._write(
            lambda c: c.execute(
                "INSERT OR REPLACE INTO mock_sessions (id, started_at, minutes, level, language, ended_early, "
                "score, report_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (*row, None if score is None else float(score), text),
            )
        )

    def mock_sessions(self) -> list[dict[str, Any]]:
        """Every saved mock interview's report (oldest first); a row whose JSON is unreadable is skipped."""
        rows = self._read(
            lambda c: c.execute("SELECT report_json FROM mock_sessions ORDER BY started_at, id").fetchall()
        )
        out = []
        for (text,) in rows:
            try:
                report = json.loads(text)
            except ValueError:
                continue
            if isinstance(report, dict):
                out.append(report)
        return out
