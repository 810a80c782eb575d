"""Headless Chromium for the browser test (tests/tui/serve/test_serve_browser.py) and bench/serve.py."""

from __future__ import annotations

import os

__all__ = ["CHROMIUM", "CHROMIUM_ARGS"]

# Debian's Chromium, headless, for the browser test and bench/serve.py: the flags keep it off the network
# (this machine refuses outside connections) and need no sandbox when run as root.
CHROMIUM = os.environ.get("POSENC_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
