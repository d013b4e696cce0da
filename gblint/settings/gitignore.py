"""``.gitignore`` files read as git reads them, for the walk of :func:`gblint.project.engine.iter_python_files`.

Every ``.gitignore`` applies to its own folder and below, its patterns matched against paths
relative to that folder (:class:`pathspec.GitIgnoreSpec`). For a path, the deepest file with a
pattern that matches decides, and within one file the last matching pattern (``!pattern``
re-includes). A folder that is ignored is not entered, so nothing below it can be re-included,
as in git.

The files above the walked folder apply too, up to the repository's root (the nearest folder
with a ``.git``); outside a repository only the walked tree's own files apply. A folder named
explicitly is walked even when git ignores it: then only the ``.gitignore`` files at and below
it apply.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, List, Optional, Tuple

if TYPE_CHECKING:  # imported where a .gitignore is read
    import pathspec

_Level = Tuple[str, "pathspec.GitIgnoreSpec"]  # (absolute folder, its patterns)


class GitIgnore:
    """The ``.gitignore`` files in force in one folder of a walk: see the module's docstring.

    ``GitIgnore.above(root)`` starts a walk at ``root``; ``child(folder, names)`` gives the
    matcher of a subfolder (reading its ``.gitignore`` if ``names``, its listing, has one);
    ``ignored(path, is_dir)`` decides for an entry of the folder.
    """

    def __init__(self, levels: Tuple[_Level, ...] = ()):
        self.levels = levels  # shallowest first

    @classmethod
    def above(cls, root: str) -> "GitIgnore":
        """The ``.gitignore`` files of the folders above ``root`` in its repository (none when
        ``root`` is not inside one, or when they ignore ``root`` itself)."""
        root = os.path.abspath(root)
        chain: List[str] = []  # the folders above root, up to the repository's root
        d = root
        while not os.path.exists(os.path.join(d, ".git")):
            parent = os.path.dirname(d)
            if parent == d:
                return cls()  # not in a repository: git applies no .gitignore above root
            d = parent
            chain.append(d)
        matcher = cls()
        for folder in reversed(chain):
            matcher = matcher._with(folder)
        return cls() if matcher.ignored(root, True) else matcher

    def child(self, folder: str, names) -> "GitIgnore":
        """The matcher for the entries of ``folder`` (absolute), whose listing is ``names``."""
        return self._with(folder) if ".gitignore" in names else self

    def ignored(self, path: str, is_dir: bool) -> bool:
        """Whether git ignores ``path`` (absolute, normalised, inside the deepest folder this
        matcher has read), a folder if ``is_dir``."""
        for folder, spec in reversed(self.levels):
            rel = path[len(folder):].lstrip(os.sep).replace(os.sep, "/")  # path is below folder
            include = spec.check_file(rel + "/" if is_dir else rel).include
            if include is not None:
                return include
        return False

    def _with(self, folder: str) -> "GitIgnore":
        spec = _read(os.path.join(folder, ".gitignore"))
        return GitIgnore(self.levels + ((folder, spec),)) if spec else self


def _read(path: str) -> Optional[pathspec.GitIgnoreSpec]:
    import pathspec
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    return spec if len(spec) else None
