"""PyTorch's graph-break registry, as packaged data: one file per measured torch release
(``gblint/data/gb_registry-2.13.0.json``, ``-2.14.1.json``, ``-2.15.0.json``; :data:`RELEASES`).

Each file is written by ``scripts/update_gb_registry.py`` from that release's
``torch/_dynamo/graph_break_registry.json``; gblint reads it at run time and never imports
torch. Each entry: ``gb_type`` (the first line of Dynamo's message), ``explanation``, ``hints``.
Ids are stable across releases, but releases add ids (2.14 has 561, 2.15 has 592), drop some
(GB0060 is gone in 2.14) and reword some: a diagnostic cites the ids and texts of the release in
force (:func:`gblint.core.versions.release_for`).
"""
from __future__ import annotations

import functools
import json
import os
import re
from typing import TYPE_CHECKING, Dict, Optional

if TYPE_CHECKING:  # imported on first use: only a cache miss chooses rules by version
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

#: the torch releases gblint has registry data and measured facts for, oldest first
RELEASES = ("2.13.0", "2.14.1", "2.15.0")
DATA_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")


def data_file(release: str) -> str:
    """The packaged registry file of ``release`` (``"2.14.1"``)."""
    return os.path.join(DATA_DIR, f"gb_registry-{release}.json")


@functools.lru_cache(maxsize=None)
def load(release: Optional[str] = None) -> dict:
    """``{"torch_version": str, "entries": {id: {...}}}`` of ``release`` (one of :data:`RELEASES`;
    default the newest); raises OSError if its data file is missing (a release gblint has no
    data for)."""
    with open(data_file(release or RELEASES[-1]), encoding="utf-8") as fh:
        return json.load(fh)


def torch_version(release: Optional[str] = None) -> str:
    """The torch version a packaged registry was written from, such as ``"2.13.0"``."""
    return load(release)["torch_version"]


def entry(gb_id: str, release: Optional[str] = None) -> Optional[Dict[str, object]]:
    """``release``'s entry for ``gb_id`` (``"GB0025"``), or None for an id it does not have."""
    return load(release)["entries"].get(gb_id)


def gb_type(gb_id: str, release: Optional[str] = None) -> str:
    """The first line of Dynamo's message for ``gb_id`` in ``release``; ``""`` for an id it does
    not have."""
    e = entry(gb_id, release)
    return str(e["gb_type"]) if e else ""


def known(gb_ids, release: Optional[str] = None) -> tuple:
    """The ids of ``gb_ids`` that ``release`` has, in order (a diagnostic never cites an id its
    release does not define)."""
    entries = load(release)["entries"]
    return tuple(i for i in gb_ids if i in entries)


def in_range(version: str, spec: str) -> bool:
    """Whether ``version`` satisfies a spec like ``">=2.6"`` or ``">=2.6,<2.14"``, as pip decides
    with ``prereleases=True`` (PEP 440, :class:`packaging.specifiers.SpecifierSet`).

    A local label is ignored (``"2.13.0+cpu"`` satisfies ``">=2.13"``). A prerelease or dev
    build orders before its release and after the one before: a nightly ``"2.15.0a0"``
    satisfies ``">=2.13"`` and ``"<2.16"`` but neither ``">=2.15"`` nor ``"<2.15"``. A version
    PEP 440 cannot read (the configuration allows ``"2.13foo"``) is taken by its leading
    release numbers, ``"2.13"``; an empty spec holds for every version.
    """
    return _specifier(spec).contains(_version(version), prereleases=True)


@functools.lru_cache(maxsize=None)
def _specifier(spec: str) -> SpecifierSet:
    from packaging.specifiers import SpecifierSet
    return SpecifierSet(spec)


def _version(text: str) -> Version:
    from packaging.version import InvalidVersion, Version
    try:
        return Version(text)
    except InvalidVersion:
        release = re.match(r"[0-9]+(?:\.[0-9]+)*", text.strip())
        return Version(release.group(0) if release else "0")
