"""Two stages for a build backend (no torch import): the graph breaks first, then the build.

Under ``--backend inductor`` a confirmation runs its jobs twice, each time in fresh children:

1. **breaks**: under ``eager`` (Dynamo traces exactly as it does for Inductor, but hands each
   graph to eager PyTorch, so this stage takes seconds). Its runs are the report's ``runs``;
   the predictions are matched against them, and their time limit is ``--timeout``.
2. **build**: under Inductor, with its own time limit (``--build-timeout``, default
   ``--timeout``) and its own result (:func:`build_summary`): the kernels it generated, the
   graphs that got them, its time and status. A build that does not finish leaves the breaks
   of stage 1 complete and scored; the command still fails (exit 2: the build is incomplete).

The build stage is not started when the breaks stage did not finish or nothing ran. Any
other backend (``eager``, ``aot_eager``, a registered name) runs once, as before.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Dict, List, Optional, Sequence, Tuple

#: backends whose build is run as its own stage after an ``eager`` breaks stage
BUILD_BACKENDS = ("inductor",)


def staged(options) -> bool:
    """Whether ``options`` (:class:`.runner.Options`) ask for a build backend run in stages."""
    return options.backend in BUILD_BACKENDS and getattr(options, "stages", True)


def build_summary(runs: Sequence[Dict[str, Any]], options, skipped: Optional[str] = None) -> Dict[str, Any]:
    """The build stage's result: ``{"backend", "device", "time_limit", "status" (``ok``, the
    first status that is not ``ok``/``error``/``exception``, or ``not_run``), "message",
    "graphs", "kernels" (generated kernels, all graphs), "compiled_graphs" (graphs with
    generated code), "codegen" (the code generators seen), "seconds", "runs"}``."""
    graphs = [g for r in runs for g in r.get("graphs") or ()]
    bad = [r for r in runs if r.get("status") not in ("ok", "error", "exception")]
    status = "not_run" if skipped else (bad[0].get("status") if bad else "ok")
    message = skipped or (bad[0].get("message") or bad[0].get("status") if bad else None)
    return {"backend": options.backend, "device": options.device, "time_limit": build_timeout(options),
            "status": status, "message": message, "graphs": len(graphs),
            "kernels": sum(int(g.get("kernels") or 0) for g in graphs),
            "compiled_graphs": sum(1 for g in graphs if g.get("codegen")),
            "codegen": sorted({g["codegen"] for g in graphs if g.get("codegen")}),
            "seconds": round(sum(float(r.get("seconds") or 0.0) for r in runs), 3), "runs": list(runs)}


def build_timeout(options) -> float:
    return float(getattr(options, "build_timeout", None) or options.timeout)


def run_stages(jobs, options) -> Tuple[List[Dict[str, Any]], Optional[Dict[str, Any]]]:
    """Run ``jobs``: ``(runs, build)``. Staged (:func:`staged`): ``runs`` of the eager breaks
    stage and the build stage's :func:`build_summary`; otherwise the runs under
    ``options.backend`` and ``None``. Jobs are copied for each stage (run_jobs numbers them)."""
    from .report import incomplete, nothing_ran
    from .runner import run_jobs
    if not staged(options):
        return run_jobs(jobs, options), None
    runs = run_jobs([dataclasses.replace(j) for j in jobs], dataclasses.replace(options, backend="eager"))
    why = nothing_ran(runs) and "not started: nothing ran in the breaks stage"
    why = why or (incomplete(runs) and "not started: the breaks stage did not finish")
    if why:
        return runs, build_summary([], options, skipped=why)
    built = run_jobs([dataclasses.replace(j) for j in jobs],
                     dataclasses.replace(options, timeout=build_timeout(options)))
    return runs, build_summary(built, options)
