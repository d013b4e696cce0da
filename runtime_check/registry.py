"""gb_type -> GB id from gblint's own copy of PyTorch's graph-break registry
(``gblint/data/gb_registry.json``: ``{"torch_version", "entries": {"GB0025": {"gb_type", ...}}}``).
No torch import: the parent process uses it too."""
from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Dict, Optional


@functools.lru_cache(maxsize=1)
def gb_type_table() -> Dict[str, str]:
    """Every gb_type of the bundled registry mapped to its GB id (the first id wins when two
    versions share a gb_type). Empty when the data file is missing or unreadable."""
    try:
        data = json.loads(resources.files("gblint").joinpath("data/gb_registry.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, ModuleNotFoundError):
        return {}
    table: Dict[str, str] = {}
    for gid, entry in sorted(data.get("entries", {}).items()):
        if isinstance(entry, dict) and entry.get("gb_type"):
            table.setdefault(entry["gb_type"], gid)
    return table


def gb_id_for(gb_type: Optional[str]) -> Optional[str]:
    """The GB id of ``gb_type`` (also accepts a message whose first line is the gb_type), or None."""
    if not gb_type:
        return None
    table = gb_type_table()
    return table.get(gb_type) or table.get(str(gb_type).strip().splitlines()[0])
