"""The UI strings of the Stats screen: `key: (english, chinese)` (assembled in `tui.strings`)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    # the Stats screen
    "stats.title": ("Stats", "统计"),
    "stats.loading": ("Computing stats…", "正在计算统计…"),
    "stats.no_store": ("Stats need the progress store: {error}", "统计需要进度存储：{error}"),
    "stats.failed": ("Could not compute stats: {error}", "无法计算统计：{error}"),
    "stats.today": ("{n} reviews today", "今天复习 {n} 次"),
    "stats.today_one": ("1 review today", "今天复习 1 次"),
    "stats.streak": ("streak {n} days", "连续 {n} 天"),
    "stats.streak_one": ("streak 1 day", "连续 1 天"),
    "stats.retention": (
        "true retention {value} ({recalled}/{total} in review, {days} days)",
        "真实保留率 {value}（复习状态 {recalled}/{total}，{days} 天）",
    ),
    "stats.retention_none": (
        "true retention - (no reviews of mature cards yet)",
        "真实保留率 -（尚无复习状态的评分）",
    ),
    "stats.accuracy": (
        "quiz accuracy {value} ({correct}/{total})",
        "测验正确率 {value}（{correct}/{total}）",
    ),
    "stats.cards": (
        "cards: {learning} learning · {review} review · {relearning} relearning · {reviews} in {days_text}",
        "卡片：学习中 {learning} · 复习 {review} · 重新学习 {relearning} · {days} 天内复习 {total} 次",
    ),
    "stats.reviews_chart": ("Reviews per day (last {days} days)", "每日复习（近 {days} 天）"),
    "stats.forecast_chart": ("Due per day (next {days} days)", "每日到期（未来 {days} 天）"),
    "stats.mastery": ("Mastery per topic", "各主题掌握度"),
    "stats.mastery_means": (
        "Mastery: the chance of recalling a question now (FSRS), averaged over all of a topic's questions;"
        " an unseen question counts as 0.",
        "掌握度：现在能回想起一道题的概率（FSRS），对主题的所有题目取平均；没学过的题按 0 计。",
    ),
    "stats.col_topic": ("Topic", "主题"),
    "stats.col_studied": ("Studied", "已学"),
    "stats.col_due": ("Due", "到期"),
    "stats.col_new": ("New", "新"),
    "stats.col_mastery": ("Mastery", "掌握度"),
    "stats.leeches": ("Leeches (≥ {n} lapses) · Enter opens", "顽固卡片（遗忘 ≥ {n} 次）· 回车打开"),
    "stats.no_leeches": (
        "No leeches. Nothing has been forgotten five times.",
        "没有顽固卡片：没有遗忘五次以上的题目。",
    ),
    "stats.lapses": ("{lapses}", "遗忘 {n} 次"),
    "stats.today_label": ("today", "今天"),
    "stats.fitted": (
        "Schedule fitted to your {n} reviews on {date} (FSRS-6; posenc progress optimize)",
        "复习计划已按你的 {n} 次复习拟合（{date}，FSRS-6；posenc progress optimize）",
    ),
    "stats.key_refresh": ("Refresh", "刷新"),
}
