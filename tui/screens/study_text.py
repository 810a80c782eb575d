"""What the Study screen says: its top bar, the suggested rating's hint, the rating buttons, what a rating or
an undo did, and the page shown when nothing is left to study. Text only (Textual `Content`); the screen (`study.py`) puts it in its widgets.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from textual.content import Content

from quizbank.progress.rating_suggestions import Suggestion
from quizbank.progress.study_plan import StudyPlan

from ..cells import fit_cells
from ..i18n import count, tr

if TYPE_CHECKING:
    from quizbank.progress.records import ReviewResult, UndoResult

__all__ = [
    "RATINGS",
    "RATING_KEYS",
    "bar_text",
    "done_text",
    "interval_text",
    "rating_label",
    "suggestion_text",
]

RATINGS = (1, 2, 3, 4)
RATING_KEYS = {1: "study.again", 2: "study.hard", 3: "study.good", 4: "study.easy"}


def interval_text(seconds: float, lang: str) -> str:
    from quizbank.progress.scheduler import format_interval

    return format_interval(timedelta(seconds=max(0.0, seconds)), lang)


def done_text(plan: StudyPlan | None, done: int, again: int, now: datetime, lang: str) -> Content:
    lines = [
        Content.styled("✓ " + tr("study.done_title", lang), "bold $text-success"),
        Content(""),
        Content(tr("study.done_session", lang, done=done, again=again)),
    ]
    if plan is not None and plan.next_due is not None:
        seconds = (plan.next_due - now).total_seconds()
        lines.append(
            Content(
                tr(
                    "study.next_due",
                    lang,
                    interval=interval_text(seconds, lang),
                    at=plan.next_due.strftime("%Y-%m-%d %H:%M"),
                )
            )
        )
    else:
        lines.append(Content(tr("study.nothing_due", lang)))
    if plan is not None:
        lines.append(Content(tr("study.new_limit", lang, limit=plan.new_limit)))
    lines += [Content(""), Content.styled(tr("study.done_keys", lang), "$text-muted")]
    return Content("\n").join(lines)


def bar_text(plan: StudyPlan | None, scope: str, done: int, width: int, lang: str) -> Content:
    rest: list[Any] = []
    if plan is not None:
        rest += [
            "  ",
            (
                tr("study.counts", lang, due=plan.due, new=plan.new, done=done),
                "$text-secondary",
            ),
        ]
        if plan.question_id is not None:
            if plan.card_state is None:
                info = tr("study.card_new", lang)
            else:
                recall = "-" if plan.recall is None else f"{plan.recall:.0%}"
                info = tr(
                    "study.card_info",
                    lang,
                    state=tr(f"study.state.{plan.card_state}", lang),
                    reps=plan.reps,
                    lapses=plan.lapses,
                    recall=recall,
                    reviews=count(plan.reps, "review"),
                    lapses_text=count(plan.lapses, "lapse"),
                )
            rest += ["   ", (info, "$text-muted")]
    # the scope's title gives way first (cut with "…", kept to 16 cells at least), then the card's
    # info, so the counts always show at 80 columns
    room = width - 2 - cell_len(tr("study.title", lang, scope=""))
    least = min(16, cell_len(scope))
    if len(rest) > 2 and room - Content.assemble(*rest).cell_length < least:
        rest = rest[:2]
    scope = fit_cells(scope, max(least, room - Content.assemble(*rest).cell_length))
    title = (f" {tr('study.title', lang, scope=scope)} ", "bold")
    return Content.assemble(title, *rest)


def suggestion_text(suggestion: Suggestion, quiz_at: datetime | None, now: datetime, lang: str) -> Content:
    reason = suggestion.reason
    if reason in ("quiz_right", "quiz_wrong") and quiz_at is not None:
        ago = interval_text((now - quiz_at).total_seconds(), lang)
        why = tr(f"study.why_{reason}", lang, ago=ago)
    elif reason == "contradicted":
        why = tr("open.why_contradicted", lang, n=suggestion.contradicted, total=suggestion.total)
    elif reason == "points":
        why = tr("open.why_points", lang, done=suggestion.covered, total=suggestion.total)
    else:
        why = tr("study.why_right" if reason == "right" else "study.why_wrong", lang)
    rating = suggestion.rating
    return Content.styled(
        tr("study.suggested", lang, rating=f"{rating} {tr(RATING_KEYS[rating], lang)}", why=why),
        "bold $text-warning",
    )


def rating_label(n: int, preview: tuple[datetime, float] | None, lang: str) -> Content:
    interval = interval_text(preview[1], lang) if preview else "?"
    return Content(f"{n} {tr(RATING_KEYS[n], lang)} · {interval}")


def recorded_text(rated: ReviewResult, lang: str) -> str:
    interval = (rated.card_after.due - rated.reviewed_at).total_seconds()
    return tr(
        "study.recorded",
        lang,
        rating=tr(RATING_KEYS[int(rated.rating)], lang),
        interval=interval_text(interval, lang),
    )


def undone_text(undone: UndoResult, lang: str) -> str:
    return tr(
        "study.undone",
        lang,
        rating=tr(RATING_KEYS[int(undone.rating)], lang),
        id=undone.question_id,
    )
