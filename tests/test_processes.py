"""No process gblint starts outlives it: ``gblint check -j 2`` and ``gblint fix -j 2`` killed with SIGTERM, SIGKILL or
SIGINT takes its pool workers with it (they would otherwise keep its stderr open and hang any
caller reading it), and a write interrupted by SIGTERM leaves no temporary file."""
import os
import signal
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def processes_mentioning(marker: str):
    """Pids of live processes whose command line contains ``marker`` (zombies have none)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as fh:
                if marker.encode() in fh.read():
                    found.append(int(name))
        except OSError:
            continue
    return found


def wait_for(predicate, timeout: float, step: float = 0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return predicate()


@pytest.fixture
def tree(tmp_path):
    """~100 files that each declare a compiled region: several seconds of work for two workers."""
    root = tmp_path / "gblint-proc-marker"
    root.mkdir()
    body = "import torch\n\n@torch.compile\ndef f(x):\n    return x.sin()\n\n" + "".join(
        f"def g{k}(x, y):\n    z = x + y * {k}\n    if z.sum() > 0:\n        z = z.cos()\n"
        f"    return [t * 2 for t in (z, x, y)]\n\n" for k in range(40))
    for i in range(100):
        (root / f"m{i}.py").write_text(body)
    return str(root)


def _as_from_a_terminal() -> None:
    """The child starts as a shell's foreground command does: SIGINT and SIGTERM at their default
    dispositions and not blocked. A long-lived test worker may have either changed (a process whose
    parent ignores SIGINT, a background job, keeps ignoring it: gblint follows that convention)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@pytest.mark.parametrize("command", ["check", "fix"])
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL, signal.SIGINT], ids=["TERM", "KILL", "INT"])
def test_workers_die_with_gblint(tree, sig, command):
    proc = subprocess.Popen([sys.executable, "-m", "gblint", command, "-j", "2", "--no-cache", "-q", tree],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=_as_from_a_terminal)
    try:
        started = wait_for(lambda: len(processes_mentioning(tree)) >= 3, timeout=60)
        assert started, "the pool never started"
        proc.send_signal(sig)
        proc.wait(timeout=10)  # an interrupted run stops its workers instead of finishing their work
        time.sleep(1)
        assert processes_mentioning(tree) == []
        assert proc.stderr.read() is not None  # stderr reaches EOF: no worker holds it open
    finally:
        for pid in processes_mentioning(tree):
            os.kill(pid, signal.SIGKILL)
        proc.kill()
        proc.wait()
    if sig == signal.SIGTERM:
        assert proc.returncode == 143
    if sig == signal.SIGINT:
        assert proc.returncode == 130


SIGTERM_WHILE_WRITING = """
import os, signal, sys, time
from gblint.project import cache
from gblint.frontends import cli
cli.install_signal_handlers()
real = os.fdopen
def fdopen(fd, *args, **kwargs):
    fh = real(fd, *args, **kwargs)
    if "w" in args[0]:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(30)
    return fh
os.fdopen = fdopen
cache.SummaryCache(sys.argv[1]).put("ab" * 32, True)
"""


def test_sigterm_while_writing_a_cache_entry_leaves_no_temporary_file(tmp_path):
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", SIGTERM_WHILE_WRITING, str(tmp_path)], capture_output=True,
                          text=True, timeout=60)
    assert time.monotonic() - start < 20 and "Terminated" in proc.stderr
    assert [f for _, _, files in os.walk(tmp_path) for f in files] == []
