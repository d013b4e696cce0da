"""PyTorch's graph-break registry, as packaged data (``gblint/data/gb_registry.json``).

The file is written by ``scripts/update_gb_registry.py`` from the installed torch's
``torch/_dynamo/graph_break_registry.json``; gblint reads it at run time and never imports
torch. Each entry: ``gb_type`` (the first line of Dynamo's message), ``explanation``, ``hints``.
"""
from __future__ import annotations

import functools
import json
import os
from typing import Dict, Optional, Tuple

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "gb_registry.json")


@functools.lru_cache(maxsize=1)
def load() -> dict:
    """``{"torch_version": str, "entries": {id: {...}}}``; raises OSError if the data file is missing."""
    with open(DATA, encoding="utf-8") as fh:
        return json.load(fh)


def torch_version() -> str:
    return load()["torch_version"]


def entry(gb_id: str) -> Optional[Dict[str, object]]:
    return load()["entries"].get(gb_id)


def gb_type(gb_id: str) -> str:
    e = entry(gb_id)
    return str(e["gb_type"]) if e else ""


def version_tuple(text: str) -> Tuple[int, ...]:
    """"2.13.0" -> (2, 13, 0); non-numeric parts end the tuple."""
    out = []
    for part in text.split("+")[0].split("."):
        if not part.isdigit():
            break
        out.append(int(part))
    return tuple(out)


def in_range(version: str, spec: str) -> bool:
    """Whether ``version`` satisfies a spec like ``">=2.6"`` or ``">=2.6,<2.14"``."""
    v = version_tuple(version)
    for clause in filter(None, (c.strip() for c in spec.split(","))):
        for op in (">=", "<=", "==", ">", "<"):
            if clause.startswith(op):
                bound = version_tuple(clause[len(op):])
                n = max(len(v), len(bound))
                a, b = v + (0,) * (n - len(v)), bound + (0,) * (n - len(bound))
                ok = {">=": a >= b, "<=": a <= b, "==": a == b, ">": a > b, "<": a < b}[op]
                if not ok:
                    return False
                break
    return True
