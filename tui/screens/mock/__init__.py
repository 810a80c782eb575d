"""The mock interview's screens, one module per concept (the stylesheet `mock.tcss` beside them).

Importing the package imports every module, so their key bindings are registered (`tui.keys.binding_ids`).
"""

from .interview import MockInterviewScreen, MockSetupScreen
from .items import DrillItem, ItemShown, OpenItem
from .report import MockReportScreen, render_mock_scores

__all__ = [
    "DrillItem",
    "ItemShown",
    "MockInterviewScreen",
    "MockReportScreen",
    "MockSetupScreen",
    "OpenItem",
    "render_mock_scores",
]
