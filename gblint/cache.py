"""Per-file summaries cached by content hash, so a second run reads only what changed.

A summary depends on the file's text, its module name, gblint's version and the dynamo
config the rules read; all of them go into the key. Entries are pickles under
``<cache dir>/<key[:2]>/<key>.pickle``; an unreadable entry is a miss, never an error.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from typing import Optional

from . import __version__

FORMAT = 1


def content_key(fingerprint: str, path: str, module: str, text: str) -> str:
    """The cache key of a file's summary: everything it depends on, hashed."""
    h = hashlib.sha256()
    for part in (fingerprint, os.path.abspath(path), module, text):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()


class SummaryCache:
    """A directory of pickled :class:`gblint.summary.FileSummary` objects."""

    def __init__(self, directory: str, fingerprint: str = ""):
        self.directory = directory
        self.fingerprint = f"{__version__}/{FORMAT}/{fingerprint}"
        self.hits = 0
        self.misses = 0

    def key(self, path: str, module: str, text: str) -> str:
        return content_key(self.fingerprint, path, module, text)

    def _file(self, key: str) -> str:
        return os.path.join(self.directory, key[:2], key + ".pickle")

    def get(self, key: str):
        try:
            with open(self._file(key), "rb") as fh:
                value = pickle.load(fh)
        except Exception:  # missing, truncated or from another version: recompute
            self.misses += 1
            return None
        self.hits += 1
        return value

    def put(self, key: str, summary) -> None:
        target = self._file(key)
        try:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), suffix=".tmp")
            with os.fdopen(fd, "wb") as fh:
                pickle.dump(summary, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, target)
        except (OSError, pickle.PickleError, RecursionError):
            pass  # a cache that cannot be written only costs speed


def default_cache_dir(root: str) -> str:
    return os.path.join(os.path.abspath(root), ".gblint_cache")


def settings_fingerprint(settings) -> str:
    """What besides a file's text decides its summary: dynamo config, and gblint's own code
    (sizes and mtimes of its modules, so an edited rule never reads a stale summary)."""
    items = sorted((k, repr(v)) for k, v in settings.dynamo_config.items())
    return repr(items) + repr(settings.torch_version) + _code_stamp()


def _code_stamp() -> str:
    import gblint
    import gblint.rules
    stamps = []
    for pkg in (gblint, gblint.rules):
        directory = os.path.dirname(pkg.__file__)
        for name in sorted(os.listdir(directory)):
            if name.endswith(".py"):
                st = os.stat(os.path.join(directory, name))
                stamps.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha256("|".join(stamps).encode()).hexdigest()[:16]


def maybe_cache(settings, enabled: bool, directory: Optional[str]) -> Optional[SummaryCache]:
    """A cache under ``directory`` (default ``.gblint_cache`` at the configuration root), or None."""
    if not enabled:
        return None
    directory = directory or default_cache_dir(settings.root)
    try:
        os.makedirs(directory, exist_ok=True)
        marker = os.path.join(directory, ".gitignore")
        if not os.path.exists(marker):
            with open(marker, "w") as fh:
                fh.write("# Automatically created by gblint.\n*\n")
    except OSError:
        return None
    return SummaryCache(directory, settings_fingerprint(settings))
