"""Baseline files: switch gblint on in a large codebase and report only what is new.

``gblint check --write-baseline FILE`` records every diagnostic reported; ``gblint check
--baseline FILE`` (or ``baseline = "FILE"`` in ``[tool.gblint]``) then leaves those out and
reports only the others. A diagnostic is recorded by what does not move when code is added
above it, as mypy's and basedmypy's baselines do: its code, its file (relative to the baseline
file's folder), its frame and the text of its line (whitespace collapsed), never the line
number. Identical keys are counted, so a second copy of a known break is new. The file::

    {"version": 1, "diagnostics": [{"path": "src/model.py", "code": "GBL201",
      "frame": "Net.forward", "source": "print(x)", "count": 1}]}

A missing or malformed baseline is an error (exit 2), never a silent pass.
"""
from __future__ import annotations

import collections
import json
import os
from typing import Counter, Dict, Iterable, List, Optional, Tuple

from ..settings.config import ConfigError
from ..core.diagnostics import Diagnostic

VERSION = 1
Key = Tuple[str, str, str, str]  # (path, code, frame, source)


class _Lines:
    """The lines of each file a report names, read once (empty for one that cannot be read)."""

    def __init__(self):
        self.files: Dict[str, List[str]] = {}

    def text(self, path: str, line: int) -> str:
        if path not in self.files:
            from ..core.source import SourceError, read_source, split_lines
            try:
                self.files[path] = split_lines(read_source(path), keepends=False)
            except (SourceError, OSError, ValueError):
                self.files[path] = []
        lines = self.files[path]
        return " ".join(lines[line - 1].split()) if 0 < line <= len(lines) else ""


def _relative(path: str, folder: str) -> str:
    if path.startswith("<"):
        return path
    try:
        return os.path.relpath(os.path.abspath(path), folder).replace(os.sep, "/")
    except ValueError:  # pragma: no cover - another drive on Windows
        return os.path.abspath(path).replace(os.sep, "/")


def keys(diagnostics: Iterable[Diagnostic], baseline_file: str) -> List[Key]:
    """The baseline key of each diagnostic, in order (see the module docstring)."""
    folder = os.path.dirname(os.path.abspath(baseline_file))
    lines = _Lines()
    return [(_relative(d.path, folder), d.code, d.frame or "", lines.text(d.path, d.line)) for d in diagnostics]


def write(baseline_file: str, diagnostics: Iterable[Diagnostic]) -> int:
    """Write the baseline of ``diagnostics`` to ``baseline_file``; returns how many it records.
    Raises ConfigError when the file cannot be written."""
    counts: Counter[Key] = collections.Counter(keys(list(diagnostics), baseline_file))
    entries = [{"path": p, "code": c, "frame": f or None, "source": s, "count": n}
               for (p, c, f, s), n in sorted(counts.items())]
    text = json.dumps({"version": VERSION, "diagnostics": entries}, indent=1, ensure_ascii=False) + "\n"
    tmp = f"{baseline_file}.{os.getpid()}.tmp"
    try:  # a temporary file and a rename: a run killed meanwhile leaves the old baseline whole
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, baseline_file)
    except OSError as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise ConfigError(f"--write-baseline {baseline_file}: cannot write it: {exc.strerror or exc}") from None
    return sum(counts.values())


def load(baseline_file: str) -> Counter[Key]:
    """The keys a baseline file records, with their counts. Raises ConfigError for a file that
    is missing, is not JSON or does not have the baseline's shape."""
    where = f"baseline {baseline_file}"
    try:
        with open(baseline_file, encoding="utf-8") as fh:
            doc = json.load(fh)
    except FileNotFoundError:
        raise ConfigError(f"{where}: no such file (write one with --write-baseline)") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"{where}: not a baseline file ({exc})") from None
    if not isinstance(doc, dict) or doc.get("version") != VERSION or not isinstance(doc.get("diagnostics"), list):
        raise ConfigError(f"{where}: not a gblint baseline (expected {{\"version\": {VERSION}, \"diagnostics\": [...]}})")
    out: Counter[Key] = collections.Counter()
    for i, e in enumerate(doc["diagnostics"]):
        ok = isinstance(e, dict) and all(isinstance(e.get(k), str) for k in ("path", "code", "source")) and \
            isinstance(e.get("frame"), (str, type(None))) and isinstance(e.get("count", 1), int) and \
            e.get("count", 1) > 0
        if not ok:
            raise ConfigError(f"{where}: entry {i} is not {{\"path\", \"code\", \"frame\", \"source\", \"count\"}}")
        out[(e["path"], e["code"], e["frame"] or "", e["source"])] += e.get("count", 1)
    return out


def apply(diagnostics: List[Diagnostic], baseline_file: str,
          known: Optional[Counter[Key]] = None) -> Tuple[List[Diagnostic], int]:
    """``(new, hidden)``: the diagnostics the baseline does not record, and how many it did.
    Each recorded key hides as many diagnostics as it counts. Raises ConfigError (see
    :func:`load`)."""
    left = collections.Counter(known if known is not None else load(baseline_file))
    new, hidden = [], 0
    for d, key in zip(diagnostics, keys(diagnostics, baseline_file)):
        if left[key] > 0:
            left[key] -= 1
            hidden += 1
        else:
            new.append(d)
    return new, hidden
