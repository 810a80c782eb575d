"""The grading child: `python -I harness.py FD DRILL FILE MEMORY_BYTES`, a token on stdin.

Isolation against accidents, not a sandbox: the candidate's code is the user's own. It runs with
an address-space limit, in a temporary working directory chosen by the parent, and its results
travel as JSON lines over a private pipe (moved to a high descriptor, never stdout), each line
carrying the token the parent sent on stdin. A program that exits early, or prints something
that looks like a result, therefore cannot pass.
"""

from __future__ import annotations

import fcntl
import json
import os
import random
import resource
import sys
from pathlib import Path
from typing import TextIO


def _limit_memory(limit: int) -> None:
    if limit > 0:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


def _private_channel(fd: int) -> TextIO:
    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, random.randint(300, 900))
    os.close(fd)
    return os.fdopen(high, "w", encoding="utf-8", buffering=1)


def main(argv: list[str]) -> int:
    fd, drill, candidate, memory = int(argv[1]), argv[2], argv[3], int(argv[4])
    token = sys.stdin.readline().strip()
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    channel = _private_channel(fd)

    def send(event: str, **data: object) -> None:
        channel.write(json.dumps({"token": token, "event": event, **data}, ensure_ascii=True) + "\n")
        channel.flush()

    _limit_memory(memory)
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # -I leaves the project off sys.path
    os.environ.setdefault("POSENC_NO_COMPILE", "1")

    from quizbank.drills.catalogue import get_drill
    from quizbank.drills.loading import load_function

    spec_function = get_drill(drill).function
    from quizbank.drills.judging import Grader, timed
    from quizbank.drills.specs import spec_for

    spec = spec_for(drill)
    fn, problem = load_function(candidate, spec_function)
    if fn is None:
        send("fatal", message=problem)
        send("done")
        return 0
    grader = Grader(spec, fn, candidate)
    steps = list(grader.run())
    send("plan", cases=[name for name, _ in steps])
    for name, step in steps:
        send("start", case=name)
        try:
            passed, message, ms = timed(step)
        except MemoryError:
            passed, message, ms = (
                False,
                "ran out of memory: the grader limits a program to 4 GiB by default (POSENC_DRILL_MEMORY_MIB).",
                0.0,
            )
        except RecursionError:
            passed, message, ms = False, "hit Python's recursion limit.", 0.0
        except (SystemExit, KeyboardInterrupt) as exc:
            passed, message, ms = False, f"called sys.exit() or raised {type(exc).__name__}.", 0.0
        except Exception as exc:  # a fault in the grader itself, not in the candidate's code
            passed, message, ms = (
                False,
                f"internal grader error ({type(exc).__name__}: {exc}); please report it.",
                0.0,
            )
        send("case", case=name, passed=passed, message=message, elapsed_ms=ms)
    send("done")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
