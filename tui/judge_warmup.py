"""Warm the open-answer judge off the UI thread, once per process, when an open question first shows.

The judge's Snowball stemmer, jieba's dictionary (about a second) and the bank's word rarity load on first
use; a typed answer is judged the moment it is revealed. The first open question a screen mounts starts
this named thread worker, so the load is done long before the candidate has typed an answer, and nothing
of it runs at start-up (a session without open questions never loads it).
"""

from __future__ import annotations

import threading

from textual.dom import DOMNode

__all__ = ["warm_judge"]

_started = threading.Event()


def _warm() -> None:
    from quizbank.judge import warm
    from quizbank.judge.rarity import bank_rarity

    warm()
    bank_rarity()


def warm_judge(node: DOMNode) -> None:
    """Start the warm-up worker on `node`'s app, unless it ran in this process already."""
    if _started.is_set():
        return
    _started.set()
    node.app.run_worker(_warm, thread=True, name="judge-warmup", group="judge-warmup", exit_on_error=False)
