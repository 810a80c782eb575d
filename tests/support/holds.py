"""`hold(monkeypatch, owner, name, what)`: replace `owner.name` by a call that waits for the returned event
before it runs (30 s at most, then fails saying `what` was never let go). Tests hold a worker's slow step
(the full bank load, the store's opening) to look at the app in between."""

from __future__ import annotations

import threading
from typing import Any

import pytest


def hold(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, what: str) -> threading.Event:
    release = threading.Event()
    real = getattr(owner, name)

    def held(*args: Any, **kwargs: Any) -> Any:
        assert release.wait(30), f"the test never let {what} go"
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, held)
    return release
