"""``gblint confirm``: no process started for a confirmation outlives it (Ctrl-C, SIGTERM,
SIGKILL, a time limit; a grandchild in a new session included), and a process the user's code forks does
not add its compilations to the run."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from gblint.runtime_check.reaper import terminate

pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

SPAWNER = """
import os, subprocess, sys, time
out = sys.argv[1]
subprocess.Popen([sys.executable, "-c", "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); "
                  "time.sleep(60)", out + ".grandchild"], start_new_session=True)
with open(out + ".child", "w") as fh:
    fh.write(str(os.getpid()))
time.sleep(60)
"""


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie has ended)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read()
    except OSError:
        return False
    return data[data.rindex(b")") + 2:data.rindex(b")") + 3] != b"Z"


def read_pid(path, timeout=180):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with open(path) as fh:
                text = fh.read()
            if text:
                return int(text)
        except (OSError, ValueError):
            pass
        time.sleep(0.1)
    raise AssertionError(f"{path} never written")


@pytest.mark.parametrize("how", ["TERM", "INT", "KILL", "timeout"])
def test_nothing_started_for_a_confirmation_outlives_it(tmp_path, how):
    (tmp_path / "prog.py").write_text(SPAWNER)
    out = str(tmp_path / "pid")
    timeout = "3" if how == "timeout" else "300"
    tmp = tmp_path / "tmp"  # where the command keeps its work folder
    tmp.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "gblint", "confirm", "--backend", "eager", "--timeout", timeout,
                             "--run", "--", sys.executable, "prog.py", out], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "TMPDIR": str(tmp)})
    pids = []
    try:
        pids = [read_pid(out + ".child"), read_pid(out + ".grandchild")]
        if how != "timeout":  # SIGKILL: no handler runs; the guardian process cleans up
            proc.send_signal({"TERM": signal.SIGTERM, "INT": signal.SIGINT, "KILL": signal.SIGKILL}[how])
        stdout, stderr = proc.communicate(timeout=120)  # EOF: nothing holds the pipes open either
        time.sleep(1)
        assert [p for p in pids if alive(p)] == []
        assert sorted(p.name for p in tmp.glob("gblint-confirm-*")) == []  # nor its files, even after SIGKILL
        if how == "TERM":
            assert proc.returncode == 143
        elif how == "INT":
            assert proc.returncode == 130
        elif how == "KILL":
            assert proc.returncode == -signal.SIGKILL
        else:
            assert proc.returncode == 2 and "time limit" in stdout, stdout + stderr  # incomplete: an error
    finally:
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        proc.kill()
        proc.wait()


FORKS = """
import os
import torch

@torch.compile(backend="eager")
def f(x):
    x = x + 1
    torch._dynamo.graph_break()
    return x * 2

f(torch.ones(2))
pid = os.fork()
if pid == 0:  # the forked process compiles again; its graphs are not the run's
    torch._dynamo.reset()
    f(torch.ones(2))
    os._exit(0)
os.waitpid(pid, 0)
"""


def test_a_forked_process_does_not_count_twice(tmp_path):
    (tmp_path / "forks.py").write_text(textwrap.dedent(FORKS))
    proc = subprocess.run([sys.executable, "-m", "gblint", "confirm", "--backend", "eager", "--format", "json",
                           "--run", "--", sys.executable, "forks.py"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    run = json.loads(proc.stdout)["runs"][0]
    assert run["status"] == "ok", run
    assert run["graph_count"] == 2
    assert [b["events"] for b in run["breaks"]] == [1]


HOPPER = """
import os, sys, time
log = sys.argv[1]
with open(log, "a") as fh:
    fh.write(f"{os.getpid()}\\n")
time.sleep(0.02)
if os.fork() == 0:  # the next hop: a new session, an empty environment, the old process gone
    os.setsid()
    os.execve(sys.executable, [sys.executable, "-c", open(sys.argv[2]).read(), log, sys.argv[2]], {})
os._exit(0)
"""

STARTS_HOPPER = """
import subprocess, sys, time
subprocess.Popen([sys.executable, "-c", open(sys.argv[2]).read(), sys.argv[1], sys.argv[2]], env={})
time.sleep(300)
"""


def test_a_process_that_keeps_changing_session_and_environment_dies_with_a_killed_confirm(tmp_path):
    # No mark in its environment, never in the confirm's process group, its parent gone every
    # 20 ms: only being a descendant of a subreaper that outlives the command catches it.
    (tmp_path / "hopper.py").write_text(HOPPER)
    (tmp_path / "prog.py").write_text(STARTS_HOPPER)
    log = tmp_path / "hops.log"
    proc = subprocess.Popen([sys.executable, "-m", "gblint", "confirm", "--backend", "eager", "--timeout", "300",
                             "--run", "--", sys.executable, "prog.py", str(log), "hopper.py"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    hops = []
    try:
        end = time.monotonic() + 180
        while time.monotonic() < end and len(hops) < 10:
            time.sleep(0.1)
            hops = log.read_text().split() if log.exists() else []
        assert len(hops) >= 10, "the hopper never got going"
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=120)
        time.sleep(1)
        before = log.read_text().split()
        time.sleep(0.5)
        after = log.read_text().split()
        assert after == before, "still hopping a second after the command was killed"
        assert [p for p in after if alive(int(p))] == []
    finally:
        proc.kill()
        proc.wait()
        # if the test failed: stop the hopper (kill each hop as it appears)
        terminate(lambda table: [int(p) for p in log.read_text().split()] if log.exists() else [], timeout=1.0)
