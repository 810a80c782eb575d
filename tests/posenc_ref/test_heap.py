"""posenc_ref.heap: the processes that run demos fix glibc's mmap threshold, so freed tensors leave the RSS."""

from __future__ import annotations

import sys

import pytest
from support.paths import ROOT


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_release_freed_memory_applies_on_glibc_and_again() -> None:
    from posenc_ref.heap import release_freed_memory

    assert release_freed_memory() is True
    assert release_freed_memory() is True  # idempotent: the demo host and a CLI run may both call it


def test_the_demo_process_and_demo_run_set_it_up() -> None:
    """Both entry points that run demos for a user call it before the first demo."""
    host = (ROOT / "tui" / "demo_host.py").read_text(encoding="utf-8")
    cli = (ROOT / "posenc_ref" / "cli.py").read_text(encoding="utf-8")
    main = host[host.index("def main()") :]
    assert main.index("release_freed_memory()") < main.index("serve(")
    run = cli[cli.index("def handle_run(") :]
    assert run.index("release_freed_memory()") < run.index("run_demo(")
