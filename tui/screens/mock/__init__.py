"""The mock interview's screens, one module per concept: `setup` (minutes, topics, level), `interview` (the
timed interview), `items` (an open question's and a drill's widgets), `status` (the interview's status lines),
`report` (the report screen, the scores plot on Stats); their stylesheet `mock.tcss` beside them.

Importing the package imports every module, so their key bindings are registered (`tui.keys.binding_ids`).
"""

from .interview import MockInterviewScreen
from .items import DrillItem, ItemShown, OpenItem
from .report import MockReportScreen, render_mock_scores
from .setup import MockSetupScreen

__all__ = [
    "DrillItem",
    "ItemShown",
    "MockInterviewScreen",
    "MockReportScreen",
    "MockSetupScreen",
    "OpenItem",
    "render_mock_scores",
]
