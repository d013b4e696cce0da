"""The torch and Python whose Dynamo gblint predicts, and the facts that hold only on some of them.

gblint's facts were measured on torch 2.13.0, 2.14.1 and 2.15.0 (:data:`SUPPORTED_TORCH`), on
Python 3.11, 3.12 and 3.13 (``docs/semantics.md`` §8.11-8.15 lists every difference with the
program that shows it). What is in force for a run:

- torch: ``--torch-version``, else ``[tool.gblint] torch-version``, else the torch installed in
  the environment gblint runs in, read from the distribution's metadata
  (:mod:`importlib.metadata`; torch is never imported), else the newest supported release. The
  registry data and the facts of the supported release with the same ``X.Y`` apply
  (:func:`release_for`); a version outside them takes the nearest.
- Python: ``--python-version``, else ``[tool.gblint] python-version``, else the running
  interpreter when the checked project's ``requires-python`` admits it (or it declares none),
  else the oldest Python gblint predicts that ``requires-python`` admits (:func:`python_for`).

A fact that depends on the versions is a :class:`Fact` of :data:`FACTS`, named where the rules
(``ctx.holds``) and the consequence model (:mod:`gblint.dynamo.consequences`) decide with it; ``gblint
rules`` and docs/rules.md list the facts of each code. A rule or code that holds only for some
releases says so in one attribute (``torch_versions = "<2.15"``, ``python_versions = ">=3.12"``),
checked with :func:`gblint.core.registry.in_range`.
"""
from __future__ import annotations

import dataclasses
import functools
import json
import os
import sys
from typing import Dict, List, Optional, Tuple

from .registry import RELEASES as SUPPORTED_TORCH  # measured releases, each with registry data
NEWEST_TORCH = SUPPORTED_TORCH[-1]
#: the Pythons whose semantics gblint predicts (``python-version``), oldest and newest; the
#: facts were measured on 3.11, 3.12 and 3.13 (older ones behave as 3.11, newer as 3.13)
PYTHON_RANGE = ((3, 9), (3, 14))

# where each version came from, as verbose output and JSON name it
FROM_OPTION, FROM_CONFIG, FROM_INSTALLED, FROM_DEFAULT = "option", "configuration", "installed", "default"
FROM_REQUIRES, FROM_INTERPRETER = "requires-python", "interpreter"


@dataclasses.dataclass(frozen=True)
class Fact:
    """A piece of Dynamo behaviour that holds only on some versions: ``torch`` and ``python``
    are PEP 440 specifiers (``""``: every version), ``codes`` the diagnostics it changes,
    ``text`` what holds there, ``section`` the section of ``docs/semantics.md`` and ``programs``
    the measured programs that show it."""

    name: str
    torch: str
    python: str
    codes: Tuple[str, ...]
    text: str
    section: str
    programs: Tuple[str, ...]

    def holds(self, torch_version: str, python_version: Tuple[int, int]) -> bool:
        """Whether the fact holds for ``torch_version`` (``"2.14.1"``) on ``python_version``."""
        from .registry import in_range
        return in_range(torch_version, self.torch) and in_range("%d.%d" % python_version, self.python)

    @property
    def versions(self) -> str:
        """The range in words: ``torch <2.14``, ``Python >=3.12``, ``torch >=2.15 on Python >=3.13``."""
        parts = [f"torch {self.torch}" if self.torch else "", f"Python {self.python}" if self.python else ""]
        return " on ".join(p for p in parts if p)


#: what the facts were measured on, in words (docs/rules.md says it once)
MEASURED = f"torch {', '.join(SUPPORTED_TORCH)} on Python 3.11, 3.12 and 3.13"


def range_words(torch: str, python: str) -> str:
    """A code's range in words, for ``gblint rules``: ``torch >=2.13, every Python``."""
    return f"{f'torch {torch}' if torch else 'every torch'}, {f'Python {python}' if python else 'every Python'}"


FACTS: Dict[str, Fact] = {f.name: f for f in (
    Fact("random-state-breaks", "<2.14", "", ("GBL110",),
         "`random.random()`, `random.seed()` and `random.shuffle()` break (GB0007); from torch 2.14 Dynamo "
         "traces them (`random.gauss`, `random.choice`, `random.getrandbits` still break; `random.randint`, "
         "`random.uniform`, `random.randrange` never break)", "§8.11",
         ("066_warnings_time_random.py", "measured/n01_random_functions.py", "measured/n02_random_seed_shuffle.py")),
    Fact("time-call-gb9193", ">=2.15", "", ("GBL110",),
         "a clock function (`time.time()`, `time.perf_counter()`, `time.monotonic()`...) breaks as GB9193 "
         "\"Call to a time function\" instead of GB0007", "§8.11",
         ("066_warnings_time_random.py", "measured/v21_time_perf_counter.py", "measured/n10_time_functions.py")),
    Fact("global-manager-gb0008", ">=2.14", "", ("GBL204",),
         "a `with` of a manager object held in a global or a closure (`NO_GRAD = torch.no_grad()` at module level) "
         "breaks as GB0008 \"Attempted to inline function marked as skipped\" instead of GB0142; the frame is "
         "still skipped", "§8.11", ("031_global_manager_object.py",)),
    Fact("comp-frame-gb9493", ">=2.14", "<3.12", ("GBL206",),
         "a comprehension compiled as its own frame after its caller was skipped fails on the iterator it is given "
         "as GB9493 \"C-implemented special method without VariableTracker model\" instead of GB4347 Missing "
         "tp_iternext", "§8.11", ("measured/b14_dictcomp_keys.py",)),
    Fact("comprehension-inlined", "", ">=3.12", ("GBL206",),
         "comprehensions are inlined (PEP 709): the caller breaks at a list or dict comprehension, which runs "
         "eagerly, and resumes, and a break in a set comprehension skips the caller (before 3.12 a comprehension "
         "is its own `<listcomp>` frame, skipped when it holds a tensor)", "§3.2, §7.2, §8.12",
         ("038_comprehensions_capturing_tensor_break.py", "measured/n07_dictcomp_variants.py")),
    Fact("while-test-skips", "", ">=3.12", ("GBL201",),
         "a break in a data-dependent `while` condition skips the resume frame that holds the loop (GB7000)",
         "§3.1, §8.12", ("058_tensor_while_condition.py", "measured/n09_while_condition_callee.py")),
    Fact("contextvar-get-traced", ">=2.14", "", ("GBL127",),
         "`ContextVar.get()` is traced; `.set()` and `.reset()` still break, as GB6815 \"ContextVar.set() is not "
         "yet supported\" instead of GB0156", "§8.11", ("measured/v32_contextvar.py",)),
    Fact("disable-call-own-ids", ">=2.14", "", ("GBL130",),
         "calling `torch._dynamo.disable(fn)` or `torch.compiler.disable(fn)` inside the region breaks with ids of "
         "its own, GB0376 and GB0377, instead of GB0007", "§8.11", ("measured/v34_allow_disable_in_region.py",)),
    Fact("rnn-call-resumes", ">=2.15", "", ("GBL118",),
         "a call of an `nn.RNN`/`nn.GRU`/`nn.LSTM` module is a graph break Dynamo resumes after (GB0148 \"Dynamo "
         "determined that a graph break should occur\"): the calling frame is split, not skipped (GB0014 and a "
         "skipped frame before 2.15)", "§8.11", ("measured/r04_lstm_module.py", "measured/r06_lstm_nested.py")),
    Fact("str-of-lazy-string-traced", ">=2.14", "", ("GBL123",),
         "`str(s)` of a string that formats a tensor lazily (an f-string, `str.format`) is traced and does not "
         "break (GB0059 before 2.14); `len(s)`, `in` and `+` still do", "§8.11", ("measured/v47_format_uses.py",)),
    Fact("random-range-resumes", ">=2.14", "", ("GBL135",),
         "`range(n)` of an int drawn from a traced `random.Random` is a graph break Dynamo resumes after (GB0124, "
         "the int made concrete), not a skipped frame (GB4841 before 2.14)", "§8.11",
         ("measured/v41_random_instance.py",)),
    Fact("bare-raise-at-origin", ">=2.14", "", ("GBL124",),
         "a bare `raise` in an `except` body is reported at the line that raised first (the `try` body's "
         "statement), not at the `raise`; the frame is skipped as before", "§8.11",
         ("measured/v50_raise_in_except.py", "measured/n03_reraise_in_except.py")),
    Fact("cached-property-locks", "", "<3.12", ("GBL204",),
         "reading a `functools.cached_property` not computed yet runs its `__get__`, which enters an `RLock` "
         "before Python 3.12: Dynamo cannot enter it (GB0142) and skips the reading frame, whatever the getter "
         "does; one already computed (read in `__init__`) is a plain attribute", "§8.11",
         ("kinds/kd7_compiled_but_never_run.py",)),
    Fact("cpu-amp-autocast-fails", "", ">=3.13", ("GBL404",),
         "tracing `with torch.cpu.amp.autocast(...)` raises an internal Dynamo error (KeyError: 'dtype'), with or "
         "without a break inside: the compiled call raises (`torch.autocast(\"cpu\")` is fine); measured on "
         "torch 2.13.0, 2.14.1 and 2.15.0", "§8.13",
         ("019_autocast_variants_break.py", "measured/n08_autocast_variants.py")),
)}


def holds(name: str, torch_version: str, python_version: Tuple[int, int]) -> bool:
    """Whether fact ``name`` holds for ``torch_version`` on ``python_version``; raises KeyError
    for an unknown name."""
    return FACTS[name].holds(torch_version, python_version)


def facts_for(code: str) -> List[Fact]:
    """The facts that change what ``code`` reports, in :data:`FACTS` order."""
    return [f for f in FACTS.values() if code in f.codes]


# ------------------------------------------------------------------ torch


def _release_tuple(version: str) -> Tuple[int, ...]:
    from .registry import _version
    return _version(version).release


@functools.lru_cache(maxsize=None)
def release_for(version: str) -> str:
    """The supported release whose registry data and facts apply to torch ``version``: the one
    with the same major.minor (``"2.14.0"`` -> ``"2.14.1"``, ``"2.15.0a0+git1"`` -> ``"2.15.0"``),
    else the nearest (older than all: the oldest; newer: the newest)."""
    mm = _release_tuple(version)[:2]
    for release in SUPPORTED_TORCH:
        if _release_tuple(release)[:2] == mm:
            return release
    return SUPPORTED_TORCH[0] if mm < _release_tuple(SUPPORTED_TORCH[0])[:2] else NEWEST_TORCH


def is_supported(version: str) -> bool:
    """Whether ``version``'s major.minor is one of :data:`SUPPORTED_TORCH`'s."""
    return _release_tuple(release_for(version))[:2] == _release_tuple(version)[:2]


_INSTALLED: Dict[tuple, Optional[str]] = {}


def installed_torch(memo: Optional[str] = None) -> Optional[str]:
    """The version of the torch distribution installed where gblint runs (``"2.13.0+cpu"``), read
    with :func:`importlib.metadata.version` from its ``torch-X.dist-info/METADATA`` on
    ``sys.path`` (torch is never imported), or None when none is installed.

    ``memo``: a JSON file (in the summary cache folder) that keeps the answer for the same
    ``sys.path`` folders with the same modification times, so that a warm run does not pay for
    importing :mod:`importlib.metadata` (tens of ms); installing or removing a distribution
    changes its folder's time. An unreadable or foreign memo is ignored."""
    paths = tuple(sys.path)
    if paths in _INSTALLED:
        return _INSTALLED[paths]
    key = _environment_key() if memo else None
    found = _read_memo(memo, key) if memo else False
    if found is False:
        import importlib.metadata
        try:
            found = importlib.metadata.version("torch")
        except importlib.metadata.PackageNotFoundError:
            found = None
        if memo:
            _write_memo(memo, key, found)
    _INSTALLED[paths] = found
    return found


def _environment_key() -> List[list]:
    out = [[sys.prefix, 0]]
    for p in sys.path:
        try:
            out.append([p, os.stat(p or ".").st_mtime_ns])
        except OSError:
            out.append([p, -1])
    return out


def _read_memo(memo: str, key) -> object:
    """The memo's version (a str or None) when it was written for ``key``, else False. Only a
    small regular file is read (never through a link)."""
    import stat
    try:
        st = os.lstat(memo)
        if not stat.S_ISREG(st.st_mode) or st.st_size > 1 << 20:
            return False
        with open(memo, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return False
    if not isinstance(data, dict) or data.get("key") != key:
        return False
    value = data.get("torch")
    return value if value is None or isinstance(value, str) else False


def _write_memo(memo: str, key, version: Optional[str]) -> None:
    """Write the memo atomically (a temporary file renamed over it); a failure is ignored."""
    import tempfile
    try:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(memo) or ".", prefix=".environment-")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"key": key, "torch": version}, fh)
        os.replace(tmp, memo)
    except OSError:
        pass


def torch_of(settings) -> str:
    """The torch version in force for ``settings``: ``settings.torch_version`` when set, else the
    installed one, else :data:`NEWEST_TORCH`."""
    return settings.torch_version or installed_torch() or NEWEST_TORCH


# ------------------------------------------------------------------ Python


def admits(spec: str, minor: Tuple[int, int]) -> bool:
    """Whether the ``requires-python`` specifier ``spec`` admits some release of Python
    ``minor`` (``(3, 12)``: 3.12.0 to 3.12.30)."""
    from .registry import _specifier
    s = _specifier(spec)
    return any(s.contains(f"{minor[0]}.{minor[1]}.{patch}", prereleases=True) for patch in range(31))


def python_for(requires: str, running: Tuple[int, ...]) -> Optional[Tuple[int, int]]:
    """The Python to predict for a project whose ``requires-python`` is ``requires``, when gblint
    runs on ``running`` (``sys.version_info``): None when ``running`` is admitted (the project
    runs on it), else the oldest Python in :data:`PYTHON_RANGE` that ``requires`` admits, else None
    (it admits none of them). Raises ValueError for a specifier PEP 440 cannot read."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    try:
        s = SpecifierSet(requires)
    except InvalidSpecifier as exc:
        raise ValueError(str(exc)) from None
    if s.contains("%d.%d.%d" % tuple(running[:3]), prereleases=True):
        return None
    low, high = PYTHON_RANGE
    for minor in range(low[1], high[1] + 1):
        if admits(requires, (low[0], minor)):
            return (low[0], minor)
    return None


# ------------------------------------------------------------------ the record of a run


def describe(settings) -> Dict[str, str]:
    """The versions in force, as JSON records them (``versions`` of ``--format json``):
    ``torch`` (the version), ``torch_from`` (``option``, ``configuration``, ``installed`` or
    ``default``), ``torch_release`` (the measured release whose facts and registry apply),
    ``python`` (``"3.12"``) and ``python_from`` (``option``, ``configuration``,
    ``requires-python`` or ``interpreter``)."""
    torch = torch_of(settings)
    torch_from = settings.torch_source or (FROM_INSTALLED if not settings.torch_version and installed_torch()
                                           else FROM_OPTION if settings.torch_version else FROM_DEFAULT)
    return {"torch": torch, "torch_from": torch_from, "torch_release": release_for(torch),
            "python": "%d.%d" % tuple(settings.python_version), "python_from": settings.python_source or FROM_INTERPRETER}


def sentence(settings) -> str:
    """The versions in force in one line, for verbose output: ``predicting torch 2.14.1 (installed)
    on Python 3.12 (requires-python '>=3.12'); facts and graph-break registry of torch 2.14.1``."""
    d = describe(settings)
    torch_words = {FROM_OPTION: "--torch-version", FROM_CONFIG: "[tool.gblint] torch-version",
                   FROM_INSTALLED: "installed", FROM_DEFAULT: "no torch installed: the newest measured release"}
    requires = getattr(settings, "python_requires", "")
    python_words = {FROM_OPTION: "--python-version", FROM_CONFIG: "[tool.gblint] python-version",
                    FROM_REQUIRES: f"requires-python {requires!r}", FROM_INTERPRETER: "the running interpreter"}
    out = (f"predicting torch {d['torch']} ({torch_words.get(d['torch_from'], d['torch_from'])}) on Python "
           f"{d['python']} ({python_words.get(d['python_from'], d['python_from'])}); ")
    if not is_supported(d["torch"]):
        return out + (f"torch {d['torch']} was not measured: the facts and graph-break registry of torch "
                      f"{d['torch_release']} apply")
    return out + f"facts and graph-break registry of torch {d['torch_release']}"
