"""Where a screen's or widget's keys appear in Help (`?`): each class names its own section.

A class with keys of its own sets `HELP_SECTION = HelpSection("help.home", 10)`; Help finds every such class
under `tui.screens` and `tui.widgets` (`tui.screens.help.help_sections`), so a new screen needs no edit
anywhere else. The app's own keys ("Everywhere") come first, at order 0.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["HelpSection"]


@dataclass(frozen=True)
class HelpSection:
    title: str  # a key of tui.strings: the section's title in Help
    order: int  # where Help shows it: smaller first (0 is the app's own keys)
