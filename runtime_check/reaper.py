"""No process started for a confirmation outlives it (Linux; elsewhere these are no-ops).

The user's code runs in a child with its own session, and may start processes of its own, some
in new sessions that a process-group kill misses, some with their environment cleared. Three
mechanisms find them all:

- each child runs under a *shepherd* (:func:`shepherd`), a small process that is a child
  subreaper: every process the user's code starts, however it detaches, stays its descendant
  (an orphan is re-parented to the nearest subreaper), and the shepherd kills them all when the
  child ends, when it is told to stop, or when the gblint command is gone, SIGKILL included;
- the command line is a child subreaper too (:func:`contained`) and kills every descendant on
  SIGTERM, SIGINT and on the way out; :func:`descendants` walks ``/proc`` by parent pid;
- every child is started with :data:`MARK` in its environment (inherited by what it starts):
  :func:`marked` finds those processes wherever they were re-parented (the runner's last sweep).
"""
from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Tuple

MARK = "GBLINT_CONFIRM_MARK"
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
PR_SET_CHILD_SUBREAPER = 36

Table = Dict[int, Tuple[int, str]]  # pid -> (parent pid, state letter)


def _prctl(option: int, value: int) -> bool:
    """``prctl(option, value)`` through libc; False where that is impossible (not Linux, no libc)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes
        return ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def become_subreaper() -> bool:
    """Make this process the child subreaper of its descendants (orphans are re-parented to it).
    Returns whether that worked."""
    return _prctl(PR_SET_CHILD_SUBREAPER, 1)


def die_with_parent(parent: int) -> None:
    """For a child: be sent SIGKILL when the process that started it dies, and exit at once
    when it died already. ``parent`` is that process's pid (int)."""
    if not sys.platform.startswith("linux"):
        return
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


def process_table() -> Table:
    """pid -> (parent pid, state) of every process ``/proc`` shows (empty without ``/proc``)."""
    table: Table = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return table
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                data = fh.read()
            state, ppid = data[data.rindex(b")") + 2:].split()[:2]
            table[int(name)] = (int(ppid), state.decode())
        except (OSError, ValueError, IndexError):
            continue
    return table


def descendants(root: int, table: Table) -> List[int]:
    """Every process whose chain of parents leads to ``root`` (``root`` excluded)."""
    children: Dict[int, List[int]] = {}
    for pid, (ppid, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    out, todo = [], list(children.get(root, ()))
    while todo:
        pid = todo.pop()
        if pid != root and pid not in out:
            out.append(pid)
            todo.extend(children.get(pid, ()))
    return out


def marked(prefix: str, table: Table) -> List[int]:
    """Every process whose environment has ``MARK`` set to a value that starts with ``prefix``,
    plus their descendants."""
    key = f"{MARK}={prefix}".encode()
    found = []
    for pid in table:
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                if any(v.startswith(key) for v in fh.read().split(b"\0")):
                    found.append(pid)
        except OSError:
            continue
    return list(dict.fromkeys(found + [d for pid in found for d in descendants(pid, table)]))


def terminate(select: Callable[[Table], Iterable[int]], timeout: float = 5.0) -> None:
    """SIGKILL the processes ``select(table)`` names, again until none is left alive (they may
    start more meanwhile), and reap the ones that are this process's children. Never this
    process itself; never raises."""
    me = os.getpid()
    deadline = time.monotonic() + timeout
    while True:
        table = process_table()
        chosen = [p for p in select(table) if p in table and p != me]
        for pid in chosen:
            if table[pid][1] == "Z" and table[pid][0] == me:
                try:
                    os.waitpid(pid, os.WNOHANG)
                except OSError:
                    pass
        alive = [p for p in chosen if table[p][1] != "Z"]
        if not alive or time.monotonic() > deadline:
            return
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.01)


def _start_time(pid: int) -> Optional[int]:
    """The start time of ``pid`` (clock ticks since boot; tells a reused pid apart), or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read()
        return int(data[data.rindex(b")") + 2:].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def shepherd(argv: List[str], parent: int, interval: float = 0.02, workdir: Optional[str] = None) -> int:
    """Run ``argv`` (a command line; ``--parent PID`` of this process is appended) as this
    process's child, this process a child subreaper, and end with the child's status (the same
    signal when it was killed by one). Every process the child starts stays a descendant of this
    one however it detaches (new sessions, cleared environments, parents that exit), because an
    orphan is re-parented to the nearest subreaper. So when the child ends, when this process is
    told to stop (SIGTERM, SIGINT, SIGHUP), or when ``parent`` (the pid of the gblint command)
    is gone, even by SIGKILL, which no handler sees, every descendant is killed within
    ``interval`` seconds; ``workdir`` (the run's folder of requests and events, which the
    command removes itself when it ends) is removed too when ``parent`` is gone. Linux only
    (the caller starts the child directly elsewhere)."""
    import resource
    become_subreaper()
    me = os.getpid()
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # relaying a crash signal must not dump a core of this one
    stopping = []
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda signum, frame: stopping.append(signum))
    child = os.posix_spawnp(argv[0], [*argv, "--parent", str(me)], os.environ)
    status: Optional[int] = None
    while status is None and not stopping and os.getppid() == parent:
        while True:  # reap whatever ended: the child, or orphans re-parented here
            try:
                pid, st = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                pid = 0
            if pid == 0:
                break
            if pid == child:
                status = st
        if status is None:
            time.sleep(interval)
    terminate(lambda table: descendants(me, table))
    if workdir and os.getppid() != parent:
        import shutil
        shutil.rmtree(workdir, ignore_errors=True)
    if status is None:
        return 1
    if os.WIFSIGNALED(status):
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(me, os.WTERMSIG(status))
    return os.waitstatus_to_exitcode(status)


#: ``python -c`` program of the process between gblint and a confirmation's child (:func:`shepherd`).
SHEPHERD = ("import os, sys\nfrom gblint.runtime_check.reaper import shepherd\n"
            "sys.exit(shepherd(sys.argv[3:], int(sys.argv[1]), workdir=sys.argv[2] or None))")


def shepherded(argv: List[str], workdir: Optional[str] = None) -> List[str]:
    """The command line that runs ``argv`` (whose program takes ``--parent PID``) under
    :func:`shepherd` with this process as its parent, which removes ``workdir`` should this
    process die without doing so; ``argv`` plus ``--parent`` this process where there is no
    subreaper (not Linux)."""
    if not sys.platform.startswith("linux"):
        return [*argv, "--parent", str(os.getpid())]
    return [sys.executable, "-c", SHEPHERD, str(os.getpid()), workdir or "", *argv]


def kill_descendants(keep: Iterable[int] = ()) -> None:
    """Kill and reap every descendant of this process but those in ``keep`` (pids)."""
    me, keep = os.getpid(), set(keep)
    terminate(lambda table: [p for p in descendants(me, table) if p not in keep])


@contextlib.contextmanager
def contained() -> Iterator[None]:
    """For the command line, in the main thread: while inside, this process is a child
    subreaper and SIGTERM/SIGINT kill every descendant before raising (``Terminated`` /
    ``KeyboardInterrupt``); on the way out, whatever is still running is killed. SIGKILL, which
    no handler sees, is :func:`shepherd`'s to handle: each child runs under one."""

    def on_signal(signum, frame):
        kill_descendants()
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        from gblint.core.interrupts import Terminated
        raise Terminated()

    become_subreaper()
    previous = {}
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            previous[sig] = signal.signal(sig, on_signal)
        except ValueError:  # not the main thread: the exit path below still cleans up
            pass
    try:
        yield
    finally:
        kill_descendants()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
