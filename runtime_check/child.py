"""The child process: ``python -m gblint.runtime_check.child --request REQUEST.json``.

It is the only place where user code runs. It installs the :class:`~.observer.Observer`, then
runs the request's jobs one after the other and writes every observation to the request's
``events`` file as one JSON object per line, flushed at once (a crash or a kill loses nothing
already seen). The parent (:mod:`gblint.runtime_check.runner`) enforces the time limit and
turns the events into runs.

Request (JSON)::

    {"backend": "inductor", "device": "cpu"|"cuda"|"auto", "events": "/path/events.jsonl",
     "jobs": [{"id": 0, "kind": "entry", "file": "/abs/case.py" | null, "module": "case",
               "function": "main", "examples": ["torch.randn(2, 8)"], "synthesize": true},
              {"id": 1, "kind": "program", "argv": ["train.py", "--lr", "1"], "module": null}]}

Events: ``start``, ``job_start``, ``graph``, ``break``, ``frame``, ``frame_failed``,
``decline``, ``job_end`` (``status``: ``ok``, ``error`` (a ``torch._dynamo`` exception),
``exception`` (any other), ``exited`` (``SystemExit``), ``needs_inputs``, ``import_error``),
``done``. See :mod:`gblint.runtime_check.observer` for the payloads.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import inspect
import json
import os
import runpy
import sys
import threading
import time
import traceback
from typing import Any, Dict, List, Optional


class JsonlSink:
    """Appends one JSON object per line to ``path`` and flushes at once (thread-safe).

    Only the process that opened it writes: a process the user's code forks inherits the
    observer, and its compilations would otherwise be counted as the run's own."""

    def __init__(self, path: str):
        self._fh = open(path, "a", encoding="utf-8", buffering=1)
        self._lock = threading.Lock()
        self.pid = os.getpid()

    def __call__(self, event: Dict[str, Any]) -> None:
        if os.getpid() != self.pid:
            return
        line = json.dumps(event, default=str)
        with self._lock:
            self._fh.write(line + "\n")
            self._fh.flush()


class NeedsInputs(Exception):
    """The entry has parameters without a value that gblint cannot synthesise."""


def _tensor_annotation(ann: Any) -> bool:
    import torch
    if ann is inspect.Parameter.empty:
        return False
    if isinstance(ann, str):
        return ann.split(".")[-1] in ("Tensor",)
    return ann is torch.Tensor or (isinstance(ann, type) and issubclass(ann, torch.Tensor))


def synthesize_args(func, device: str) -> List[Any]:
    """Build positional arguments for ``func`` from its signature: parameters with a default
    keep it; ``torch.Tensor``-annotated ones get ``torch.randn(4, 4)``; ``int``/``float``/
    ``bool`` annotations get ``4``/``1.0``/``True``. Raises :class:`NeedsInputs` naming every
    parameter that needs an ``--example``."""
    import torch
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError) as exc:
        raise NeedsInputs(f"cannot read the signature ({exc}); pass --example for each argument")
    args, missing = [], []
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.default is not p.empty:
            continue
        if p.kind is p.KEYWORD_ONLY:
            missing.append(f"{p.name} (keyword-only)")
            continue
        ann = p.annotation
        if _tensor_annotation(ann):
            args.append(torch.randn(4, 4, device=device))
        elif ann in (int, "int"):
            args.append(4)
        elif ann in (float, "float"):
            args.append(1.0)
        elif ann in (bool, "bool"):
            args.append(True)
        else:
            shown = "" if ann is p.empty else f": {getattr(ann, '__name__', ann)}"
            missing.append(f"{p.name}{shown}")
    if missing:
        raise NeedsInputs("no value for parameter(s) " + ", ".join(missing) +
                          "; pass one --example per positional argument (e.g. --example \"torch.randn(2, 8)\")")
    return args


def _load_module(job: Dict[str, Any]):
    """Import the job's module: by name from ``path_entry`` (keeps relative imports), else from
    ``file`` by location under the job's module name."""
    name = job.get("module") or "__gblint_entry__"
    path = job.get("file")
    if job.get("path_entry"):
        sys.path.insert(0, job["path_entry"])
        if not path or "." in name or not os.path.isfile(path):
            return importlib.import_module(name)
    if not path:
        return importlib.import_module(name)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _target(module, dotted: str, compile_target: bool, fullgraph: bool):
    """The callable for ``dotted`` in ``module``. With ``compile_target``: ``Class.method`` is
    looked up on ``Class()`` (an ``nn.Module``'s ``forward`` becomes the instance itself), and
    ``torch.compile(..., fullgraph=fullgraph)`` is applied unless it is compiled already."""
    import torch
    parts = dotted.split(".")
    obj = module
    if compile_target and len(parts) == 2 and isinstance(getattr(module, parts[0], None), type):
        cls = getattr(module, parts[0])
        try:
            instance = cls()
        except TypeError as exc:
            raise NeedsInputs(f"cannot build `{parts[0]}()` to call `{dotted}` ({exc}); "
                              f"give an entry that builds it with --entry")
        if isinstance(instance, torch.nn.Module) and parts[1] == "forward":
            obj = instance
        else:
            obj = getattr(instance, parts[1])
    else:
        for part in parts:
            obj = getattr(obj, part)
    if compile_target and not _is_compiled(obj):
        obj = torch.compile(obj, fullgraph=fullgraph)
    return obj


def _signature_source(func):
    """What to read the parameters from: a module's ``forward`` (through a compiled
    ``OptimizedModule``), else the callable itself."""
    import torch
    inner = getattr(func, "_orig_mod", func)
    if isinstance(inner, torch.nn.Module):
        return inner.forward
    return func


def _is_compiled(obj) -> bool:
    try:
        from torch._dynamo.eval_frame import OptimizedModule
        if isinstance(obj, OptimizedModule):
            return True
    except Exception:
        pass
    return hasattr(obj, "_torchdynamo_orig_callable") or hasattr(obj, "_torchdynamo_inline")


def describe_exception(observer, exc: BaseException) -> Dict[str, Any]:
    """``{"type", "gb_type", "gb_id", "path", "line", "message", "stack"}`` for an exception
    that escaped the entry; the site is the innermost user frame of Dynamo's ``real_stack``
    (else of the traceback)."""
    from .observer import _first_line, _frames, _qualname
    stack = observer.user_frames(_frames(getattr(exc, "real_stack", None)))
    if not stack:
        tb = traceback.extract_tb(exc.__traceback__)
        stack = observer.user_frames(_frames(tb))
    site = stack[-1] if stack else None
    gb_type = getattr(exc, "gb_type", None)
    return {"type": _qualname(type(exc)), "gb_type": gb_type, "gb_id": observer.gb_id(gb_type),
            "path": site["path"] if site else None, "line": site["line"] if site else None,
            "message": _first_line(exc) or type(exc).__name__, "stack": stack}


def _is_dynamo_error(exc: BaseException) -> bool:
    try:
        from torch._dynamo.exc import TorchDynamoException
        if isinstance(exc, TorchDynamoException):
            return True
    except Exception:
        pass
    return type(exc).__module__.startswith(("torch._dynamo", "torch._inductor"))


class _State:
    """Dynamo and Inductor configuration and the import state, restored after each job so
    that jobs sharing a process do not see each other's settings."""

    def __init__(self):
        import torch._dynamo.config as dcfg
        import torch._inductor.config as icfg
        self.dcfg, self.icfg = dcfg, icfg
        self.dyn = dcfg.get_config_copy()
        self.ind = icfg.get_config_copy()
        self.modules = set(sys.modules)
        self.path = list(sys.path)
        self.argv = list(sys.argv)
        self.cwd = os.getcwd()

    def restore(self) -> None:
        import torch._dynamo
        torch._dynamo.reset()
        for cfg, saved in ((self.dcfg, self.dyn), (self.icfg, self.ind)):
            try:
                cfg.load_config(saved)
            except Exception:
                pass
        for name in set(sys.modules) - self.modules:
            if not name.startswith(("torch", "numpy", "gblint", "sympy", "triton")):
                sys.modules.pop(name, None)
        sys.path[:] = self.path
        sys.argv[:] = self.argv
        try:
            os.chdir(self.cwd)
        except OSError:
            pass


def run_job(observer, job: Dict[str, Any], device: str) -> Dict[str, Any]:
    """Run one job; returns the ``job_end`` payload. Never raises for user errors (they are
    the payload); ``KeyboardInterrupt`` propagates."""
    import torch
    kind = job.get("kind", "entry")
    started = time.perf_counter()
    out: Dict[str, Any] = {"status": "ok"}
    try:
        if kind == "program":
            argv = list(job["argv"])
            sys.argv[:] = argv
            if job.get("path_entry"):
                sys.path.insert(0, job["path_entry"])
            if job.get("module"):
                sys.argv[0] = job["module"]
                runpy.run_module(job["module"], run_name="__main__", alter_sys=True)
            else:
                sys.path[0:0] = [os.path.dirname(os.path.abspath(argv[0]))]
                runpy.run_path(argv[0], run_name="__main__")
        else:
            try:
                module = _load_module(job)
                func = _target(module, job["function"], job.get("compile_target", False), job.get("fullgraph", False))
            except BaseException as exc:
                if isinstance(exc, (KeyboardInterrupt, SystemExit, NeedsInputs)):
                    raise
                out = {"status": "import_error", "exception": describe_exception(observer, exc)}
                return out
            examples = job.get("examples")
            if examples:
                scope = dict(vars(module))
                scope.setdefault("torch", torch)
                args = [eval(text, scope) for text in examples]  # noqa: S307 - the user's own expressions
            elif job.get("synthesize", True):
                args = synthesize_args(_signature_source(func), device)
            else:
                args = []
            result = func(*args)
            if inspect.isgenerator(result):  # a compiled generator function runs when consumed
                for _ in result:
                    pass
    except NeedsInputs as exc:
        out = {"status": "needs_inputs", "message": str(exc)}
    except SystemExit as exc:
        code = exc.code
        if kind == "program" and code in (None, 0):
            out = {"status": "ok"}
        else:
            out = {"status": "exited", "exit_code": code if isinstance(code, int) or code is None else str(code),
                   "message": f"the code called sys.exit({code!r})"}
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        desc = describe_exception(observer, exc)
        out = {"status": "error" if _is_dynamo_error(exc) else "exception",
               ("error" if _is_dynamo_error(exc) else "exception"): desc}
    finally:
        out["seconds"] = round(time.perf_counter() - started, 4)
    return out


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gblint.runtime_check.child")
    ap.add_argument("--request", required=True, help="JSON request file (see the module docstring)")
    ap.add_argument("--parent", type=int, help="pid of the process this one must not outlive")
    args = ap.parse_args(argv)
    with open(args.request, encoding="utf-8") as fh:
        req = json.load(fh)
    if args.parent:
        from .reaper import die_with_parent
        die_with_parent(args.parent)
    sink = JsonlSink(req["events"])
    sink({"ev": "start", "pid": os.getpid(), "python": sys.version.split()[0], "t": time.time()})
    import torch
    from .observer import Observer

    device = req.get("device", "cpu")
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        sink({"ev": "fatal", "message": f"--device cuda, but torch {torch.__version__} sees no CUDA device"})
        return 3
    observer = Observer(sink, backend=req.get("backend", "inductor"), device=device)
    try:
        observer.install()
    except Exception as exc:
        sink({"ev": "fatal", "message": f"cannot install the observer: {type(exc).__name__}: {exc}"})
        return 3
    if device != "cpu":
        torch.set_default_device(device)
    try:
        import numpy
        numpy_version = numpy.__version__
    except Exception:
        numpy_version = None
    sink({"ev": "ready", "torch": torch.__version__, "device": device, "backend": observer.backend,
          "numpy": numpy_version, "cuda": torch.cuda.is_available(), "t": time.time()})
    state = _State()
    for job in req.get("jobs", []):
        observer.job = job["id"]
        observer.emit("job_start")
        try:
            payload = run_job(observer, job, device)
        except KeyboardInterrupt:
            observer.emit("job_end", status="interrupted")
            return 130
        observer.emit("job_end", **payload)
        observer.job = None
        state.restore()
    sink({"ev": "done", "t": time.time()})
    sys.stdout.flush()
    sys.stderr.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
