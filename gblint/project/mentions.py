"""What the modules of followed packages mention, kept across runs (issue 39).

To follow ``from M import *`` chains without parsing every module on them, the loader asks whether a
module's text mentions a word, or may bind it (:meth:`gblint.project.engine.Loader.may_define`, ``may_bind``):
on a warm Llama run over transformers, 1,200 questions that read 7,300 files (45 MB, a fifth of the
run). The answers depend only on the package's ``.py`` files, so they are stored in the cache folder
under a stamp of the package: every ``.py`` file's path, size and modification time (one ``scandir``
walk, 20 ms for transformers' 2,900 files), and gblint's own fingerprint (its code, which holds the
patterns). A file added, removed or changed in the package gives another stamp, so the answers are
asked again. The stored file is data only (a map of words to booleans, msgpack); one that does not
read as such is ignored.
"""
from __future__ import annotations

import hashlib
import os
from typing import Callable, Dict, Optional, Set

import msgpack

from .cache import read_regular_file, write_atomically
from ..core.fs import module_text_matches


class Mentions:
    """The answers of one run, by package root, read from and saved to ``directory`` (None: kept in
    memory only) under ``fingerprint`` (what besides the package decides them: gblint's code)."""

    def __init__(self, directory: Optional[str], fingerprint: str = "", stamps: Optional[Dict[str, Optional[str]]] = None):
        self.directory = directory
        self.fingerprint = fingerprint
        self.stamps = {} if stamps is None else stamps  # package root -> package_stamp (None: unreadable)
        self._answers: Dict[str, Dict[str, bool]] = {}  # package root -> key -> answer
        self._files: Dict[str, Optional[str]] = {}  # package root -> where its answers are stored
        self._changed: Set[str] = set()

    def matches(self, root: str, base: str, key: str, word: str, pattern: Callable) -> bool:
        """Whether the module at ``base`` (under the package folder ``root``; see
        :func:`gblint.core.fs.module_text_matches`) has text containing ``word`` that matches
        ``pattern()`` (a compiled expression, made only when the answer is not known); ``key``
        names the question within the package."""
        answers = self._answers.get(root)
        if answers is None:
            answers = self._answers[root] = self._load(root)
        found = answers.get(key)
        if found is None:
            found = answers[key] = module_text_matches(base, word, pattern())
            self._changed.add(root)
        return found

    def stamp(self, root: str) -> Optional[str]:
        """:func:`package_stamp` of ``root``, taken once (before its files are read); None when it cannot be read."""
        if root not in self.stamps:
            try:
                self.stamps[root] = package_stamp(root)
            except OSError:
                self.stamps[root] = None
        return self.stamps[root]

    def save(self) -> None:
        """Store the answers found in this run (a failure only costs speed). Never raises."""
        for root in self._changed:
            target = self._files.get(root)
            if target is None:
                continue
            try:
                os.makedirs(os.path.dirname(target), exist_ok=True)
                write_atomically(target, msgpack.packb(self._answers[root]))
            except (OSError, ValueError, TypeError):
                pass
        self._changed.clear()

    def _load(self, root: str) -> Dict[str, bool]:
        self._files[root] = None
        if self.directory is None:
            return {}
        stamp = self.stamp(root)
        if stamp is None:
            return {}
        name = hashlib.sha256(f"{self.fingerprint}\0{os.path.abspath(root)}\0{stamp}".encode()).hexdigest()
        self._files[root] = target = os.path.join(self.directory, "mentions", name + ".msgpack")
        try:
            answers = msgpack.unpackb(read_regular_file(target), raw=False)
        except Exception:  # missing, truncated or not ours: asked again
            return {}
        if type(answers) is not dict or not all(type(k) is str and type(v) is bool for k, v in answers.items()):
            return {}
        return answers


def package_stamp(root: str) -> str:
    """A digest of the path, size and modification time of every ``.py`` file under ``root``, through
    links to folders (a package's subpackage may be one: imports follow it), each real folder once.
    Raises OSError when ``root`` cannot be read."""
    h = hashlib.sha256()
    stack = [root]
    seen = {os.path.realpath(root)}
    while stack:
        with os.scandir(stack.pop()) as it:
            entries = sorted(it, key=lambda e: e.name)
        for e in entries:
            if e.is_dir():
                real = os.path.realpath(e.path)
                if real not in seen:
                    seen.add(real)
                    stack.append(e.path)
            elif e.name.endswith(".py"):
                st = e.stat()
                h.update(f"{e.path}\0{st.st_size}\0{st.st_mtime_ns}\n".encode("utf-8", "surrogatepass"))
    return h.hexdigest()
