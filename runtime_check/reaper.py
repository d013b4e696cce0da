"""No process started for a confirmation outlives it (Linux; elsewhere these are no-ops).

The user's code runs in a child with its own session, and may start processes of its own, some
in new sessions that a process-group kill misses. Three mechanisms find them all:

- every child is started with :data:`MARK` in its environment (inherited by what it starts):
  :func:`marked` finds those processes wherever they were re-parented;
- the command line makes itself a *child subreaper* (:func:`contained`), so an orphan of the
  user's code is re-parented to gblint instead of init, and :func:`descendants` (a walk of
  ``/proc`` by parent pid) reaches it even when it cleared its environment;
- :func:`contained` kills every descendant on SIGTERM, SIGINT and on the way out;
- and, for SIGKILL, which no handler sees, :func:`contained` starts a *guardian* (:func:`guard`):
  a separate process that keeps noting every descendant and marked process, and kills them when
  the command dies (the end of a pipe only the command holds).
"""
from __future__ import annotations

import contextlib
import os
import signal
import subprocess
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


def guard(parent: int, fd: int, interval: float = 0.05) -> None:
    """The guardian's loop (in its own process and session): while ``fd`` (the read end of a
    pipe whose write end only ``parent`` holds) stays open, note every process started for
    ``parent``'s confirmations (its descendants, and processes whose :data:`MARK` starts with
    ``"{parent}-"``), every ``interval`` seconds; when ``parent`` is gone (end of file), kill
    the ones noted that still run (same pid and start time) and whatever is still marked."""
    import select
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C to the terminal is the command's to handle
    me = os.getpid()
    seen: Dict[int, Optional[int]] = {}
    while not select.select([fd], [], [], interval)[0]:
        table = process_table()
        for pid in descendants(parent, table) + marked(f"{parent}-", table):
            if pid != me and pid not in seen:
                seen[pid] = _start_time(pid)
    try:
        if os.read(fd, 1):  # the command closed it on purpose after its own cleanup
            return
    except OSError:
        pass
    terminate(lambda table: [p for p in seen if p != me and _start_time(p) == seen[p]]
              + marked(f"{parent}-", table))


def start_guardian() -> Optional[Tuple[int, subprocess.Popen]]:
    """Start :func:`guard` for this process; (write end of its pipe, the guardian process), or
    None where that is impossible (not Linux, or it could not start). Close the write end to
    let the guardian go, after writing a byte to say there is nothing left for it to kill."""
    if not sys.platform.startswith("linux"):
        return None
    r, w = os.pipe()
    try:
        proc = subprocess.Popen([sys.executable, "-c", "import sys; from gblint.runtime_check.reaper import guard; "
                                 "guard(int(sys.argv[1]), int(sys.argv[2]))", str(os.getpid()), str(r)],
                                pass_fds=(r,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError:
        os.close(w)
        return None
    finally:
        os.close(r)
    return w, proc


def stop_guardian(guardian: Optional[Tuple[int, subprocess.Popen]]) -> None:
    """Let the guardian from :func:`start_guardian` go (this process cleaned up itself)."""
    if guardian is None:
        return
    w, proc = guardian
    try:
        os.write(w, b"x")
    except OSError:
        pass
    os.close(w)
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def kill_descendants(keep: Iterable[int] = ()) -> None:
    """Kill and reap every descendant of this process but those in ``keep`` (pids)."""
    me, keep = os.getpid(), set(keep)
    terminate(lambda table: [p for p in descendants(me, table) if p not in keep])


@contextlib.contextmanager
def contained() -> Iterator[None]:
    """For the command line, in the main thread: while inside, this process is a child
    subreaper and SIGTERM/SIGINT kill every descendant before raising (``Terminated`` /
    ``KeyboardInterrupt``); on the way out, whatever is still running is killed. A guardian
    process (:func:`guard`) does the same if this process is killed with SIGKILL."""
    guardian = start_guardian()
    spared = (guardian[1].pid,) if guardian else ()

    def on_signal(signum, frame):
        kill_descendants(spared)
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        from gblint.interrupts import Terminated
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
        kill_descendants(spared)
        stop_guardian(guardian)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
