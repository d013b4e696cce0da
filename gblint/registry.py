"""PyTorch's graph-break registry, as packaged data (``gblint/data/gb_registry.json``).

The file is written by ``scripts/update_gb_registry.py`` from the installed torch's
``torch/_dynamo/graph_break_registry.json``; gblint reads it at run time and never imports
torch. Each entry: ``gb_type`` (the first line of Dynamo's message), ``explanation``, ``hints``.
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

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "gb_registry.json")


@functools.lru_cache(maxsize=1)
def load() -> dict:
    """``{"torch_version": str, "entries": {id: {...}}}``; raises OSError if the data file is missing."""
    with open(DATA, encoding="utf-8") as fh:
        return json.load(fh)


def torch_version() -> str:
    """The torch version the packaged registry was written from, such as ``"2.13.0"``."""
    return load()["torch_version"]


def entry(gb_id: str) -> Optional[Dict[str, object]]:
    """The registry's entry for ``gb_id`` (``"GB0025"``), or None for an unknown id."""
    return load()["entries"].get(gb_id)


def gb_type(gb_id: str) -> str:
    """The first line of Dynamo's message for ``gb_id``; ``""`` for an unknown id."""
    e = entry(gb_id)
    return str(e["gb_type"]) if e else ""


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
