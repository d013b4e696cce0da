"""Settings: ``[tool.gblint]`` in ``pyproject.toml``, overridden by command-line options.

Keys (kebab-case, as ruff spells them): ``select``, ``ignore``, ``extend-select``,
``per-file-ignores`` (glob -> codes), ``exclude`` (globs), ``python-version`` ("3.11"),
``torch-version``, ``respect-gitignore`` (bool), and dynamo config overrides
``nested-graph-breaks``, ``capture-scalar-outputs``, ``capture-dynamic-output-shape-ops``,
``trace-numpy``, ``reorderable-logging-functions``, and ``max-file-size`` (bytes; larger files,
or files with an enormous line or token count, get ``GBL002`` instead of being parsed; 0: no limit).
"""
from __future__ import annotations

import dataclasses
import fnmatch
import os
import sys
from typing import Dict, Optional, Sequence, Tuple

try:  # Python 3.11+
    import tomllib
except ImportError:  # pragma: no cover - Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]


class ConfigError(Exception):
    """Raised for an unreadable or invalid configuration (exit code 2)."""


DYNAMO_KEYS = {
    "nested-graph-breaks": "nested_graph_breaks",
    "capture-scalar-outputs": "capture_scalar_outputs",
    "capture-dynamic-output-shape-ops": "capture_dynamic_output_shape_ops",
    "trace-numpy": "trace_numpy",
    "reorderable-logging-functions": "reorderable_logging_functions",
}
KNOWN_KEYS = {"select", "ignore", "extend-select", "extend-ignore", "per-file-ignores", "exclude", "extend-exclude",
              "python-version", "torch-version", "respect-gitignore", "entry-points", "max-unroll",
              "follow-imports", "cache", "max-file-size",
              "confirm"} | set(DYNAMO_KEYS)  # confirm: read by gblint.runtime_check.plan
DEFAULT_EXCLUDE = (".git", ".hg", ".svn", ".venv", "venv", "__pycache__", ".tox", ".nox", ".mypy_cache",
                   ".pytest_cache", "build", "dist", "node_modules", ".eggs", "site-packages")


@dataclasses.dataclass
class Settings:
    """Everything a run needs to know besides the paths."""

    select: Tuple[str, ...] = ("GBL",)
    ignore: Tuple[str, ...] = ()
    per_file_ignores: Dict[str, Tuple[str, ...]] = dataclasses.field(default_factory=dict)
    exclude: Tuple[str, ...] = ()
    python_version: Tuple[int, int] = sys.version_info[:2]
    torch_version: Optional[str] = None
    respect_gitignore: bool = True
    dynamo_config: Dict[str, object] = dataclasses.field(default_factory=dict)
    entry_points: Tuple[str, ...] = ()
    follow_imports: Tuple[str, ...] = ()
    max_unroll: int = 8
    max_file_size: int = 2_000_000  # gblint.source.MAX_FILE_SIZE; 0: no limit
    jobs: int = 0  # 0: one process per core for large trees, serial for a handful of files
    incremental: bool = False  # editors: re-summarise an in-memory buffer one definition at a time
    root: str = "."

    def selected(self, code: str, path: Optional[str] = None) -> bool:
        """True when ``code`` passes select/ignore and the per-file ignores of ``path``."""
        if not _matches(code, self.select) or _longest(code, self.ignore) > _longest(code, self.select):
            return False
        if path is not None and self.per_file_ignores:
            rel = _relpath(path, self.root)
            for pattern, codes in self.per_file_ignores.items():
                if _glob(rel, pattern) and _matches(code, codes):
                    return False
        return True

    def excluded(self, path: str) -> bool:
        rel = _relpath(path, self.root)
        name = os.path.basename(path.rstrip(os.sep))
        for pattern in self.exclude:
            if _glob(rel, pattern) or fnmatch.fnmatch(name, pattern):
                return True
        return False


def _relpath(path: str, root: str) -> str:
    try:
        return os.path.relpath(os.path.abspath(path), os.path.abspath(root)).replace(os.sep, "/")
    except ValueError:  # pragma: no cover - different drives on Windows
        return path.replace(os.sep, "/")


def _glob(rel: str, pattern: str) -> bool:
    pattern = pattern.rstrip("/")
    return fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(rel, pattern + "/*") or \
        any(fnmatch.fnmatch(part, pattern) for part in rel.split("/"))


def _matches(code: str, prefixes: Sequence[str]) -> bool:
    return any(code.startswith(p) for p in prefixes if p)


def _longest(code: str, prefixes: Sequence[str]) -> int:
    return max((len(p) for p in prefixes if p and code.startswith(p)), default=-1)


def find_pyproject(start: str) -> Optional[str]:
    """The nearest ``pyproject.toml`` with a ``[tool.gblint]`` table, walking up from ``start``."""
    d = os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or ".")
    while True:
        candidate = os.path.join(d, "pyproject.toml")
        if os.path.isfile(candidate):
            try:
                with open(candidate, "rb") as fh:
                    if "gblint" in tomllib.load(fh).get("tool", {}):
                        return candidate
            except (OSError, tomllib.TOMLDecodeError):
                pass
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def _codes(value, key) -> Tuple[str, ...]:
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",") if v.strip()]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"[tool.gblint] {key} must be a list of code prefixes")
    return tuple(v.strip().upper() for v in value)


def parse_python_version(text: str) -> Tuple[int, int]:
    """``"3.11"`` / ``"py311"`` -> (3, 11); raises ConfigError."""
    t = str(text).strip().lower().lstrip("py")
    if "." not in t and len(t) >= 2:
        t = f"{t[0]}.{t[1:]}"
    try:
        major, minor = (int(p) for p in t.split(".")[:2])
    except ValueError:
        raise ConfigError(f"invalid python-version: {text!r}") from None
    return major, minor


def load_settings(pyproject: Optional[str]) -> Settings:
    """Settings from a pyproject file (or defaults when None). Raises ConfigError."""
    settings = Settings()
    if pyproject is None:
        return settings
    try:
        with open(pyproject, "rb") as fh:
            table = tomllib.load(fh).get("tool", {}).get("gblint", {})
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{pyproject}: {exc}") from None
    settings.root = os.path.dirname(os.path.abspath(pyproject))
    unknown = set(table) - KNOWN_KEYS
    if unknown:
        raise ConfigError(f"{pyproject}: unknown [tool.gblint] key(s): {', '.join(sorted(unknown))}")
    apply_table(settings, table)
    return settings


def apply_table(settings: Settings, table: dict) -> None:
    if "select" in table:
        settings.select = _codes(table["select"], "select")
    if "extend-select" in table:
        settings.select += _codes(table["extend-select"], "extend-select")
    for key in ("ignore", "extend-ignore"):
        if key in table:
            settings.ignore += _codes(table[key], key)
    if "per-file-ignores" in table:
        pfi = table["per-file-ignores"]
        if not isinstance(pfi, dict):
            raise ConfigError("[tool.gblint] per-file-ignores must be a table of glob = [codes]")
        settings.per_file_ignores = {k: _codes(v, "per-file-ignores") for k, v in pfi.items()}
    for key in ("exclude", "extend-exclude"):
        if key in table:
            v = table[key]
            if not isinstance(v, list):
                raise ConfigError(f"[tool.gblint] {key} must be a list of globs")
            settings.exclude += tuple(v)
    if "python-version" in table:
        settings.python_version = parse_python_version(table["python-version"])
    if "torch-version" in table:
        settings.torch_version = str(table["torch-version"])
    if "respect-gitignore" in table:
        settings.respect_gitignore = bool(table["respect-gitignore"])
    if "entry-points" in table:
        settings.entry_points = tuple(table["entry-points"])
    if "max-unroll" in table:
        settings.max_unroll = int(table["max-unroll"])
    if "max-file-size" in table:
        value = table["max-file-size"]
        if type(value) is not int or value < 0:
            raise ConfigError("[tool.gblint] max-file-size must be a number of bytes (0: no limit)")
        settings.max_file_size = value
    if "follow-imports" in table:
        settings.follow_imports = tuple(table["follow-imports"])
    for key, name in DYNAMO_KEYS.items():
        if key in table:
            settings.dynamo_config[name] = table[key]


def parse_code_list(text: Optional[str]) -> Tuple[str, ...]:
    if not text:
        return ()
    return tuple(c.strip().upper() for c in text.split(",") if c.strip())

