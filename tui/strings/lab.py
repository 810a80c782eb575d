"""The UI strings of the demo panel and the Demo lab: `key: (english, chinese)` (assembled in `tui.strings`)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    # demo panel
    "demo.title": ("Live demo", "实时演示"),
    "demo.running": ("Running {name}…", "正在运行 {name}…"),
    "demo.none": ("No demo selected.", "没有选择演示。"),
    "demo.failed": ("The demo failed: {error}", "演示失败：{error}"),
    "demo.not_implemented": ("not implemented yet", "尚未实现"),
    "demo.meta": ("{device} · {dtype} · {elapsed}", "{device} · {dtype} · {elapsed}"),
    "demo.checks": ("Checks", "检查"),
    "demo.check_line": ("error {err} ≤ tol {tol}", "误差 {err} ≤ 容差 {tol}"),
    "demo.check_fail": ("error {err} > tol {tol}", "误差 {err} > 容差 {tol}"),
    "demo.values": ("Values", "数值"),
    "demo.notes": ("Notes", "备注"),
    "demo.params": ("params: {params}", "参数：{params}"),
    "demo.masked": ("masked (−∞)", "已屏蔽（−∞）"),
    "demo.sampled": ("showing 1 in {step} of {rows}×{cols}", "每 {step} 个取一个，共 {rows}×{cols}"),
    "demo.rows": ("row", "行"),
    "demo.cols": ("column", "列"),
    "demo.exact": ("exact", "精确"),
    "demo.unknown": ("Unknown demo: {error}", "未知演示：{error}"),
    "demo.stale": (
        "⚠ Not rerun: the parameters were refused. The result below is from the last run.",
        "⚠ 未重新运行：参数被拒绝。下面是上一次运行的结果。",
    ),
    "demo.table_scroll": ("(scroll → for more columns)", "（向右滚动查看更多列）"),
    # demo lab
    "lab.title": ("Demo lab", "演示实验室"),
    "lab.demo": ("Demo", "演示"),
    "lab.params": ("Parameters", "参数"),
    "lab.run": ("Run", "运行"),
    "lab.reset": ("Defaults", "默认值"),
    "lab.fix": ("Fix the highlighted parameters first.", "请先修正标出的参数。"),
    "lab.bad_param": (
        "parameter {name!r} must be {bounds}, got {raw!r}",
        "参数 {name} 应为{bounds}，收到 “{raw}”",
    ),
    "lab.no_params": ("This demo has no parameters.", "这个演示没有参数。"),
    "lab.constraint": (
        "Parameters must satisfy {rule}; got {left}={left_value} and {right}={right_value}.",
        "参数必须满足 {rule}，当前 {left}={left_value}，{right}={right_value}。",
    ),
    "lab.topic": ("topic: {topic}", "主题：{topic}"),
}
