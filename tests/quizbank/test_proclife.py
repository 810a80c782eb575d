"""Process lifetime helpers: a parent-death signal, a subreaper that finds setsid'd grandchildren."""

import os
import subprocess
import sys
import textwrap

import pytest
from support.processes import alive, wait_gone

from quizbank import proclife

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux-only")


@linux
def test_a_child_dies_when_its_parent_is_killed():
    # A middle process starts a grandchild with die_with_parent, prints its pid, then is SIGKILLed.
    code = textwrap.dedent(
        """
        import os, subprocess, sys, time
        from quizbank import proclife
        me = os.getpid()
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                                 preexec_fn=lambda: proclife.die_with_parent(expected_parent=me))
        print(child.pid, flush=True)
        time.sleep(60)
        """
    )
    middle = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    grandchild = int(middle.stdout.readline())
    assert alive(grandchild)
    middle.kill()
    middle.wait()
    assert wait_gone([grandchild]) == [], "the grandchild outlived its SIGKILLed parent"


@linux
def test_a_subreaper_finds_and_kills_a_setsid_double_fork():
    code = textwrap.dedent(
        """
        import os, sys, time
        from quizbank import proclife
        assert proclife.become_subreaper()
        r, w = os.pipe()
        first = os.fork()
        if first == 0:
            os.setsid()
            if os.fork() == 0:
                os.write(w, str(os.getpid()).encode() + b"\\n")
                time.sleep(60)
            os._exit(0)
        escaped = int(os.read(r, 64))
        os.waitpid(first, 0)  # its parent is gone: the grandchild is now this subreaper's
        assert escaped in proclife.descendants(), proclife.descendants()
        assert proclife.kill_descendants() >= 1
        print(escaped, proclife.descendants(), flush=True)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    escaped, rest = out.stdout.split(" ", 1)
    assert rest.strip() == "[]"
    assert wait_gone([int(escaped)]) == []


@linux
def test_descendants_lists_a_running_child_and_kill_descendants_ends_it():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert child.pid in proclife.descendants(os.getpid())
        assert proclife.kill_descendants(child.pid) == 0  # it has no children of its own
    finally:
        child.kill()
        child.wait()
    assert child.pid not in proclife.descendants(os.getpid())
