"""flake8 front end: ``flake8 --select GBL``.

flake8 hands each file to :class:`GblintChecker`, which runs the same engine as the CLI on
that file's text (reach stays inside the file). Columns are 0-based, as flake8 expects;
``# noqa`` is left to flake8 itself. Options (command line or ``[flake8]`` config):
``--gblint-python-version``, ``--gblint-nested-graph-breaks``, ``--gblint-config``.
"""
from __future__ import annotations

from typing import Iterator, Tuple

from . import __version__


class GblintChecker:
    """flake8 AST plugin; ``tree`` is unused: gblint parses with libcst."""

    name = "gblint"
    version = __version__
    python_version = None
    nested_graph_breaks = False
    config_path = None

    def __init__(self, tree, filename: str = "stdin", lines=None):
        self.filename = filename
        self.lines = lines

    @classmethod
    def add_options(cls, manager) -> None:
        manager.add_option("--gblint-python-version", parse_from_config=True, default=None,
                           help="Python version whose Dynamo semantics gblint predicts (e.g. 3.11)")
        manager.add_option("--gblint-nested-graph-breaks", parse_from_config=True, action="store_true",
                           default=False, help="predict with torch._dynamo.config.nested_graph_breaks=True")
        manager.add_option("--gblint-config", parse_from_config=True, default=None,
                           help="pyproject.toml whose [tool.gblint] table to read")

    @classmethod
    def parse_options(cls, options) -> None:
        cls.python_version = getattr(options, "gblint_python_version", None)
        cls.nested_graph_breaks = bool(getattr(options, "gblint_nested_graph_breaks", False))
        cls.config_path = getattr(options, "gblint_config", None)

    def _settings(self):
        from .config import load_settings, parse_python_version
        settings = load_settings(self.config_path) if self.config_path else load_settings(None)
        settings.select = ("GBL",)  # flake8 does the selecting
        settings.ignore = ()
        if self.python_version:
            settings.python_version = parse_python_version(self.python_version)
        if self.nested_graph_breaks:
            settings.dynamo_config["nested_graph_breaks"] = True
        return settings

    def run(self) -> Iterator[Tuple[int, int, str, type]]:
        from .engine import SourceFile, check_sources
        from .source import SourceError, read_source
        try:
            text = "".join(self.lines) if self.lines is not None else read_source(self.filename)
        except SourceError as exc:
            d = exc.diagnostic
            yield d.line, d.column - 1, f"{d.code} {d.message}", type(self)
            return
        report = check_sources([SourceFile(self.filename, text)], self._settings())
        for d in report.diagnostics:
            if d.code == "GBL001":
                continue  # flake8 reports syntax errors itself (E999)
            yield d.line, max(0, d.column - 1), f"{d.code} {d.message}", type(self)
