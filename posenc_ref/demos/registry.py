"""The demo registry. Spec modules register each demo with `@register_demo(...)` right above its run
function; `catalogue.py` imports every spec module. Pure Python: importing this never imports torch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .base import Demo, RunFn

_REGISTRY: dict[str, Demo] = {}


def register(demo: Demo) -> Demo:
    if demo.name in _REGISTRY:
        raise ValueError(f"demo {demo.name!r} registered twice")
    _REGISTRY[demo.name] = demo
    return demo


def register_demo(**spec: Any) -> Callable[[RunFn], RunFn]:
    """Register the decorated run function as the demo `spec` describes (every `Demo` field but `run`)."""

    def decorate(run: RunFn) -> RunFn:
        register(Demo(run=run, **spec))
        return run

    return decorate
