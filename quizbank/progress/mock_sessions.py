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

    def save_mock_report(self, report: Mapping[str, Any]) -> None:
        """Save a report from `quizbank.mock.report.build_report` (its id, start, minutes, level, language,
        ended_early and score fill the row's columns)."""
        self.save_mock_session(
            str(report["id"]),
            datetime.fromisoformat(str(report["started_at"])),
            int(report["minutes"]),
            str(report["level"]),
            str(report["language"]),
            bool(report["ended_early"]),
            report["score"],
            report,
        )

    def mock_session_rows(self) -> list[tuple[str, str, int, str, str, bool, float | None, str]]:
        """Every row as stored: (id, started_at text, minutes, level, language, ended_early, score, report JSON
        text), oldest first."""
        rows = self._read(
            lambda c: c.execute(
                "SELECT id, started_at, minutes, level, language, ended_early, score, report_json "
                "FROM mock_sessions ORDER BY started_at, id"
            ).fetchall()
        )
        return [
            (i, at, int(m), lvl, lang, bool(early), score, text)
            for i, at, m, lvl, lang, early, score, text in rows
        ]

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
