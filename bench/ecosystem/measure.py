"""The runtime side: measure every model of a package under torch.compile and write its truth.

One child process per model (``child.py``, forked from ``zygote.py``, which imported torch
and the package once), ``torch.set_num_threads(1)``, a CPU limit (``RLIMIT_CPU``) and a
wall-clock limit; a model that cannot be set up, built or run, a crash
and a timeout are recorded with their reason, never fatal. The truth is written after every
model, so an interrupted run keeps what it measured.

Truth file (``truth/<package>.json``)::

    {"package": str, "version": str, "torch": str, "python": "3.11", "models": {NAME: {
       "status": "measured" | "no-setup" | "build-failed" | "eager-failed" | "timeout" | "crashed",
       "message": str, "setup": str (the user-style source; the driver is spec.driver(setup)),
       "cpu_s": float,
       "modes": {"eval"|"train": {"status": "ok"|"compile-error"|"eager-failed", "cpu_s": float,
                                  "graphs": int, "message": str}},
       "breaks": [[path, line, gb_id, outcome, modes]],      # site: innermost frame in a package
       "skipped": [[path, function, first_line, modes]],     # frames Dynamo gave up on (ran eagerly)
       "traced": [[path, qualname, first_line]]}}}           # compiled or inlined, union of modes

Paths are relative to site-packages; frames outside it (the driver, the standard library,
torch) are left out, except that a break whose innermost user frame is the driver keeps
the path ``<driver>``.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Optional

from spec import frame_name, site_relative

HERE = os.path.dirname(os.path.abspath(__file__))

#: a model's child gets this much CPU (both modes, imports included) before the kernel stops it
CPU_LIMIT_S = 150
#: and this much wall-clock time
WALL_LIMIT_S = 300
#: a mode over this much CPU counts as not measured (the harness's budget per model and mode)
MODE_CPU_LIMIT_S = 60.0


class Zygote:
    """The fork server (``zygote.py``) of one package: one per ``measure`` run, shared by its
    threads. Raises ``RuntimeError`` when it cannot start."""

    def __init__(self, package: str, workdir: str):
        self.package = package
        self.lock = threading.Lock()
        self.log = open(os.path.join(workdir, "zygote.log"), "wb")
        from spec import python_for
        self.proc = subprocess.Popen([python_for(package), os.path.join(HERE, "zygote.py"), package],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                     env=child_env(workdir), cwd=workdir, text=True, bufsize=1)
        ready = self.proc.stdout.readline()
        if not ready:
            raise RuntimeError(f"the fork server for {package} did not start (see {self.log.name})")

    def fork(self, request: Dict[str, Any]) -> int:
        with self.lock:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
            return int(json.loads(self.proc.stdout.readline())["pid"])

    def close(self) -> None:
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
        self.log.close()


def child_env(workdir: str) -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "PYTHONPATH", "VIRTUAL_ENV",
                                                           "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "TMPDIR")}
    env.update(PYTHONUNBUFFERED="1", OMP_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false",
               HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TORCHINDUCTOR_CACHE_DIR=os.path.join(workdir, "ind"))
    return env


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie is not alive (the zygote reaps its children, but not at once)
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def run_child(package: str, name: str, workdir: str, zygote: Zygote) -> Dict[str, Any]:
    """Measure one model in a process forked by ``zygote``; return its summarised record (see
    the module docstring)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
    driver = os.path.join(workdir, f"{safe}.py")
    events_path = os.path.join(workdir, f"{safe}.jsonl")
    open(events_path, "w").close()
    started = time.monotonic()
    pid = zygote.fork({"package": package, "name": name, "driver": driver, "events": events_path,
                       "mode_cpu_limit": MODE_CPU_LIMIT_S, "cpu_limit": CPU_LIMIT_S})
    timed_out = False
    while _alive(pid):
        if time.monotonic() - started > WALL_LIMIT_S:
            timed_out = True
            break
        time.sleep(0.1)
    try:
        os.killpg(pid, signal.SIGKILL)  # the model's process and whatever it started
    except OSError:
        pass
    events = []
    with open(events_path, encoding="utf-8") as fh:
        for line in fh:
            try:
                events.append(json.loads(line))
            except ValueError:
                pass  # a line cut by a kill
    record = summarise(events, driver)
    record["wall_s"] = round(time.monotonic() - started, 1)
    if record["status"] == "incomplete":
        if timed_out:
            record.update(status="timeout", message=f"no result within {WALL_LIMIT_S} s of wall-clock time")
        elif any(ev.get("ev") == "cpu_limit" for ev in events):
            record.update(status="timeout", message=f"stopped at the CPU limit of {CPU_LIMIT_S} s")
        else:
            record.update(status="crashed", message="the process ended before the run did (a crash or os._exit)")
    return record


def summarise(events: List[Dict[str, Any]], driver: str) -> Dict[str, Any]:
    """Turn one child's events into the compact truth record."""
    rec: Dict[str, Any] = {"status": "incomplete", "message": "", "setup": None, "cpu_s": None, "modes": {},
                           "breaks": [], "skipped": [], "traced": []}
    breaks: Dict[tuple, set] = {}
    skipped: Dict[tuple, set] = {}
    traced: Dict[tuple, set] = {}
    graphs: Dict[str, int] = {}
    for ev in events:
        kind, mode = ev.get("ev"), ev.get("job")
        if kind == "setup":
            rec["setup"] = ev.get("source")
            if ev.get("status") != "ok":
                rec.update(status="no-setup", message=ev.get("message", ""))
        elif kind == "build" and ev.get("status") != "ok":
            rec.update(status="build-failed", message=ev.get("message", ""))
        elif kind == "mode_end":
            rec["modes"][ev["mode"]] = {"status": ev.get("status"), "cpu_s": ev.get("cpu_s"),
                                        "graphs": graphs.get(ev["mode"], 0), "message": ev.get("message", "")}
            if ev.get("over_limit"):
                rec["modes"][ev["mode"]]["status"] = "over-cpu-limit"
        elif kind == "done":
            rec["cpu_s"] = ev.get("cpu_s")
            modes = rec["modes"]
            if any(m["status"] in ("ok", "compile-error") for m in modes.values()):
                rec["status"] = "measured"
            else:
                rec["status"] = "eager-failed"
                rec["message"] = "; ".join(f"{k}: {m['message']}" for k, m in modes.items())
        elif mode in ("eval", "train"):
            if kind == "graph":
                graphs[mode] = graphs.get(mode, 0) + 1
            elif kind == "break":
                stack = ev.get("user_stack") or []
                site = None
                for fr in reversed(stack):
                    path = site_relative(fr.get("path"), driver)
                    if path is not None:
                        site = (path, fr.get("line"))
                        break
                if site is not None:
                    key = site + (ev.get("gb_id") or ev.get("gb_type") or "?", ev.get("outcome"))
                    breaks.setdefault(key, set()).add(mode)
                if ev.get("outcome") == "skipped":
                    path = site_relative(ev.get("frame_path"), driver)
                    if path is not None:
                        name = frame_name(ev.get("frame"))
                        skipped.setdefault((path, name, ev.get("frame_line")), set()).add(mode)
            elif kind == "frame_failed" or (kind == "frame" and ev.get("user") and not ev.get("has_guarded_code")
                                            and ev.get("fail_type")):
                path = site_relative(ev.get("path"), driver)
                if path is not None:
                    skipped.setdefault((path, frame_name(ev.get("function")), ev.get("first_line")), set()).add(mode)
            elif kind == "traced":
                path = site_relative(ev.get("path"), driver)
                if path is not None and path != "<driver>":
                    traced.setdefault((path, ev.get("qualname"), ev.get("line")), set()).add(mode)
    for m, info in rec["modes"].items():
        info["graphs"] = graphs.get(m, 0)
    # what a mode saw counts only when the mode was measured: a compiled call that raised because
    # the model itself fails (eager-failed) observed Dynamo on a broken program, and a mode over
    # the CPU limit is not measured (README)
    ran = {m for m, info in rec["modes"].items() if info["status"] in ("ok", "compile-error")}
    rec["breaks"] = sorted([*k, sorted(v & ran)] for k, v in breaks.items() if v & ran)
    rec["skipped"] = sorted([*k, sorted(v & ran)] for k, v in skipped.items() if v & ran)
    rec["traced"] = sorted([list(t) for t, v in traced.items() if v & ran])
    return rec


def env_versions(package: str) -> Dict[str, Optional[str]]:
    """``{"version", "torch", "python"}`` of the environment that measures ``package``
    (:func:`spec.python_for`), asked of its interpreter."""
    from spec import PACKAGES, python_for
    dist = PACKAGES[package].get("dist", package)
    code = ("import json, sys\nfrom importlib import metadata\n"
            "def v(d):\n    try:\n        return metadata.version(d)\n    except Exception:\n        return None\n"
            f"print(json.dumps({{'version': v({dist!r}), 'torch': v('torch'), "
            "'python': '%d.%d' % sys.version_info[:2]}))")
    out = subprocess.run([python_for(package), "-c", code], check=True, stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out)


def truth_path(package: str) -> str:
    return os.path.join(HERE, "truth", f"{package}.json")


def load_truth(package: str) -> Dict[str, Any]:
    path = truth_path(package)
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    return {}


def write_truth(package: str, truth: Dict[str, Any]) -> None:
    """Compact JSON, one model a line, written atomically."""
    path = truth_path(package)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    head = {k: v for k, v in truth.items() if k != "models"}
    lines = [json.dumps(head, sort_keys=True)[:-1] + ', "models": {']
    models = truth.get("models", {})
    for i, name in enumerate(sorted(models)):
        sep = "," if i < len(models) - 1 else ""
        lines.append(f"{json.dumps(name)}: {json.dumps(models[name], sort_keys=True, separators=(',', ':'))}{sep}")
    lines.append("}}")
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    os.replace(tmp, path)


def measure(package: str, names: List[str], jobs: int, log=print) -> Dict[str, Any]:
    """Measure ``names`` of ``package`` (``jobs`` children at a time) and merge them into its
    truth file; return the truth."""
    truth = load_truth(package)
    truth.update(package=package, **env_versions(package))
    truth.setdefault("models", {})
    workdir = tempfile.mkdtemp(prefix=f"gblint-eco-{package}-")
    done = 0
    zygote = Zygote(package, workdir)

    def one(name):
        return name, run_child(package, name, workdir, zygote)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for name, record in pool.map(one, names):
            truth["models"][name] = record
            done += 1
            modes = ",".join(f"{m}={v['status']}" for m, v in record["modes"].items())
            log(f"[{done}/{len(names)}] {package} {name}: {record['status']} {modes} "
                f"{len(record['breaks'])} breaks, {len(record['skipped'])} skipped, {len(record['traced'])} traced, "
                f"{record.get('cpu_s')} s CPU {record['message'][:120]}")
            write_truth(package, truth)
    zygote.close()
    return truth
