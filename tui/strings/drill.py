"""The UI strings of the Drill screen: `key: (english, chinese)` (assembled in `tui.strings`)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    # the Drill screen
    "drill.title": ("Coding drill", "编程练习"),
    "drill.pick": ("Drill", "练习"),
    "drill.meta": (
        "{name} · topic {topic} · difficulty {stars} · about {minutes} min",
        "{name} · 主题 {topic} · 难度 {stars} · 约 {minutes} 分钟",
    ),
    "drill.file": ("Your file: {path}", "你的文件：{path}"),
    "drill.keys_hint": (
        "Write `{function}` on the right: Enter or i edits it, Esc leaves the editor. Ctrl+R grades it; "
        "e opens $EDITOR, h shows a hint, v the solution.",
        "在右侧实现 `{function}`：回车或 i 进入编辑，Esc 离开编辑器。Ctrl+R 评分；"
        "e 用 $EDITOR 打开，h 显示提示，v 查看答案。",
    ),
    "drill.hint": ("Hint {n}/{total}", "提示 {n}/{total}"),
    "drill.no_more_hints": ("No more hints: the solution is on v.", "没有更多提示了：按 v 查看答案。"),
    "drill.solution": ("Model solution", "参考答案"),
    "drill.solution_locked": (
        "Grade an attempt first (Ctrl+R): the solution opens after one try.",
        "请先评分一次（Ctrl+R）：尝试过后才能查看答案。",
    ),
    "drill.confirm_question": ("Show the model solution?", "查看参考答案？"),
    "drill.confirm_detail": (
        "Seeing it now makes re-implementing it from memory less useful. y shows it; n or Esc goes back.",
        "现在看答案会削弱之后凭记忆重写的效果。y 显示；n 或 Esc 返回。",
    ),
    "drill.yes": ("Show it", "显示"),
    "drill.no": ("Not yet", "暂不"),
    "drill.grading": ("Grading in an isolated process…", "正在隔离进程中评分…"),
    "drill.not_graded": ("Not graded yet: Ctrl+R.", "尚未评分：按 Ctrl+R。"),
    "drill.passed": (
        "✓ All {total} cases pass ({seconds} s)",
        "✓ 全部 {total} 个用例通过（{seconds} 秒）",
    ),
    "drill.failed": (
        "✗ {passed}/{total} cases pass ({seconds} s)",
        "✗ 通过 {passed}/{total} 个用例（{seconds} 秒）",
    ),
    "drill.grade_failed": ("Could not grade: {error}", "无法评分：{error}"),
    "drill.common_mistake": (
        "Likely mistake (all {count} failing cases): {mistake}.",
        "可能的错误（全部 {count} 个失败用例）：{mistake}。",
    ),
    "drill.output": ("Output of your program", "你的程序输出"),
    "drill.card": (
        "Solved. Study will bring back “re-implement {name}” tomorrow.",
        "完成！学习模块明天会安排“重新实现 {name}”。",
    ),
    "drill.save_failed": ("Could not save your file: {error}", "无法保存文件：{error}"),
    "drill.read_failed": ("Could not read your file: {error}", "无法读取你的文件：{error}"),
    "drill.editor_failed": ("Could not run the editor: {error}", "无法启动编辑器：{error}"),
    "drill.changed": ("{path} changed on disk: re-grading.", "{path} 已在磁盘上修改：重新评分。"),
    "drill.attempts": ("Attempts: {n}, passed {passed}", "尝试 {n} 次，通过 {passed} 次"),
    "drill.stats": (
        "coding drills: {attempts_text} · {solved}/{total} solved · last: {name} {passed}/{cases}",
        "编程练习：尝试 {attempts} 次 · 已完成 {solved}/{total} · 最近：{name} {passed}/{cases}",
    ),
    "drill.card_title": ("Re-implement {name} from memory: {title}", "凭记忆重新实现 {name}：{title}"),
    "drill.card_body": (
        "Space or Enter opens the Drill screen with your file. Grade it there (Ctrl+R), come back with q, "
        "then rate how it went (1-4).",
        "按空格或回车打开练习界面（你的文件）。在那里评分（Ctrl+R），按 q 返回，再为完成情况打分（1-4）。",
    ),
    "drill.card_done": (
        "Rate how the re-implementation went: 1 Again · 2 Hard · 3 Good · 4 Easy. Enter opens the drill again.",
        "为这次重写打分：1 重来 · 2 困难 · 3 良好 · 4 简单。回车可再次打开练习。",
    ),
    "drill.code_off": (
        "Grading is off on this server: it is shared with `posenc serve --public`, and grading runs the "
        "code you write, so anyone who can open this page could run programs on the server's machine. "
        "Whoever runs the server can allow it with --allow-code. Your file is still saved.",
        "此服务器已关闭评分：它通过 `posenc serve --public` 共享，而评分会运行你写的代码，"
        "能打开此页面的任何人都可以在服务器上运行程序。服务器的运行者可以用 --allow-code 打开评分。你的文件仍会保存。",
    ),
    "drill.key_grade": ("Grade", "评分"),
    "drill.key_editor": ("$EDITOR", "外部编辑器"),
    "drill.key_hint": ("Hint", "提示"),
    "drill.key_solution": ("Solution", "答案"),
    "drill.key_leave": ("Leave editor", "离开编辑器"),
    "drill.key_edit": ("Edit", "编辑"),
}
