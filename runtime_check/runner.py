"""Parent side: run jobs in child processes under a time limit and turn their events into runs.

Nothing here imports torch or the user's code. A child is ``python -m
gblint.runtime_check.child`` (started through :data:`BOOTSTRAP`) in its own session (process group), with a clean environment
(:func:`clean_env`), stdin closed and its output captured to files. A job that runs past its
time limit gets its child's process group killed (SIGKILL); a job whose child dies (a signal,
``os._exit``) is reported with the signal or exit status; jobs that did not start yet are run
again in a fresh child. gblint itself never sees the user's exception, exit or crash.

Nothing a child starts outlives the run (:mod:`.reaper`): a child runs under a shepherd
process that kills everything it started when it ends or gblint dies, dies with the shepherd
(``PR_SET_PDEATHSIG``), carries a mark in its environment that its own children inherit, and
what it started is killed when the child ends, times out, or the run is interrupted.
"""
from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from typing import Any, Dict, List, Optional, Sequence, Tuple

#: Environment variables a child gets from gblint's own environment (nothing else: no tokens,
#: no credentials). ``--env NAME`` adds more.
PASS_ENV = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "TERM",
            "PYTHONPATH", "PYTHONHASHSEED", "VIRTUAL_ENV", "CONDA_PREFIX", "LD_LIBRARY_PATH",
            "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "CUDA_PATH", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
            "NVIDIA_VISIBLE_DEVICES", "CC", "CXX", "TORCH_HOME", "TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR",
            "OMP_NUM_THREADS", "MKL_NUM_THREADS")

SEVERITY = {"resumed": 0, "prefix": 1, "skipped": 2}

#: Seconds a child may take to exit after its last job (interpreter shutdown, user threads).
EXIT_GRACE = 10.0

#: ``_handle_skip`` reasons that mean "the frame's compile failed" (reported as skipped frames
#: from the failure itself, not as harmless declines).
FAILURE_SKIP_REASONS = ("an error was suppressed during compilation",
                        "compilation failed with a custom frame execution strategy")


@dataclasses.dataclass
class Job:
    """One thing to run in a child.

    ``kind="entry"``: import ``file`` (as module ``module``) or the importable ``module``, then
    call ``function`` (a dotted attribute path) with ``examples`` (Python expressions, evaluated
    in the module's namespace) or synthesised arguments. ``kind="program"``: run ``argv``
    (``argv[0]`` a script, or ``module`` for ``python -m``) as ``__main__``.
    ``path_entry``: a folder put first on ``sys.path`` (then ``module`` is imported by name,
    which keeps relative imports working). ``compile_target``: apply ``torch.compile`` (with
    ``fullgraph``) to the entry when it is not compiled already (a region's plain function, or
    ``Class.method`` on ``Class()``). ``entry`` is the label shown in reports."""

    entry: str
    kind: str = "entry"
    file: Optional[str] = None
    module: Optional[str] = None
    function: str = "main"
    examples: Optional[List[str]] = None
    synthesize: bool = True
    argv: Optional[List[str]] = None
    path_entry: Optional[str] = None
    compile_target: bool = False
    fullgraph: bool = False
    id: int = 0

    def request(self) -> Dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass
class Options:
    """How children run. ``timeout``: seconds one job may run (also the limit for a child to
    start, import torch and install the observer, plus ``startup_grace``). ``workers``: child
    processes run side by side. ``python``: the interpreter of the children (must have torch
    and gblint). ``env``: extra variable names to pass through."""

    backend: str = "inductor"
    device: str = "cpu"
    timeout: float = 120.0
    workers: int = 1
    python: str = sys.executable
    env: Sequence[str] = ()
    cwd: Optional[str] = None
    startup_grace: float = 120.0
    build_timeout: Optional[float] = None  # the build stage's own limit (.stages); None: timeout
    stages: bool = True  # a build backend (inductor) runs after an eager breaks stage (.stages)


def clean_env(extra: Sequence[str] = (), mark: Optional[str] = None) -> Dict[str, str]:
    """The child's environment: only :data:`PASS_ENV` and ``extra`` names that are set, plus
    ``PYTHONUNBUFFERED=1`` and, given a ``mark`` (str), :data:`.reaper.MARK` set to it."""
    from .reaper import MARK
    env = {k: os.environ[k] for k in (*PASS_ENV, *extra) if k in os.environ}
    env["PYTHONUNBUFFERED"] = "1"
    if mark is not None:
        env[MARK] = mark
    env.setdefault("PATH", os.defpath)
    return env


_HERE = os.path.dirname(os.path.abspath(__file__))

#: ``python -c`` program that starts the child: ``gblint.runtime_check.child`` as installed, or,
#: for an interpreter without gblint (``--run -- /other/python ...``), this very folder loaded
#: by path (the child needs only the standard library, torch and its own package).
BOOTSTRAP = f"""import importlib.util, sys, types
try:
    import gblint.runtime_check.child as child
except ImportError:
    here = {_HERE!r}
    if "gblint" not in sys.modules:
        try:
            import gblint
        except ImportError:
            sys.modules["gblint"] = types.ModuleType("gblint")
            sys.modules["gblint"].__path__ = []
    spec = importlib.util.spec_from_file_location("gblint.runtime_check", here + "/__init__.py",
                                                  submodule_search_locations=[here])
    pkg = importlib.util.module_from_spec(spec)
    sys.modules["gblint.runtime_check"] = pkg
    spec.loader.exec_module(pkg)
    import gblint.runtime_check.child as child
sys.exit(child.main(sys.argv[1:]))
"""


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(-code).name
    except (ValueError, AttributeError):
        return f"signal {-code}"


def _tail(path: str, limit: int = 2000) -> str:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - limit))
            return fh.read().decode("utf-8", "replace")
    except OSError:
        return ""


class _Events:
    """Reads a growing JSON-lines file incrementally (a torn last line waits for the rest)."""

    def __init__(self, path: str):
        self.path = path
        self.pos = 0
        self.buf = b""

    def read(self) -> List[Dict[str, Any]]:
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self.pos)
                data = fh.read()
                self.pos = fh.tell()
        except OSError:
            return []
        self.buf += data
        out = []
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            try:
                out.append(json.loads(line))
            except ValueError:
                continue
        return out


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL everything the child started (its descendants, in whatever session), then the
    child's process group; it was started with ``start_new_session=True``, so the group id is
    the child's pid."""
    from .reaper import descendants, terminate
    terminate(lambda table: descendants(proc.pid, table))
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        try:
            proc.kill()
        except OSError:
            pass


def _run_child(jobs: List[Job], options: Options, workdir: str, tag: str, mark: str = "",
               stop: Optional[threading.Event] = None) -> Tuple[Dict[int, Dict[str, Any]], Dict[str, Any]]:
    """One child for ``jobs`` (in order). Returns (per-job records, child info). A record has
    ``events`` and ``end`` (the ``job_end`` payload, or a synthesised one for a job that timed
    out or whose child died); jobs absent from the records did not start. ``mark`` goes into
    the child's environment (:data:`.reaper.MARK`); ``stop``, once set, ends the child."""
    from .reaper import marked, shepherded, terminate
    mark = f"{mark}/{tag}/"
    req_path = os.path.join(workdir, f"request-{tag}.json")
    ev_path = os.path.join(workdir, f"events-{tag}.jsonl")
    out_path = os.path.join(workdir, f"output-{tag}.txt")
    with open(req_path, "w", encoding="utf-8") as fh:
        json.dump({"backend": options.backend, "device": options.device, "events": ev_path,
                   "jobs": [j.request() for j in jobs]}, fh)
    open(ev_path, "w").close()
    records: Dict[int, Dict[str, Any]] = {}
    info: Dict[str, Any] = {"ready": None, "fatal": None, "returncode": None, "output_tail": ""}
    reader = _Events(ev_path)
    with open(out_path, "wb") as out:
        proc = subprocess.Popen(shepherded([options.python, "-c", BOOTSTRAP, "--request", req_path], workdir),
                                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                env=clean_env(options.env, mark), cwd=options.cwd or os.getcwd(),
                                start_new_session=True)
        current: Optional[int] = None
        started_at = idle_since = time.monotonic()
        timed_out: Optional[int] = None
        startup_failed = done = False

        def consume(events):
            nonlocal current, started_at, idle_since, done
            for ev in events:
                kind = ev.get("ev")
                if kind == "ready":
                    info["ready"] = ev
                elif kind == "fatal":
                    info["fatal"] = ev.get("message")
                elif kind == "done":
                    done = True
                elif kind == "job_start":
                    current = ev.get("job")
                    started_at = time.monotonic()
                    records[current] = {"events": [], "end": None, "started": started_at}
                elif kind == "job_end":
                    if ev.get("job") in records:
                        records[ev["job"]]["end"] = ev
                    current = None
                    idle_since = time.monotonic()
                elif ev.get("job") in records:
                    records[ev["job"]]["events"].append(ev)

        try:
            while True:
                consume(reader.read())
                rc = proc.poll()
                if rc is not None:
                    break
                now = time.monotonic()
                if stop is not None and stop.is_set():
                    _kill_group(proc)
                    proc.wait()
                    break
                if current is not None and now - started_at > options.timeout:
                    timed_out = current
                    _kill_group(proc)
                    proc.wait()
                    break
                # outside a job: starting up (torch import), between jobs, or exiting; a child that
                # stays there (a user thread that never ends, say) is stopped, keeping its results
                idle_limit = EXIT_GRACE if done else options.timeout + options.startup_grace
                if current is None and now - idle_since > idle_limit:
                    startup_failed = not records
                    _kill_group(proc)
                    proc.wait()
                    break
                time.sleep(0.02)
        except BaseException:
            _kill_group(proc)
            proc.wait()
            raise
        consume(reader.read())
        # whatever the child started is not left behind: its group, and everything with its mark
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        terminate(lambda table: marked(mark, table))
    info["returncode"] = proc.returncode
    info["output_tail"] = _tail(out_path)
    ended = time.monotonic()
    for jid, rec in records.items():
        if rec["end"] is not None:
            continue
        if timed_out == jid:
            rec["end"] = {"status": "timeout", "seconds": options.timeout, "time_limit": options.timeout,
                          "message": f"did not finish within the time limit of {options.timeout:g} s; "
                                     f"the child process was killed"}
        else:
            rc = proc.returncode
            if rc is not None and rc < 0:
                how = f"the process was killed by {_signal_name(rc)}"
                status = "crashed"
            else:
                how = f"the process exited with status {rc} (os._exit or a fatal error) before the run ended"
                status = "exited"
            rec["end"] = {"status": status, "exit_code": rc, "time_limit": options.timeout, "message": how,
                          "seconds": round(ended - rec["started"], 4)}
        rec["end"]["output_tail"] = info["output_tail"]
    if startup_failed:
        info["fatal"] = info["fatal"] or (f"the child did not start within {options.timeout + options.startup_grace:g} s")
    return records, info


def startup_failure(info: Dict[str, Any], options: Options) -> str:
    """Why a child that ran no job ended, in one line: its exit status and the last line it
    printed (``ModuleNotFoundError: No module named 'torch'`` when the interpreter has no
    torch)."""
    lines = [ln.strip() for ln in (info.get("output_tail") or "").splitlines() if ln.strip()]
    why = f"the child process ({options.python}) ended (status {info.get('returncode')}) before running anything"
    return f"{why}: {lines[-1]}" if lines else why


def run_jobs(jobs: Sequence[Job], options: Options) -> List[Dict[str, Any]]:
    """Run every job (in up to ``options.workers`` children side by side) and return one run
    record per job, in order (see :func:`build_run`). Never raises for anything the user's
    code does; ``OSError`` if the interpreter cannot be started."""
    jobs = list(jobs)
    for i, job in enumerate(jobs):
        job.id = i
    if not jobs:
        return []
    n = max(1, min(options.workers, len(jobs)))
    chunks = [jobs[i::n] for i in range(n)]
    results: Dict[int, Dict[str, Any]] = {}
    errors: List[BaseException] = []
    workdir = tempfile.mkdtemp(prefix="gblint-confirm-")
    mark = f"{os.getpid()}-{uuid.uuid4().hex}"
    stop = threading.Event()

    def worker(k: int, chunk: List[Job]):
        try:
            remaining = list(chunk)
            attempt = 0
            while remaining and not stop.is_set():
                attempt += 1
                records, info = _run_child(remaining, options, workdir, f"{k}-{attempt}", mark, stop)
                progressed = False
                for job in list(remaining):
                    rec = records.get(job.id)
                    if rec is None:
                        continue
                    progressed = True
                    results[job.id] = build_run(job, rec["events"], rec["end"], info, options)
                    remaining.remove(job)
                if not progressed:
                    why = info.get("fatal") or startup_failure(info, options)
                    for job in remaining:
                        end = {"status": "failed", "message": why, "output_tail": info.get("output_tail", "")}
                        results[job.id] = build_run(job, [], end, info, options)
                    remaining = []
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k, c), daemon=True) for k, c in enumerate(chunks)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:  # also when interrupted: no child, nor anything a child started, is left running
        stop.set()
        from .reaper import marked, terminate
        terminate(lambda table: marked(mark, table))
        _cleanup(workdir)
    if errors:
        raise errors[0]
    return [results[j.id] for j in jobs]


def _cleanup(workdir: str) -> None:
    import shutil
    shutil.rmtree(workdir, ignore_errors=True)


# ---------------------------------------------------------------------------- assembling


def _normal_function(name: Optional[str]) -> Tuple[str, Optional[int]]:
    from .observer import resume_target
    return resume_target(name or "")


def _site(ev: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    stack = ev.get("user_stack") or ev.get("stack") or []
    return stack[-1] if stack else None


def build_run(job: Job, events: List[Dict[str, Any]], end: Dict[str, Any], info: Dict[str, Any],
              options: Options) -> Dict[str, Any]:
    """Turn one job's events into the run record of ``gblint confirm --format json``:
    ``entry, backend, device, graph_count, graphs, breaks, skipped_frames, recompiles, error,
    seconds`` plus ``status`` (``ok``/``error``/``exception``/``exited``/``timeout``/``crashed``/
    ``needs_inputs``/``import_error``/``failed``), ``message``, ``time_limit``, ``exception``,
    ``declined_frames`` (frames Dynamo declined at no cost: no tensors, a non-recursive
    ``disable``, an empty graph), ``frames`` (every user frame Dynamo compiled or tried to),
    ``file``, ``compile_errors`` (every compile error that reached the caller, whether the
    user's code caught it (``caught``) or it ended the run (then ``error`` is it too): ``type,
    gb_id, gb_type, path, line`` (innermost user line), ``message, stack, function, qualname,
    frame_path, first_line`` (the frame whose compilation failed), ``resume_at``) and
    ``dynamo_frames`` (how many frames, user's or library's, Dynamo tried to compile)."""
    ready = info.get("ready") or {}
    graphs, breaks, skipped, recompiles, declined, frames = [], {}, {}, [], [], []
    raised: Dict[int, Dict[str, Any]] = {}  # compile exceptions by sequence number
    suppressed: set = set()
    dynamo_frames = 0
    qualnames: Dict[Tuple[Any, Any, Any], str] = {}
    for ev in events:
        kind = ev.get("ev")
        if kind in ("compile_exception", "frame_failed") and ev.get("qualname"):
            qualnames[(ev.get("path"), ev.get("first_line"), ev.get("function"))] = ev["qualname"]
        if kind == "compile_exception" and isinstance(ev.get("seq"), int):
            raised[ev["seq"]] = ev
        elif kind == "frame_failed":
            suppressed.update(s for s in ev.get("seqs") or () if isinstance(s, int))
        elif kind == "frame":
            dynamo_frames += 1
        if kind == "graph":
            g = {"ops": ev.get("ops", 0), "codegen": ev.get("codegen"), "lines": ev.get("lines", []),
                 "compile_id": ev.get("compile_id"), "devices": ev.get("devices") or ev.get("input_devices") or []}
            if "kernels" in ev:
                g["kernels"] = ev["kernels"]
            if ev.get("compile_error"):
                g["compile_error"] = ev["compile_error"]
            graphs.append(g)
        elif kind == "break":
            site = _site(ev)
            if site is None:
                continue
            key = (site["path"], site["line"])
            fn, _ = _normal_function(site.get("function"))
            b = breaks.get(key)
            if b is None:
                b = breaks[key] = {"path": site["path"], "line": site["line"], "function": fn,
                                   "gb_id": ev.get("gb_id"), "gb_type": ev.get("gb_type"),
                                   "outcome": ev.get("outcome", "resumed"), "stack": ev.get("user_stack") or [],
                                   "events": 0, "outcomes": [], "gb_ids": []}
            b["events"] += 1
            if ev.get("outcome") not in b["outcomes"]:
                b["outcomes"].append(ev.get("outcome"))
            if SEVERITY.get(ev.get("outcome"), 0) > SEVERITY.get(b["outcome"], 0):
                b["outcome"] = ev.get("outcome")
            for gid in (ev.get("gb_id"), ev.get("cause_gb_id")):
                if gid and gid not in b["gb_ids"]:
                    b["gb_ids"].append(gid)
            if len(ev.get("user_stack") or []) > len(b["stack"]):  # the longest chain of call sites
                b["stack"] = ev["user_stack"]
        elif kind == "frame_failed":
            site = _site(ev)
            key = (ev.get("path"), ev.get("first_line"), ev.get("function"))
            fn, resume_at = _normal_function(ev.get("function"))
            skipped[key] = {"function": fn, "path": ev.get("path"),
                            "line": site["line"] if site else ev.get("first_line"),
                            "reason": ev.get("gb_type") or ev.get("message"), "gb_id": ev.get("gb_id"),
                            "first_line": ev.get("first_line"), "resume_at": resume_at,
                            "code_name": ev.get("function"), "qualname": ev.get("qualname")}
        elif kind == "frame":
            cid = ev.get("compile_id") or ""
            if "/" in cid and not cid.endswith("/0") and ev.get("recompile_reason"):
                recompiles.append({"function": _normal_function(ev.get("function"))[0], "path": ev.get("path"),
                                   "line": ev.get("first_line"), "guard": ev.get("recompile_reason"),
                                   "compile_id": cid})
            failed = (ev.get("has_guarded_code") is False and ev.get("fail_type")
                      and ev.get("fail_type") not in ("SkipFrame",) and ev.get("user"))
            if failed:
                key = (ev.get("path"), ev.get("first_line"), ev.get("function"))
                if key not in skipped:
                    fn, resume_at = _normal_function(ev.get("function"))
                    skipped[key] = {"function": fn, "path": ev.get("path"),
                                    "line": ev.get("fail_line") or ev.get("first_line"),
                                    "reason": ev.get("fail_reason") or ev.get("fail_type"), "gb_id": None,
                                    "first_line": ev.get("first_line"), "resume_at": resume_at,
                                    "code_name": ev.get("function"), "qualname": None}
        if kind == "frame" and ev.get("user"):
            frames.append({"function": ev.get("function"), "path": ev.get("path"), "line": ev.get("first_line"),
                           "compile_id": ev.get("compile_id"), "graph_ops": ev.get("graph_ops"),
                           "compiled": bool(ev.get("has_guarded_code"))})
        if kind == "decline":
            if ev.get("reason") not in FAILURE_SKIP_REASONS:
                declined.append({"function": ev.get("function"), "path": ev.get("path"), "line": ev.get("line"),
                                 "reason": ev.get("reason")})
    from .registry import gb_id_for
    for s in skipped.values():
        if s["gb_id"] is None and s["reason"]:
            s["gb_id"] = gb_id_for(s["reason"])
        if not s.get("qualname"):  # a metrics record has no qualname; the compile exception had it
            s["qualname"] = qualnames.get((s["path"], s["first_line"], s["code_name"]))
    status = end.get("status", "failed")
    error = end.get("error") if status == "error" else None
    if error is not None:
        error = {k: error.get(k) for k in ("type", "gb_id", "gb_type", "path", "line", "message", "stack")}
    escaped = end.get("error") or end.get("exception") or {}
    compile_errors = []
    for seq in sorted(raised):
        if seq in suppressed:
            continue
        ev = raised[seq]
        stack = ev.get("user_stack") or []
        site = stack[-1] if stack else {}
        fn, resume_at = _normal_function(ev.get("function"))
        ce = {"type": ev.get("exc_type"), "gb_id": ev.get("gb_id"), "gb_type": ev.get("gb_type"),
              "path": site.get("path"), "line": site.get("line"), "message": ev.get("message"), "stack": stack,
              "function": fn, "qualname": ev.get("qualname"), "frame_path": ev.get("path"),
              "first_line": ev.get("first_line"), "resume_at": resume_at}
        ce["caught"] = not (escaped and escaped.get("path") == ce["path"] and escaped.get("line") == ce["line"]
                            and (escaped.get("type") == ce["type"] or
                                 (ce["gb_type"] and escaped.get("gb_type") == ce["gb_type"])))
        compile_errors.append(ce)
    run = {"entry": job.entry, "backend": options.backend, "device": ready.get("device") or options.device,
           "graph_count": len(graphs), "graphs": graphs, "breaks": list(breaks.values()),
           "skipped_frames": list(skipped.values()), "recompiles": recompiles, "error": error,
           "seconds": float(end.get("seconds") or 0.0), "status": status, "file": job.file,
           "declined_frames": declined, "frames": frames, "time_limit": options.timeout,
           "compile_errors": compile_errors, "dynamo_frames": dynamo_frames}
    if end.get("message"):
        run["message"] = end["message"]
    if end.get("exception"):
        run["exception"] = end["exception"]
    if "exit_code" in end:
        run["exit_code"] = end["exit_code"]
    if status not in ("ok", "error", "exception") and end.get("output_tail"):
        run["output_tail"] = end["output_tail"]
    if ready:
        run["torch"] = ready.get("torch")
    return run
