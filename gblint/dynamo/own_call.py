"""A nested break in code the user does not own, shown again at the call in their code that leads to it.

A break met several calls below a frame of the checked code, in a file of a package followed with
``--follow-imports``, splits that frame (``docs/semantics.md`` rule 4); its diagnostic points into the package. The
author of the checked code can act only at their own call into it, so the consequence walk also reports the break
there (GBL301 at the call), and the two diagnostics name each other.
"""
from __future__ import annotations

import os
from typing import Tuple

from ..core.diagnostics import name_each_other
from ..core.model import Event, Frame, Outcome
from .walk_api import Reporter


def at_own_call(walk: Reporter, loader, frame: Frame, chain, site_frame: Frame, site: Event, trace) -> None:
    """Report through ``walk`` the nested break at ``site`` (in ``site_frame``, reached from ``frame`` through the
    ``(caller, call)`` pairs of ``chain``, whose ``trace`` the diagnostic shows) at ``frame``'s own call, when the
    site is in another file and ``frame`` is not itself in a followed package (``loader``: the project's
    :class:`gblint.dynamo.index` loader, or None)."""
    call = chain[0][1]
    roots = tuple(os.path.join(r, "") for r in (loader.followed.values() if loader is not None else ()))
    if site_frame.path == frame.path or os.path.abspath(frame.path).startswith(roots):
        return
    walk.emit("GBL301", Outcome.RESUME, frame.name, frame.path, call.span,
              f"`{call.call_text}(...)` leads to {site.detail} at {os.path.basename(site_frame.path)}:"
              f"{site.span.line}, a nested graph break that splits `{frame.name}` here.", site.hint,
              site.gb_ids, trace, subject=f"`{call.call_text}(...)`")
    here = walk.sink.emitted.get(("GBL301", frame.path, call.span.line, frame.name))
    diagnostics = walk.diagnostics
    if here is not None and diagnostics[here].trace == trace:  # it names this break (the surer of those met)
        main = next((i for i in range(len(diagnostics) - 1, -1, -1) if i != here and diagnostics[i].line
                     == site.span.line and diagnostics[i].path == site_frame.path), None)
        if main is not None:
            name_each_other(diagnostics, (main, here))


__all__: Tuple[str, ...] = ("at_own_call",)
