"""Run generated programs under Dynamo in one warm child process, check them with gblint, compare.

The child (``python3 tests/soundness/runner.py --serve``) installs gblint's runtime observer exactly as
``scripts/measure_fixtures.py`` does for the measured programs (:func:`measure_fixtures.install_observer`: the
``Observer`` hooks plus ``convert_frame.exception_handler``/``format_error_msg``, eager backend, CPU), then
reads one request per line on its standard input (``{"program": path, "events": path}``), and for each:
``torch._dynamo.reset()``, ``torch.manual_seed(0)``, loads the program and calls its ``main()``
(:func:`measure_fixtures.run_main`), writes the events to the request's file and answers ``done`` on its own
channel (the program's ``print`` goes to ``/dev/null``). The events are turned into an observation by
``measure_fixtures.summarize``: break sites (line, GB id, outcome), skipped frames, compile errors, frames
declined at no cost, graphs, the exception that escaped ``main()``.

The parent (:class:`Child`) starts the child in its own process group, waits for each answer at most
``timeout`` seconds, and on a timeout or a crash kills the whole group (and anything the program started) and
starts a new child for the next program; a program that timed out gets the observation ``{"timeout": True}``.

:func:`judge` compares gblint's diagnostics with an observation exactly as tests/test_measured.py compares its
programs (:func:`tests.test_measured.differences`, which scores as ``scripts/score.py``), twice: the
definite diagnostics alone, whose ``false ...`` items are wrong definite diagnostics (what the property
forbids), and all diagnostics, whose ``missed ...`` items are what gblint did not report at all (recorded only).
"""
from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any, Dict, List, Optional, Sequence

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MEASURE = os.path.join(ROOT, "scripts", "measure_fixtures.py")
EFFECTS = ("break", "skip", "error")
RESTART_EVERY = 400  # programs per child before a fresh one (bounds what Dynamo and the modules keep)


def _measure_module():
    """scripts/measure_fixtures.py as a module (it is a script, not a package member)."""
    import importlib.util
    mod = sys.modules.get("gblint_measure_fixtures")
    if mod is None:
        spec = importlib.util.spec_from_file_location("gblint_measure_fixtures", MEASURE)
        mod = importlib.util.module_from_spec(spec)
        sys.modules["gblint_measure_fixtures"] = mod
        spec.loader.exec_module(mod)
    return mod


# ------------------------------------------------------------------------------------------------ child side


def serve() -> None:
    """The child's loop (module docstring). Answers ``ready`` once the observer is installed, then ``done`` per
    request, on the file descriptor that was standard output; the programs' own output goes to /dev/null."""
    reply = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    sys.stdout = open(os.devnull, "w")
    measure = _measure_module()
    current: List[Any] = [None]

    def sink(ev: Dict[str, Any]) -> None:
        if current[0] is not None:
            current[0].write(json.dumps(ev, default=str) + "\n")

    flush = measure.install_observer(sink)
    import torch
    import torch._dynamo

    reply.write("ready\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        program = req["program"]
        with open(req["events"], "w", encoding="utf-8") as out:
            current[0] = out
            torch._dynamo.reset()
            torch.manual_seed(0)
            folder = os.path.dirname(os.path.abspath(program))
            escaped = measure.run_main(program)
            flush()
            sink({"ev": "end", "exception": escaped})
            current[0] = None
        while folder in sys.path:
            sys.path.remove(folder)
        sys.modules.pop(os.path.splitext(os.path.basename(program))[0], None)
        reply.write("done\n")


# ------------------------------------------------------------------------------------------------ parent side


class Child:
    """A warm child process running programs one after another (module docstring). ``timeout``: seconds one
    program may take (float); ``start_timeout``: seconds the child may take to import torch. Use as a context
    manager, or call :meth:`close`: the child's process group is killed on close."""

    def __init__(self, timeout: float = 60.0, start_timeout: float = 180.0):
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.proc: Optional[subprocess.Popen] = None
        self.served = 0
        self.stderr = None

    def __enter__(self) -> "Child":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _start(self) -> None:
        env = _measure_module()._clean_env()
        env["PYTHONWARNINGS"] = "ignore"
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.stderr, env=env, cwd=tempfile.gettempdir(),
                                     text=True, start_new_session=True)
        self.served = 0
        if self._answer(self.start_timeout) != "ready":
            tail = self._stderr_tail()
            self.close()
            raise RuntimeError(f"the soundness child did not start:\n{tail}")

    def _answer(self, timeout: float) -> Optional[str]:
        """The child's next answer line, or None when it did not come within ``timeout`` seconds or the child
        died."""
        assert self.proc is not None and self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            return None
        line = self.proc.stdout.readline()
        return line.strip() or None

    def _stderr_tail(self) -> str:
        if self.stderr is None:
            return ""
        self.stderr.seek(0)
        return self.stderr.read()[-3000:].decode("utf-8", "replace")

    def close(self) -> None:
        """Kill the child's whole process group (the child and anything a program started) and reap it."""
        proc, self.proc = self.proc, None
        if proc is not None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            proc.wait()
            for stream in (proc.stdin, proc.stdout):
                try:
                    stream.close()
                except (OSError, ValueError, BrokenPipeError):
                    pass
        if self.stderr is not None:
            self.stderr.close()
            self.stderr = None

    def run(self, program: str) -> Dict[str, Any]:
        """Run ``program`` (a path) and return its observation (``measure_fixtures.summarize``), or
        ``{"timeout": True}`` / ``{"crash": stderr tail}`` when the child did not answer (it is then killed and
        the next call starts a new one)."""
        if self.proc is None or self.served >= RESTART_EVERY:
            self.close()
            self._start()
        events_path = os.path.splitext(program)[0] + ".events.jsonl"
        try:
            self.proc.stdin.write(json.dumps({"program": program, "events": events_path}) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        answer = self._answer(self.timeout)
        self.served += 1
        if answer != "done":
            timed_out = self.proc.poll() is None
            tail = self._stderr_tail()
            self.close()
            return {"timeout": True} if timed_out else {"crash": tail}
        with open(events_path, encoding="utf-8") as fh:
            events = [json.loads(line) for line in fh if line.strip()]
        os.unlink(events_path)
        return _measure_module().summarize(events, program)


def predict(path: str) -> List[Dict[str, Any]]:
    """gblint's JSON diagnostics for the program at ``path`` (torch 2.13.0, Python 3.11, as the measured
    programs are predicted); asserts the check had no error."""
    from gblint.settings.config import Settings
    from gblint.project.engine import check_paths
    report = check_paths([path], Settings(python_version=(3, 11), torch_version="2.13.0"))
    assert report.errors == [], report.errors
    return [d.to_json() for d in report.diagnostics]


def judge(name: str, diags: Sequence[Dict[str, Any]], obs: Dict[str, Any]) -> Dict[str, Any]:
    """Compare gblint's diagnostics ``diags`` (JSON, of program file ``name``) with the observation ``obs``.

    Returns ``{"wrong": {...}, "wrong_gb_ids": [...], "missed": {...}}``: ``wrong`` holds the ``false ...``
    items of :func:`tests.test_measured.differences` over the definite break/skip/error diagnostics only (a
    definite break where Dynamo did not break, a definite skip of a frame Dynamo compiled, a definite compile
    error that did not happen); ``wrong_gb_ids`` its ``gb ids`` items (a definite diagnostic at a real break site
    that names other GB ids than Dynamo's); ``missed`` the ``missed ...`` items over every diagnostic."""
    from tests.test_measured import differences
    definite = [d for d in diags if d.get("certainty") == "definite" and d.get("effect") in EFFECTS]
    sure = differences(name, definite, obs)
    every = differences(name, list(diags), obs)
    return {"wrong": {k: v for k, v in sure.items() if k.startswith("false ")},
            "wrong_gb_ids": sure.get("gb ids", []),
            "missed": {k: v for k, v in every.items() if k.startswith("missed ")}}


def check_program(child: Child, folder: str, index: int, source: str) -> Dict[str, Any]:
    """Write ``source`` as ``folder/p{index}.py``, predict it, run it in ``child`` and judge it. Returns
    ``{"name", "diagnostics", "observation", "wrong", "wrong_gb_ids", "missed", "seconds"}`` (``seconds``:
    the run's wall time; the observation may be a timeout or crash record, then nothing is judged)."""
    name = f"p{index:05d}.py"
    path = os.path.join(folder, name)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(source)
    diags = predict(path)
    start = time.perf_counter()
    obs = child.run(path)
    seconds = time.perf_counter() - start
    result = {"name": name, "diagnostics": diags, "observation": obs, "seconds": seconds,
              "wrong": {}, "wrong_gb_ids": [], "missed": {}}
    if "breaks" in obs:
        result.update(judge(name, diags, obs))
    return result


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        sys.path.insert(0, ROOT)
        serve()
