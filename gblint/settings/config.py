"""Settings: ``[tool.gblint]`` in ``pyproject.toml``, overridden by command-line options.

Keys (kebab-case, as ruff spells them): ``select``, ``ignore``, ``extend-select``,
``per-file-ignores`` (glob -> codes), ``exclude`` (globs), ``python-version`` ("3.11"),
``torch-version``, ``respect-gitignore`` (bool), ``baseline`` (a file of known diagnostics,
:mod:`gblint.frontends.baseline`), and dynamo config overrides
``nested-graph-breaks``, ``capture-scalar-outputs``, ``capture-dynamic-output-shape-ops``,
``trace-numpy``, ``reorderable-logging-functions``, and ``max-file-size`` (bytes; larger files,
or files with an enormous line or token count, get ``GBL002`` instead of being parsed; 0: no limit).
"""
from __future__ import annotations

import dataclasses
import difflib
import fnmatch
import json
import math
import os
import re
import sys
from typing import Dict, Optional, Sequence, Tuple

from ..core.versions import FROM_CONFIG, FROM_OPTION, PYTHON_RANGE

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
#: the Python versions whose semantics gblint predicts
PYTHON_VERSIONS = PYTHON_RANGE
SCHEMA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "config.schema.json")
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
    torch_version: Optional[str] = None  # None: the installed torch (gblint.core.versions.torch_of)
    # where the versions came from (gblint.core.versions.describe): "" until an option, the table,
    # requires-python or the installed torch decides
    python_source: str = ""
    python_requires: str = ""  # the checked project's requires-python, when it chose the Python
    torch_source: str = ""
    respect_gitignore: bool = True
    dynamo_config: Dict[str, object] = dataclasses.field(default_factory=dict)
    entry_points: Tuple[str, ...] = ()
    follow_imports: Tuple[str, ...] = ()
    max_unroll: int = 8
    max_file_size: int = 2_000_000  # gblint.core.source.MAX_FILE_SIZE; 0: no limit
    jobs: int = 0  # 0: one process per core for large trees, serial for a handful of files
    cache: bool = True  # the summary cache (``cache = false`` in the table, ``--no-cache``)
    error_paths: bool = False  # also report breaks that happen only when an exception is raised
    # conditional diagnostics reported: "all", "checked" (those whose break lies in a checked file,
    # not in a package followed with follow-imports) or "none"
    conditional: str = "checked"
    incremental: bool = False  # editors: re-summarise an in-memory buffer one definition at a time
    baseline: Optional[str] = None  # a baseline file (gblint.frontends.baseline): its diagnostics are not reported
    root: str = "."

    def selected(self, code: str, path: Optional[str] = None, effect: Optional[str] = None) -> bool:
        """True when ``code`` (a diagnostic of ``effect``, when given) passes select/ignore and
        the per-file ignores of ``path``; an ignore as specific as the select that matches wins
        (``--select GBL --ignore GBL``). A selector is a code prefix or a consequence
        (:data:`EFFECT_SELECTORS`: ``skip``, ``error``, ``break``, ``info``), which matches the
        diagnostics of that effect whatever their code and is as specific as ``GBL``
        (``--select skip --ignore GBL205``: every frame skip but GBL205's)."""
        if _longest(code, self.select, effect) < 0 or \
                _longest(code, self.ignore, effect) >= _longest(code, self.select, effect):
            return False
        if path is not None and self.per_file_ignores:
            rel = _relpath(path, self.root)
            for pattern, codes in self.per_file_ignores.items():
                if _glob(rel, pattern) and _longest(code, codes, effect) >= 0:
                    return False
        return True

    def excluded(self, path: str) -> bool:
        """Whether ``exclude``/``extend-exclude`` leave ``path`` out (:meth:`exclusion`)."""
        return self.exclusion(path) is not None

    def exclusion(self, path: str) -> Optional[str]:
        """The first ``exclude``/``extend-exclude`` pattern that matches ``path`` (relative to
        the configuration root, or its base name), else None."""
        rel = _relpath(path, self.root)
        name = os.path.basename(path.rstrip(os.sep))
        for pattern in self.exclude:
            if _glob(rel, pattern) or fnmatch.fnmatch(name, pattern):
                return pattern
        return None


def display_path(path: str) -> str:
    """``path`` as every output prints it, as ruff does: relative to the working directory when
    it lies below it, else absolute, with ``/``. A name that is not a path (``<stdin>``) is
    kept. (Matching uses the configuration root instead: :meth:`Settings.selected`.)"""
    if not path or path.startswith("<"):
        return path
    full = os.path.abspath(path)
    try:
        rel = os.path.relpath(full)
    except ValueError:  # pragma: no cover - another drive on Windows
        return full.replace(os.sep, "/")
    return (full if rel == ".." or rel.startswith(".." + os.sep) else rel).replace(os.sep, "/")


def _relpath(path: str, root: str) -> str:
    try:
        return os.path.relpath(os.path.abspath(path), os.path.abspath(root)).replace(os.sep, "/")
    except ValueError:  # pragma: no cover - different drives on Windows
        return path.replace(os.sep, "/")


def _glob(rel: str, pattern: str) -> bool:
    pattern = pattern.rstrip("/")
    return fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(rel, pattern + "/*") or \
        any(fnmatch.fnmatch(part, pattern) for part in rel.split("/"))


#: the consequences select/ignore accept besides code prefixes (a diagnostic's ``effect``)
EFFECT_SELECTORS = ("break", "skip", "error", "info")
_EFFECT_SPECIFICITY = len("GBL")


def _longest(code: str, selectors: Sequence[str], effect: Optional[str] = None) -> int:
    """How specifically ``selectors`` match a diagnostic of ``code`` and ``effect``: the length of
    the longest matching code prefix, 3 (as ``GBL``) for a matching consequence, -1 for none."""
    best = -1
    for p in selectors:
        if p in EFFECT_SELECTORS:
            if effect == p:
                best = max(best, _EFFECT_SPECIFICITY)
        elif p and code.startswith(p):
            best = max(best, len(p))
    return best


def _pyprojects(start: str):
    """``(path, parsed TOML)`` of every ``pyproject.toml`` from ``start`` up to the file system's
    root, nearest first (an unreadable one as ``{}``). Raises ConfigError for one that is not
    valid TOML (it may hold the table: ignoring it would switch the configuration off without a word)."""
    d = os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or ".")
    while True:
        candidate = os.path.join(d, "pyproject.toml")
        if os.path.isfile(candidate):
            try:
                with open(candidate, "rb") as fh:
                    data = tomllib.load(fh)
            except tomllib.TOMLDecodeError as exc:
                raise ConfigError(f"{candidate}: not valid TOML: {exc}") from None
            except UnicodeDecodeError:
                raise ConfigError(f"{candidate}: not valid TOML: a TOML file must be UTF-8") from None
            except OSError:
                data = {}
            yield candidate, data
        parent = os.path.dirname(d)
        if parent == d:
            return
        d = parent


def find_pyproject(start: str) -> Optional[str]:
    """The nearest ``pyproject.toml`` with a ``[tool.gblint]`` table, walking up from ``start``.
    Raises ConfigError for a ``pyproject.toml`` on the way that is not valid TOML."""
    for candidate, data in _pyprojects(start):
        tool = data.get("tool", {})
        if isinstance(tool, dict) and "gblint" in tool:
            return candidate
    return None


def known_codes() -> Tuple[str, ...]:
    """Every code gblint reports (the rule catalogue, :func:`gblint.settings.catalog.catalog`)."""
    from .catalog import catalog
    return tuple(row["code"] for row in catalog())


def check_codes(codes: Sequence[str], where: str, empty_ok: bool = True) -> Tuple[str, ...]:
    """``codes`` upper-cased, each checked to be a prefix of some known code (``GBL``, ``GBL1``,
    ``GBL102``), or a consequence (:data:`EFFECT_SELECTORS`, in any case, kept lower-case).
    ``where`` names the option or key for the message; ``empty_ok=False``: an empty list is an
    error too (a selection of nothing would report nothing). Raises ConfigError."""
    out = tuple(c.strip().lower() if c.strip().lower() in EFFECT_SELECTORS else c.strip().upper() for c in codes)
    if not out and not empty_ok:
        raise ConfigError(f"{where}: selects no code at all, so nothing could be reported "
                          "(`--exit-zero` or `ignore` say what you mean)")
    known = known_codes()
    for code in out:
        if code not in EFFECT_SELECTORS and not any(k.startswith(code) for k in known):
            raise ConfigError(f"{where}: {code!r} is not a gblint code, code prefix or consequence "
                              f"(codes run from {min(known)} to {max(known)}, `gblint rules` lists them; "
                              f"consequences: {', '.join(EFFECT_SELECTORS)})")
    return out


def _codes(value, key) -> Tuple[str, ...]:
    return check_codes(value, f"[tool.gblint] {key}")


def parse_python_version(text: str, where: str = "python-version") -> Tuple[int, int]:
    """``"3.11"`` / ``"py311"`` -> (3, 11), within :data:`PYTHON_VERSIONS`. ``where`` names the
    option or key for the message. Raises ConfigError."""
    t = str(text).strip().lower()
    t = t[2:] if t.startswith("py") else t
    if "." not in t and len(t) >= 2:
        t = f"{t[0]}.{t[1:]}"
    try:
        major, minor = (int(p) for p in t.split("."))
    except ValueError:
        major = minor = -1
    low, high = PYTHON_VERSIONS
    if not low <= (major, minor) <= high:
        raise ConfigError(f"{where}: {text!r} is not a Python version gblint predicts "
                          f"(allowed: {low[0]}.{low[1]} to {high[0]}.{high[1]})")
    return major, minor


def parse_torch_version(text: str, where: str = "torch-version") -> str:
    """A torch version as ``--torch-version`` and ``torch-version`` take it (``"2.14"``,
    ``"2.15.0"``, ``"2.15.0+cu132"``, ``"2.16.0a0"``): a PEP 440 version from 2.0 on, returned as
    written. ``where`` names the option or key for the message. Raises ConfigError."""
    from packaging.version import InvalidVersion, Version
    from ..core.versions import SUPPORTED_TORCH
    t = str(text).strip()
    try:
        ok = Version(t).release[:1] == (2,) and len(Version(t).release) >= 2
    except InvalidVersion:
        ok = False
    if not ok:
        raise ConfigError(f"{where}: {text!r} is not a torch version such as \"2.14\" or \"2.15.0\" "
                          f"(measured releases: {', '.join(SUPPORTED_TORCH)})")
    return t


def settle_versions(settings: Settings, start: Optional[str], project: bool = True,
                    memo: Optional[str] = None) -> Settings:
    """Decide the versions ``settings`` leaves open (:mod:`gblint.core.versions`): the Python from
    the ``requires-python`` of the nearest ``pyproject.toml`` with a ``[project]`` table above
    ``start`` (not with ``project=False``: ``--isolated``), and the torch installed where gblint
    runs (``memo``: see :func:`gblint.core.versions.installed_torch`). Returns ``settings``. Raises
    ConfigError for a ``requires-python`` that is not a PEP 440 specifier."""
    from ..core import versions
    if not settings.python_source:
        settings.python_source = versions.FROM_INTERPRETER
        found = find_requires_python(start) if project and start is not None else None
        if found is not None:
            path, requires = found
            try:
                chosen = versions.python_for(requires, sys.version_info)
            except ValueError as exc:
                raise ConfigError(f"{path}: [project] requires-python = {json.dumps(requires)}: not a version "
                                  f"specifier ({exc})") from None
            if chosen is not None:
                settings.python_version, settings.python_source = chosen, versions.FROM_REQUIRES
                settings.python_requires = requires
    if settings.torch_version is None:
        installed = versions.installed_torch(memo)
        settings.torch_version = installed or versions.NEWEST_TORCH
        settings.torch_source = versions.FROM_INSTALLED if installed else versions.FROM_DEFAULT
    elif not settings.torch_source:
        settings.torch_source = FROM_OPTION
    return settings


def find_requires_python(start: str) -> Optional[Tuple[str, str]]:
    """``(pyproject path, requires-python)`` of the checked project: the nearest
    ``pyproject.toml`` with a ``[project]`` table, walking up from ``start``; None when there is
    none or it declares no ``requires-python``. Raises ConfigError for a ``pyproject.toml`` on the
    way that is not valid TOML (as :func:`find_pyproject`)."""
    for candidate, data in _pyprojects(start):
        table = data.get("project") if isinstance(data, dict) else None
        if isinstance(table, dict):
            requires = table.get("requires-python")
            return (candidate, requires) if isinstance(requires, str) and requires.strip() else None
    return None


def validate_table(table: object, where: str) -> None:
    """Check a ``[tool.gblint]`` table against ``gblint/data/config.schema.json`` (the schema
    published for editors); ``where`` is the file, for the message. Raises ConfigError naming
    the first key that is unknown or has a value the schema rejects, the value and what is
    allowed. Checks JSON Schema cannot state follow: a number that is not finite (TOML's
    ``nan``, which every comparison lets through), a TOML float where an integer is expected
    (JSON Schema's integer admits ``2.0``), and ``confirm.examples`` that do not parse as
    Python expressions."""
    from fastjsonschema import JsonSchemaValueException

    from ._config_validator import validate
    try:
        validate(table)
    except JsonSchemaValueException as exc:
        raise ConfigError(f"{where}: {_explain(exc)}") from None
    for path, value in _leaves(table, ()):
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"{where}: {_key(path)} = {_show(value)}: expected {_describe(path)[1]}")
        node, described = _describe(path)
        if isinstance(value, float) and node.get("type") == "integer":  # TOML keeps `2.0` a float
            raise ConfigError(f"{where}: {_key(path)} = {_show(value)}: expected {described} (an integer, "
                              "written without a decimal point)")
    examples = table.get("confirm", {}).get("examples", {}) if isinstance(table, dict) else {}
    for entry, exprs in examples.items():
        for i, expr in enumerate(exprs):
            problem = expression_problem(expr)
            if problem:
                raise ConfigError(f"{where}: {_key(('confirm', 'examples', entry, str(i)))} = {json.dumps(expr)}: "
                                  f"not a Python expression ({problem})")


def expression_problem(text: str) -> Optional[str]:
    """Why ``text`` is not one Python expression (the parser's message), or None when it is:
    what ``--example`` and ``[tool.gblint.confirm] examples`` hold."""
    import ast
    try:
        ast.parse(text.strip(), "<example>", mode="eval")
    except SyntaxError as exc:
        return exc.msg
    except ValueError as exc:  # NUL bytes
        return str(exc)
    return None


class _TomlFloat(float):
    """A TOML float that remembers how it was written (``3.10``, read as 3.1), for messages."""

    literal: str

    def __new__(cls, literal: str) -> "_TomlFloat":
        obj = super().__new__(cls, float(literal))
        obj.literal = literal
        return obj


def _plain(node):
    """``node`` with every :class:`_TomlFloat` made a plain float again."""
    if isinstance(node, dict):
        return {k: _plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    return float(node) if isinstance(node, _TomlFloat) else node


def _leaves(node, path: Tuple[str, ...]):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _leaves(v, path + (str(k),))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _leaves(v, path + (str(i),))
    else:
        yield path, node


def _show(value) -> str:
    """``value`` as it reads in TOML: a float as written (``3.10``, ``nan``, ``+inf``)."""
    if isinstance(value, _TomlFloat):
        return value.literal
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if value != value else ("inf" if value > 0 else "-inf")
    return json.dumps(value)


def _key(path: Sequence[str]) -> str:
    """``[tool.gblint] confirm.examples."m:f"[0]``: where a value sits, as TOML spells it."""
    parts = []
    for i, p in enumerate(path):
        if p.isdigit():
            parts.append(f"[{p}]")
        else:
            bare = p if re.fullmatch(r"[A-Za-z0-9_-]+", p) else json.dumps(p)
            parts.append(f".{bare}" if i else bare)
    return "[tool.gblint] " + "".join(parts)


def _schema() -> dict:
    with open(SCHEMA, encoding="utf-8") as fh:
        return json.load(fh)


def _describe(path: Sequence[str]) -> Tuple[dict, str]:
    """The schema node at ``path`` and the nearest description on the way down to it (what is
    allowed there)."""
    schema = _schema()
    node, described = schema, schema.get("description", "")
    for part in path:
        if node.get("type") == "array":
            node = node.get("items", {})
        elif "properties" in node and part in node["properties"]:
            node = node["properties"][part]
        elif isinstance(node.get("additionalProperties"), dict):
            node = node["additionalProperties"]
        else:
            break
        node = schema["definitions"][node["$ref"].rsplit("/", 1)[1]] if "$ref" in node else node
        described = node.get("description", described)
    return node, described


def _explain(exc) -> str:
    """One line for a schema violation: ``[tool.gblint] key = value: expected ...``; a number
    where a string is expected says to quote it, as written (``python-version = 3.10``)."""
    path = [str(p) for p in (exc.path or ())[1:]]
    node, described = _describe(path)
    table = "[tool.gblint" + "".join(f".{p}" for p in path if p == "confirm") + "]"
    if exc.rule == "additionalProperties":
        extra = sorted(set(exc.value) - set(node.get("properties", {}))) if isinstance(exc.value, dict) else []
        allowed = ", ".join(sorted(node.get("properties", {})))
        named = []
        for k in extra:  # a mistyped key names the close one (`max-unrol` -> `max-unroll`)
            close = difflib.get_close_matches(k, list(node.get("properties", {})), n=1)
            named.append(f"{k} (did you mean `{close[0]}`?)" if close else k)
        return f"unknown {table} key(s): {', '.join(named)}; allowed: {allowed}"
    if exc.rule == "propertyNames" and isinstance(exc.value, dict):
        names = node.get("propertyNames", {})
        bad = [k for k in exc.value if not re.search(names.get("pattern", ""), k)]
        shown = ", ".join(json.dumps(k) for k in bad)
        return f"{_key(path)}: key {shown} is not {names.get('description', 'an allowed name')}"
    value = exc.value
    if exc.rule == "type" and node.get("type") == "string" and isinstance(value, (int, float)) \
            and not isinstance(value, bool):
        written = _show(value)
        return (f"{_key(path)} = {written}: a TOML number, but {described} is expected; quote it: "
                f"{_key(path).split('] ', 1)[1]} = \"{written}\"")
    return f"{_key(path)} = {_show(value)}: expected {described}"


def load_table(pyproject: str, required: bool = False) -> dict:
    """The ``[tool.gblint]`` table of ``pyproject`` (``{}`` when it has none), checked against
    the schema (:func:`validate_table`), sub-tables included (``confirm``, read by ``gblint
    confirm``). The one reader of gblint's configuration. ``required``: a file without the
    table is an error (a file named by ``--config``). Raises ConfigError."""
    try:
        with open(pyproject, "rb") as fh:
            tool = tomllib.load(fh, parse_float=_TomlFloat).get("tool", {})
    except UnicodeDecodeError:
        raise ConfigError(f"{pyproject}: not valid TOML: a TOML file must be UTF-8") from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{pyproject}: {exc}") from None
    if required and (not isinstance(tool, dict) or "gblint" not in tool):
        raise ConfigError(f"--config {pyproject}: the file has no [tool.gblint] table")
    table = tool.get("gblint", {}) if isinstance(tool, dict) else {}
    validate_table(table, pyproject)
    return _plain(table)


def load_settings(pyproject: Optional[str], required: bool = False) -> Settings:
    """Settings from a pyproject file (or defaults when None); ``required`` as for
    :func:`load_table`. Raises ConfigError."""
    settings = Settings()
    if pyproject is None:
        return settings
    table = load_table(pyproject, required)
    settings.root = os.path.dirname(os.path.abspath(pyproject))
    try:
        apply_table(settings, table)
    except ConfigError as exc:
        raise ConfigError(f"{pyproject}: {exc}") from None
    return settings


def apply_table(settings: Settings, table: dict) -> None:
    """Set ``settings`` from a ``[tool.gblint]`` table already checked by :func:`validate_table`.
    Raises ConfigError for unknown codes."""
    if "select" in table:
        settings.select = check_codes(table["select"], "[tool.gblint] select", empty_ok=False)
    if "extend-select" in table:
        settings.select += _codes(table["extend-select"], "extend-select")
    for key in ("ignore", "extend-ignore"):
        if key in table:
            settings.ignore += _codes(table[key], key)
    if "per-file-ignores" in table:
        settings.per_file_ignores = {k: _codes(v, f"per-file-ignores.{k}") for k, v in table["per-file-ignores"].items()}
    for key in ("exclude", "extend-exclude"):
        if key in table:
            settings.exclude += tuple(table[key])
    if "python-version" in table:
        settings.python_version = parse_python_version(table["python-version"], "[tool.gblint] python-version")
        settings.python_source = FROM_CONFIG
    if "torch-version" in table:
        settings.torch_version = parse_torch_version(table["torch-version"], "[tool.gblint] torch-version")
        settings.torch_source = FROM_CONFIG
    if "respect-gitignore" in table:
        settings.respect_gitignore = bool(table["respect-gitignore"])
    if "entry-points" in table:
        settings.entry_points = tuple(table["entry-points"])
    if "max-unroll" in table:
        settings.max_unroll = int(table["max-unroll"])
    if "max-file-size" in table:
        settings.max_file_size = int(table["max-file-size"])  # validate_table refused floats (`2e6`)
    if "cache" in table:
        settings.cache = table["cache"]
    if "report-error-paths" in table:
        settings.error_paths = table["report-error-paths"]
    if "report-conditional" in table:
        settings.conditional = table["report-conditional"]
    if "follow-imports" in table:
        settings.follow_imports = tuple(table["follow-imports"])
    if "baseline" in table:
        settings.baseline = os.path.join(settings.root, table["baseline"])
    for key, name in DYNAMO_KEYS.items():
        if key in table:
            settings.dynamo_config[name] = table[key]


def parse_code_list(text: Optional[str], where: str = "codes") -> Tuple[str, ...]:
    """A comma-separated option (``--select GBL1,GBL201``) as code prefixes; ``where`` names the
    option for the message. Raises ConfigError for a code gblint does not have."""
    if text is None:
        return ()
    return check_codes([c for c in text.split(",") if c.strip()], where, empty_ok=where != "--select")
