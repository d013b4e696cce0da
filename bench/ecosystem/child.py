"""Measure one model under torch.compile (Dynamo, eager backend) in one process.

``python child.py --package P --name N --driver DRIVER.py --events EVENTS.jsonl``

Writes the observer's events (see :mod:`gblint.runtime_check.observer`: ``break``, ``frame``,
``frame_failed``, ``graph``, ``traced``) and its own (``setup``, ``mode_start``, ``mode_end``)
as one JSON object per line, flushed at once, so a crash or a kill loses nothing already seen.
The parent (``run.py``) enforces the time limits and summarises the events.

Modes, each after ``torch._dynamo.reset()``: ``eval`` (``model.eval()``, ``torch.no_grad()``,
one forward) and ``train`` (``model.train()``, forward, backward of the sum of the output's
floating tensors). Each mode runs the compiled model first, as the driver does: the eval
mode's call is the model's first, cold one. Only when it raises is the model run without
compiling, so that a model that cannot run at all is told apart from one that Dynamo fails on.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))


class Sink:
    def __init__(self, path):
        self.fh = open(path, "a", encoding="utf-8", buffering=1)

    def __call__(self, event):
        self.fh.write(json.dumps(event, default=str) + "\n")
        self.fh.flush()


def _tensors(out):
    import torch
    if isinstance(out, torch.Tensor):
        yield out
    elif isinstance(out, dict) or hasattr(out, "values") and callable(out.values):
        for v in out.values():
            yield from _tensors(v)
    elif isinstance(out, (list, tuple)):
        for v in out:
            yield from _tensors(v)


def loss_of(out):
    """The sum of the means of every floating tensor in ``out`` that needs a gradient."""
    parts = [t.float().mean() for t in _tensors(out) if t.is_floating_point() and t.requires_grad]
    if not parts:
        raise RuntimeError("the output holds no tensor that needs a gradient")
    return sum(parts)


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:300]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--package", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--driver", required=True, help="where to write the driver (the setup is run from it)")
    ap.add_argument("--events", required=True)
    ap.add_argument("--mode-cpu-limit", type=float, default=60.0)
    a = ap.parse_args(argv)
    return run_model(a.package, a.name, a.driver, a.events, a.mode_cpu_limit)


def preload(package: str) -> None:
    """Import what every model of ``package`` needs (torch, Dynamo, the observer, the package's
    modelling base), so that processes forked from this one start measuring at once."""
    import importlib

    import torch  # noqa: F401
    import torch._dynamo  # noqa: F401

    import gblint.runtime_check.observer  # noqa: F401
    sys.path.insert(0, HERE)
    from spec import PACKAGES
    for mod in PACKAGES[package].get("preload", PACKAGES[package]["follow"]):
        try:
            importlib.import_module(mod)
        except Exception:
            pass  # the model's own import will report it


def run_model(package: str, name: str, driver_path: str, events: str, mode_cpu_limit: float = 60.0) -> int:
    """Measure one model (see the module docstring); every observation goes to ``events``."""
    sink = Sink(events)
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    from spec import catalog, driver
    started = time.process_time()

    def on_cpu_limit(signum, frame):  # RLIMIT_CPU's soft limit: say so before the hard one ends us
        sink({"ev": "cpu_limit", "cpu_s": round(time.process_time() - started, 2)})
        os._exit(3)

    import signal
    signal.signal(signal.SIGXCPU, on_cpu_limit)
    try:
        source = catalog(package).setup(name)
    except Exception as exc:
        sink({"ev": "setup", "status": "no-setup", "message": _short(exc)})
        return 0
    with open(driver_path, "w", encoding="utf-8") as fh:
        fh.write(driver(source))
    sink({"ev": "setup", "status": "ok", "source": source, "cpu_s": round(time.process_time() - started, 2)})

    import torch
    from gblint.runtime_check.observer import Observer
    torch.set_num_threads(1)
    obs = Observer(sink, backend="eager")
    obs.record_traced = True
    obs.install()
    # a real module, as a script's `__main__` is: Dynamo imports the module of classes it inlines
    import types
    module = types.ModuleType("__gblint_driver__")
    module.__file__ = driver_path
    sys.modules[module.__name__] = module
    ns = module.__dict__
    try:
        torch.manual_seed(0)
        exec(compile(source, driver_path, "exec"), ns)
        model = ns["model"]
    except Exception as exc:
        sink({"ev": "build", "status": "build-failed", "message": _short(exc),
              "traceback": traceback.format_exc()[-1500:]})
        return 0
    sink({"ev": "build", "status": "ok", "params": sum(p.numel() for p in model.parameters())})
    pick = ns.get("output", loss_of)
    for mode in ("eval", "train"):
        args = ns.get("train_args" if mode == "train" else "args", ns.get("args", ()))
        kwargs = ns.get("train_kwargs" if mode == "train" else "kwargs", ns.get("kwargs", {}))
        obs.job = None
        torch._dynamo.reset()
        cpu0 = time.process_time()
        sink({"ev": "mode_start", "mode": mode})
        # compiled first, on a model no call has run yet: the driver's first call is a cold one, and
        # state a first call sets up (hooks installed, caches filled) is part of what Dynamo meets
        obs.job = mode
        status, message = "ok", ""
        try:
            torch.manual_seed(0)
            compiled = torch.compile(model)
            if mode == "eval":
                model.eval()
                with torch.no_grad():
                    compiled(*args, **kwargs)
            else:
                model.train()
                loss = pick(compiled(*args, **kwargs))
                loss.backward()
                model.zero_grad(set_to_none=True)
        except Exception as exc:
            status, message = "compile-error", _short(exc)
        obs.job = None
        cpu = time.process_time() - cpu0
        if status == "compile-error":
            # the model as it is, without Dynamo: a failure here is the model's, not Dynamo's
            try:
                torch.manual_seed(0)
                if mode == "eval":
                    with torch.no_grad():
                        model(*args, **kwargs)
                else:
                    loss = pick(model(*args, **kwargs))
                    loss.backward()
                    model.zero_grad(set_to_none=True)
            except Exception as exc:
                status, message = "eager-failed", _short(exc)
        sink({"ev": "mode_end", "mode": mode, "status": status, "message": message,
              "cpu_s": round(cpu, 2), "over_limit": cpu > mode_cpu_limit})
    sink({"ev": "done", "cpu_s": round(time.process_time() - started, 2),
          "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024})
    return 0


if __name__ == "__main__":
    sys.exit(main())
