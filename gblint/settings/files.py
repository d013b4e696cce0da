"""The files a run checks: :class:`SourceFile`, and the walk that expands the paths named into
Python files (:func:`iter_python_files`)."""
from __future__ import annotations

import dataclasses
import os
from typing import List, Optional, Sequence, Tuple

from .config import DEFAULT_EXCLUDE, Settings
from .gitignore import GitIgnore


@dataclasses.dataclass
class SourceFile:
    """A file to check: ``text`` None means read it from ``path``; ``module`` overrides the
    (dotted name, is_package) pair computed from the path."""

    path: str
    text: Optional[str]
    module: Optional[Tuple[str, bool]] = None


def iter_python_files(paths: Sequence[str], settings: Settings) -> List[str]:
    """Expand files and folders into ``.py``/``.pyi`` files, skipping excluded and git-ignored ones
    (every ``.gitignore`` as git reads it: :mod:`gblint.settings.gitignore`; not with
    ``respect_gitignore=False``).

    A path named explicitly is always checked unless excluded by configuration.
    """
    out: List[str] = []
    seen = set()
    for path in paths:
        if os.path.isdir(path):
            ignores = {path: GitIgnore.above(path) if settings.respect_gitignore else None}
            for root, dirs, files in os.walk(path):
                ignore, here = ignores.pop(root), os.path.abspath(root)
                if ignore is not None:
                    ignore = ignore.child(here, files)
                kept = []
                for d in sorted(dirs):
                    full = os.path.join(root, d)
                    if d in DEFAULT_EXCLUDE or d.startswith(".") or settings.excluded(full) or (
                            ignore is not None and ignore.ignored(os.path.join(here, d), True)):
                        continue
                    kept.append(d)
                    ignores[full] = ignore
                dirs[:] = kept
                for f in sorted(files):
                    if f.endswith((".py", ".pyi")):
                        full = os.path.join(root, f)
                        if settings.excluded(full) or (ignore is not None
                                                       and ignore.ignored(os.path.join(here, f), False)):
                            continue
                        if full not in seen:
                            seen.add(full)
                            out.append(full)
        elif not settings.excluded(path) and path not in seen:
            seen.add(path)
            out.append(path)
    return out
