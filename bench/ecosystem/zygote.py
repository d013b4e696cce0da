"""A fork server for the measuring children: it imports torch and the package once, then forks
one process per model, so each model's CPU budget goes to Dynamo, not to imports.

Protocol (one JSON object per line): the parent writes ``{"package", "name", "driver",
"events", "mode_cpu_limit", "cpu_limit"}``; the zygote answers ``{"pid": N}``. The forked
process starts a new session (the parent kills its process group on a timeout), sets
``RLIMIT_CPU`` and runs :func:`child.run_model`. Children are reaped automatically
(``SIGCHLD`` ignored); the parent watches the events file and the pid.
"""
from __future__ import annotations

import json
import os
import resource
import signal
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def main() -> int:
    import child
    child.preload(sys.argv[1])
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    out = sys.stdout
    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    for line in sys.stdin:
        req = json.loads(line)
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                os.setsid()
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                devnull = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(devnull, fd)
                resource.setrlimit(resource.RLIMIT_CPU, (req["cpu_limit"], req["cpu_limit"] + 10))
                code = child.run_model(req["package"], req["name"], req["driver"], req["events"],
                                       req["mode_cpu_limit"])
            finally:
                os._exit(code)
        out.write(json.dumps({"pid": pid}) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
