"""The typed way from a screen or widget to the running `PosencApp`.

Textual types `node.app` as a plain `App`, so `self.app.bankset` type-checks as nothing at all. Screens and
widgets call `posenc_app(self)` instead (one `cast`, no run-time cost): mypy then checks every attribute and
method they use on the app.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, cast

if TYPE_CHECKING:
    from textual.app import App

    from .app import PosencApp

__all__ = ["posenc_app"]


class InApp(Protocol):
    """Anything that knows its app: a widget, a screen, a command palette provider."""

    @property
    def app(self) -> App[Any]: ...


def posenc_app(node: InApp) -> PosencApp:
    """The app `node` runs in, typed as what it is: a `PosencApp`."""
    return cast("PosencApp", node.app)
