"""Every demo family. Importing this registers all demos (one spec module per family); it never imports
torch: run functions import it when they run."""

from __future__ import annotations

from . import (  # noqa: F401  (registration side effects)
    alibi_demos,
    attention_demos,
    deberta_demos,
    learned_demos,
    longctx_demos,
    mrope_demos,
    nope_demos,
    relative_demos,
    rope_demos,
    rope_pitfall_demos,
    scaling_demos,
    sinusoidal_demos,
)
