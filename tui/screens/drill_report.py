"""A drill's grade report as the Drill screen shows it: the verdict and the time, the mistake the failing cases
share, each case with ✓/✗, its time and its message, then what the candidate's code printed. What a report
says comes from running the candidate's code: each piece is shown with its control characters escaped."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content

from ..i18n import tr

if TYPE_CHECKING:
    from quizbank.drills.model import DrillReport

__all__ = ["report_content"]


def report_content(report: DrillReport, lang: str) -> Content:
    """The report in `lang`, one line per row (a case's message on its own line under it)."""
    from quizbank.safetext import escape_unsafe

    seconds = f"{report.elapsed_ms / 1000:.1f}"
    total = len(report.cases)
    if report.passed:
        head = Content.styled(tr("drill.passed", lang, total=total, seconds=seconds), "bold $text-success")
    else:
        head = Content.styled(
            tr("drill.failed", lang, passed=report.cases_passed, total=total, seconds=seconds),
            "bold $text-error",
        )
    lines = [head]
    common = report.common_diagnosis
    if common:
        failing = total - report.cases_passed
        mistake = escape_unsafe(common, one_line=True)
        lines.append(Content.styled(tr("drill.common_mistake", lang, count=failing, mistake=mistake), "bold"))
    for case in report.cases:
        mark = ("✓ ", "$text-success") if case.passed else ("✗ ", "$text-error")
        lines.append(
            Content.assemble(
                mark,
                (escape_unsafe(case.name, one_line=True), "bold"),
                (f"  {case.elapsed_ms:.1f} ms", "dim"),
            )
        )
        message = case.message_without(common) if common and not case.passed else case.message
        if message:
            lines.append(
                Content.styled(
                    "    " + escape_unsafe(message, one_line=True), "" if not case.passed else "dim"
                )
            )
    if report.output:
        lines.append(Content.styled(tr("drill.output", lang), "bold"))
        lines.append(Content(escape_unsafe(report.output)))
    return Content("\n").join(lines)
