"""gb_type -> GB id from gblint's own copy of PyTorch's graph-break registry, for the release
of the installed torch (``gblint/data/gb_registry-X.Y.Z.json``: ``{"torch_version", "entries":
{"GB0025": {"gb_type", ...}}}``; :mod:`gblint.core.registry`). No torch import: the parent process
uses it too."""
from __future__ import annotations

import functools
from typing import Dict, Optional


@functools.lru_cache(maxsize=1)
def gb_type_table() -> Dict[str, str]:
    """Every gb_type of the bundled registry of the installed torch's release (the nearest
    measured one, :func:`gblint.core.versions.release_for`) mapped to its GB id (the first id wins when
    two share a gb_type). Empty when the data file is missing or unreadable."""
    from gblint.core import registry, versions
    try:
        data = registry.load(versions.release_for(versions.installed_torch() or versions.NEWEST_TORCH))
    except (OSError, ValueError):
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
