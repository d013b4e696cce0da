"""The result of a run (:class:`Report`), what every output prints: kept apart from the engine
so that printing a stored report (:mod:`gblint.project.results`) loads none of the analysis."""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional

from ..core.codes import NOT_CHECKED
from ..core.diagnostics import Diagnostic


@dataclasses.dataclass
class Report:
    """The result of a run: diagnostics sorted by path and line, files checked, and gblint's
    own failures (``errors``: ``{"path", "message"}``; they make the exit code 2)."""

    diagnostics: List[Diagnostic]
    files_checked: int
    errors: List[Dict[str, str]]
    coverage: Optional[Dict[str, list]] = None
    hidden: int = 0  # diagnostics found but left out by select/ignore/per-file-ignores or a noqa comment
    versions: Optional[Dict[str, str]] = None  # the torch and Python predicted for (gblint.core.versions.describe)
    unfollowed: List[Dict[str, object]] = dataclasses.field(default_factory=list)  # see calltree.unfollowed_records
    baselined: int = 0  # diagnostics found but left out because the baseline file lists them
    # conditional diagnostics left out by `conditional` (Settings): their break lies in a followed package
    conditional_hidden: int = 0
    regions_found: int = 0  # compiled regions found
    # checked files that compile something but switch Dynamo off at their top (dynamo.entries.switched_off)
    switched_off: List[str] = dataclasses.field(default_factory=list)
    # what was not analysed, as notes for flake8 and the editor (GBL005/GBL006, reporting.coverage_notes)
    notes: List[Diagnostic] = dataclasses.field(default_factory=list)

    @property
    def complete(self) -> bool:
        """Whether the analysis was complete (JSON ``coverage.complete``, "All checks passed"): a region
        found, every call of it followed, every file and compile call read (no ``GBL000``-``GBL003``), no error."""
        return bool(self.regions_found) and not (self.unfollowed or self.errors) \
            and all(d.code not in NOT_CHECKED for d in self.diagnostics)

    def to_json(self) -> dict:
        """The report as the JSON output prints it."""
        out = {"version": 1, "files_checked": self.files_checked, **({"versions": self.versions} if self.versions else {}),
               "diagnostics": [d.to_json() for d in self.diagnostics], "errors": self.errors}
        if self.conditional_hidden:
            out["conditional_hidden"] = self.conditional_hidden
        if self.coverage is not None:
            out["coverage"] = dict(self.coverage, complete=self.complete)
        return out
