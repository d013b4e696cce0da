"""gblint's runtime check (``pip install -e ".[runtime]"`` in the checkout): turn predictions into facts.

It compiles the code gblint flagged with ``torch.compile``, observes what Dynamo really does
(graphs, graph breaks and their outcome, skipped frames, recompiles, compile errors, and under
Inductor the code generator of each graph), and says for every static diagnostic whether it
was ``confirmed``, ``refuted`` or ``not_reached``, and for every observed break whether gblint
predicted it.

Layout (only :mod:`.observer` and :mod:`.child` import torch, and only inside the child
process; gblint's own process never imports torch or runs the user's code):

- :mod:`.observer`: the hooks and the recording backend ``"gblint"``.
- :mod:`.child`: ``python -m gblint.runtime_check.child --request FILE``, runs jobs.
- :mod:`.runner`: starts children with a clean environment and a time limit; builds runs.
- :mod:`.plan`: what to run for a file (``main()``, compiled regions, ``--run`` commands).
- :mod:`.matching`: diagnostics vs observations, precision and recall.
- :mod:`.stages`: under Inductor, an eager breaks stage, then the build as its own stage.
- :mod:`.report`, :mod:`.cli`: ``gblint confirm``, ``gblint check --confirm``.
- :mod:`.pytest_plugin`: ``pytest -p gblint.runtime_check.pytest_plugin --gblint-confirm``.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence


def confirm_file(path: str, entry: Optional[str] = None, examples: Optional[List[str]] = None,
                 backend: str = "inductor", device: str = "cpu", timeout: float = 120.0,
                 settings: Any = None) -> Dict[str, Any]:
    """Run one file (its ``main()``, its compiled regions, or ``entry`` = ``module:function``
    loaded from ``path``) in a child process and match the observations with gblint's
    diagnostics for it. ``timeout`` is in seconds per run. Returns the ``gblint confirm
    --format json`` document. Raises ``ValueError`` for a bad ``entry``; never raises for what
    the user's code does (hangs, crashes and exits are in the runs' ``status``)."""
    import os

    from .cli import confirm
    from .plan import ConfirmConfig, entry_job, plan_files
    from .report import document
    from .runner import Options
    if settings is None:
        from gblint.settings.config import Settings
        settings = Settings()
    if entry:
        jobs, unrunnable = [entry_job(path, entry, examples)], []
    else:
        jobs, unrunnable = plan_files([path], settings, ConfirmConfig(), examples)
    options = Options(backend=backend, device=device, timeout=timeout)
    runs, result, _, build = confirm(jobs, options, settings, [path], [os.path.dirname(os.path.abspath(path))])
    return document(runs, result, unrunnable, build)


__all__: Sequence[str] = ("confirm_file",)
