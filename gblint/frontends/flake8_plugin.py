"""flake8 front end: ``flake8 --select GBL``.

flake8 hands each file to :class:`GblintChecker`. The checker runs the same engine as
``gblint check`` on *every* Python file flake8 was given (its paths, expanded as gblint expands
them) as one project, once per process, and reports this file's share: a break in
``model.py`` reached from ``main.py`` is found by ``flake8 main.py model.py`` as by
``gblint check``. The configuration is the nearest ``pyproject.toml`` with ``[tool.gblint]``
(as ``gblint check`` finds it), or ``--gblint-config``; a bad one stops flake8 (exit 2) with
the same one-line error ``gblint check`` prints. The table's ``select``, ``ignore``,
``extend-select``/``extend-ignore`` and ``per-file-ignores`` filter what the plugin reports
exactly as in ``gblint check`` (``per-file-ignores`` matched relative to the configuration root,
whatever flake8's working directory); flake8's own ``--select``, ``--ignore``,
``--extend-ignore``, ``per-file-ignores`` and ``# noqa`` then apply to what is left, as for any
plugin, so a code is reported only when both let it through.
Each message is gblint's one-line message (at most 120 characters; ``gblint check --show-source``
and the editor's hover give the whole explanation). What ``gblint check`` says in its summary
line, that nothing was analysed or that a call was not followed, the plugin reports as the notes
``GBL005`` (line 1 of a file that imports torch but that no compiled region reaches) and
``GBL006`` (at each call not followed), so that an empty report never means "not checked". Columns are 0-based, as flake8 expects. Options (command line
or ``[flake8]`` config): ``--gblint-python-version``, ``--gblint-torch-version``, ``--gblint-nested-graph-breaks``,
``--gblint-config``.
"""
from __future__ import annotations

import os
from typing import Dict, Iterator, List, Optional, Tuple

from .. import __version__


class GblintChecker:
    """flake8 AST plugin; ``tree`` is unused: gblint parses with libcst."""

    name = "gblint"
    version = __version__
    python_version = None
    torch_version = None
    nested_graph_breaks = False
    config_path = None
    filenames: List[str] = []
    _project: Optional[Dict[str, list]] = None  # real path -> diagnostics, once per process

    def __init__(self, tree, filename: str = "stdin", lines=None):
        self.filename = filename
        self.lines = lines

    @classmethod
    def add_options(cls, manager) -> None:
        manager.add_option("--gblint-python-version", parse_from_config=True, default=None,
                           help="Python version whose Dynamo semantics gblint predicts (e.g. 3.11)")
        manager.add_option("--gblint-torch-version", parse_from_config=True, default=None,
                           help="torch version whose Dynamo gblint predicts (e.g. 2.14; default: the installed torch)")
        manager.add_option("--gblint-nested-graph-breaks", parse_from_config=True, action="store_true",
                           default=False, help="predict with torch._dynamo.config.nested_graph_breaks=True")
        manager.add_option("--gblint-config", parse_from_config=True, default=None,
                           help="pyproject.toml whose [tool.gblint] table to read (default: the nearest "
                                "pyproject.toml with one, as `gblint check` finds it)")

    @classmethod
    def parse_options(cls, options) -> None:
        cls.python_version = getattr(options, "gblint_python_version", None)
        cls.torch_version = getattr(options, "gblint_torch_version", None)
        cls.nested_graph_breaks = bool(getattr(options, "gblint_nested_graph_breaks", False))
        cls.config_path = getattr(options, "gblint_config", None)
        cls.filenames = list(getattr(options, "filenames", None) or [])
        cls._project = None
        from ..settings.config import ConfigError
        paths = [p for p in cls.filenames if p != "-"] or ["."]
        try:  # here, in flake8's main process, so that a bad configuration stops the run at once
            cls._settings(paths[0])
        except ConfigError as exc:
            import sys
            print(f"gblint: error: {exc}", file=sys.stderr)
            raise SystemExit(2) from None

    @classmethod
    def _settings(cls, start: str):
        """The run's settings. Raises :class:`gblint.settings.config.ConfigError` for a bad configuration."""
        from ..settings.config import find_pyproject, load_settings, parse_python_version, parse_torch_version, settle_versions
        from ..core.versions import FROM_OPTION
        settings = load_settings(cls.config_path or find_pyproject(start))
        settings.jobs = 1  # flake8's own workers are daemonic: they cannot start a process pool
        # select/ignore/per-file-ignores stay as the table sets them: the engine filters with them
        # (Settings.selected, from the configuration root), flake8 filters what is left
        if cls.python_version:
            settings.python_version = parse_python_version(cls.python_version, "--gblint-python-version")
            settings.python_source = FROM_OPTION
        if cls.torch_version:
            settings.torch_version = parse_torch_version(cls.torch_version, "--gblint-torch-version")
            settings.torch_source = FROM_OPTION
        settle_versions(settings, start)
        if cls.nested_graph_breaks:
            settings.dynamo_config["nested_graph_breaks"] = True
        return settings

    @classmethod
    def _project_report(cls) -> Dict[str, list]:
        """Diagnostics of every file flake8 was given, checked together, by real path."""
        if cls._project is None:
            from ..project.engine import SourceFile, check_sources, iter_python_files
            paths = [p for p in cls.filenames if p != "-"] or ["."]
            settings = cls._settings(paths[0])  # checked by parse_options
            files = [SourceFile(p, None) for p in iter_python_files(paths, settings)]
            by_path: Dict[str, list] = {}
            report = check_sources(files, settings)
            for d in report.diagnostics + report.notes:
                by_path.setdefault(os.path.realpath(d.path), []).append(d)
            cls._project = by_path
        return cls._project

    def run(self) -> Iterator[Tuple[int, int, str, type]]:
        from ..project.engine import SourceFile, check_sources
        from ..core.source import SourceError, read_source
        try:
            text = "".join(self.lines) if self.lines is not None else read_source(self.filename)
        except SourceError as exc:
            d = exc.diagnostic
            yield d.line, d.column - 1, f"{d.code} {d.message}", type(self)
            return
        real = os.path.realpath(self.filename)
        project = self._project_report()
        if real in project or (os.path.isfile(real) and self._on_disk(real, text)):
            diagnostics = project.get(real, [])
        else:  # standard input, or a buffer that differs from the file: this text alone
            settings = self._settings(self.filename if os.path.exists(self.filename) else ".")
            report = check_sources([SourceFile(self.filename, text)], settings)
            diagnostics = sorted(report.diagnostics + report.notes, key=lambda d: d.sort_key())
        for d in diagnostics:
            if d.code == "GBL001":
                continue  # flake8 reports syntax errors itself (E999)
            yield d.line, max(0, d.column - 1), f"{d.code} {d.headline}", type(self)  # one line; the rest: --show-source

    @staticmethod
    def _on_disk(path: str, text: str) -> bool:
        """Whether ``path`` holds ``text`` (the project run read the file, not flake8's lines)."""
        from ..core.source import SourceError, read_source
        try:
            return read_source(path) == text
        except SourceError:
            return False
