"""What to run for a file, a region or a command line (no torch import, no user code run).

- A file with a top-level ``def main()`` that can declare a compiled region runs ``main()`` (it
  calls its compiled code itself); a script that compiles nothing is never run.
- Otherwise a file that compiles something and has an ``if __name__ == "__main__":`` block,
  calls what it compiled at module level (``step = torch.compile(f)`` then ``step(x)``), or
  whose compiled regions all lie in other files (a driver of a package's model), is run as a
  program, as ``confirm --run -- python FILE`` runs it.
- Otherwise every compiled region the static pass found in the file is compiled and called:
  a module-level function (``torch.compile`` is applied when the name is not already compiled),
  or ``Class.method`` on ``Class()`` (a ``forward`` compiles the module instance). Its arguments
  come from ``--example`` expressions, ``[tool.gblint.confirm.examples]`` or are synthesised
  from annotations and defaults; a region that cannot be run gets a reason.
"""
from __future__ import annotations

import ast
import dataclasses
import os
import shutil
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .runner import Job


@dataclasses.dataclass
class Unrunnable:
    """A compiled region (or file) that confirm cannot run, and why."""

    path: str
    entry: str
    reason: str

    def to_json(self) -> Dict[str, str]:
        return dataclasses.asdict(self)


@dataclasses.dataclass
class ConfirmConfig:
    """``[tool.gblint.confirm]``: ``backend``, ``device``, ``timeout`` (seconds), ``workers``
    and ``examples`` (``{"module:function" or "function": ["torch.randn(2, 8)", ...]}``)."""

    backend: Optional[str] = None
    device: Optional[str] = None
    timeout: Optional[float] = None
    workers: Optional[int] = None
    examples: Dict[str, List[str]] = dataclasses.field(default_factory=dict)
    source: Optional[str] = dataclasses.field(default=None, compare=False)  # the pyproject.toml read, for messages


def load_confirm_config(pyproject: Optional[str]) -> ConfirmConfig:
    """``[tool.gblint.confirm]`` of ``pyproject`` (None: defaults), as
    :func:`gblint.settings.config.load_table` reads and checks it against the configuration's schema.
    Raises :class:`gblint.settings.config.ConfigError` for an unreadable file or a value the schema
    rejects."""
    cfg = ConfirmConfig()
    if not pyproject:
        return cfg
    from gblint.settings.config import load_table
    table = load_table(pyproject).get("confirm", {})
    cfg.source = pyproject
    cfg.backend, cfg.device = table.get("backend"), table.get("device")
    if "timeout" in table:
        cfg.timeout = float(table["timeout"])
    if "workers" in table:
        cfg.workers = int(table["workers"])  # the schema's integer admits 2.0
    cfg.examples = dict(table.get("examples", {}))
    return cfg


def module_for(path: str) -> Tuple[str, Optional[str]]:
    """``(module name, sys.path entry)`` for a file: a file inside packages is imported by its
    dotted name from the folder above the top package; a lone file is loaded by location under
    its stem (entry None)."""
    from gblint.dynamo.index import module_name
    name, is_package = module_name(path)
    if "." not in name:
        return name, None
    root = os.path.dirname(os.path.abspath(path))
    for _ in range(name.count(".") + (1 if is_package else 0)):
        root = os.path.dirname(root)
    return name, root


def top_level_names(path: str) -> Tuple[set, set]:
    """``(functions, classes)`` defined at module level of ``path`` (read with :mod:`ast`;
    empty sets when it cannot be parsed)."""
    try:
        with open(path, "rb") as fh:
            tree = ast.parse(fh.read(), path)
    except (OSError, SyntaxError, ValueError):
        return set(), set()
    funcs = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    return funcs, classes


def compiles_something(path: str) -> bool:
    """Whether ``path`` can declare a compiled region (``torch.compile``, ``.compile()``,
    ``@torch.compile``), by the engine's own prefilter: only such files' ``main()`` is run, so
    that ``check --confirm`` over a tree never runs scripts that compile nothing."""
    from gblint.project.engine import declares_region
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return declares_region(fh.read())
    except OSError:
        return False


def has_main_guard(path: str) -> bool:
    """Whether ``path`` has a module-level ``if __name__ == "__main__":`` block (read with
    :mod:`ast`)."""
    try:
        with open(path, "rb") as fh:
            tree = ast.parse(fh.read(), path)
    except (OSError, SyntaxError, ValueError):
        return False
    for node in tree.body:
        test = node.test if isinstance(node, ast.If) else None
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
            sides = [test.left] + list(test.comparators)
            if any(isinstance(x, ast.Name) and x.id == "__name__" for x in sides) and any(
                    isinstance(x, ast.Constant) and x.value == "__main__" for x in sides):
                return True
    return False


def _is_compile(func: ast.AST) -> bool:
    """``torch.compile``, ``compile`` (imported from torch) or ``torch.compile(...)`` as a decorator."""
    if isinstance(func, ast.Call):
        func = func.func
    return (isinstance(func, ast.Attribute) and func.attr == "compile" and isinstance(func.value, ast.Name)
            and func.value.id == "torch") or (isinstance(func, ast.Name) and func.id == "compile")


def calls_compiled_at_module_level(path: str) -> bool:
    """Whether module-level code of ``path`` (outside functions and classes) calls a name it
    compiled: bound to ``torch.compile(...)``, a function decorated with it, or a module on
    which ``.compile()`` was called (read with :mod:`ast`)."""
    try:
        with open(path, "rb") as fh:
            tree = ast.parse(fh.read(), path)
    except (OSError, SyntaxError, ValueError):
        return False
    compiled = set()
    top = [n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    for n in tree.body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(_is_compile(d) for d in n.decorator_list):
            compiled.add(n.name)
    calls = []
    todo = list(top)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and _is_compile(node.value.func):
            compiled.update(t.id for t in node.targets if isinstance(t, ast.Name))
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute) and f.attr == "compile" and isinstance(f.value, ast.Name):
                compiled.add(f.value.id)  # model.compile()
            elif isinstance(f, ast.Name):
                calls.append(f.id)
        todo.extend(ast.iter_child_nodes(node))
    return any(c in compiled for c in calls)


def script_job(path: str) -> Job:
    """The job that runs ``path`` as a program, as ``gblint confirm --run -- python PATH`` does
    (as ``__main__``, its folder first on ``sys.path``); a module inside packages as
    ``python -m package.module`` from the folder above its top package, so that its relative
    imports work."""
    apath = os.path.abspath(path)
    module, root = module_for(path)
    if root is not None:
        return Job(entry=f"-m {module}", kind="program", file=apath, module=module, argv=[module], path_entry=root)
    return Job(entry=path, kind="program", file=apath, argv=[path], path_entry=os.getcwd())


def has_main(path: str) -> bool:
    """Whether ``path`` defines a module-level ``main`` function."""
    return "main" in top_level_names(path)[0]


def parse_entry(spec: str) -> Tuple[Optional[str], str]:
    """``"module:function"`` -> ``(module, function)``; ``"function"`` -> ``(None, function)``.
    Raises ``ValueError`` for an empty part."""
    module, sep, function = spec.rpartition(":")
    if not function or (sep and not module):
        raise ValueError(f"bad --entry {spec!r}: expected module:function or function")
    return (module or None), function


def entry_job(path: Optional[str], spec: str, examples: Optional[List[str]],
              config: Optional[ConfirmConfig] = None) -> Job:
    """The job for ``--entry spec`` (with ``FILE`` when given: the file is loaded under the
    spec's module name, so ``--entry case:main`` works for any file). Its arguments are
    ``examples`` (``--example``), else those ``config`` gives the entry, else synthesised."""
    module, function = parse_entry(spec)
    if path is None:
        if module is None:
            raise ValueError(f"--entry {spec!r} needs a module (module:function) when no FILE is given")
        return Job(entry=spec, module=module, function=function, path_entry=os.getcwd(),
                   examples=_examples(config or ConfirmConfig(), module, function, examples))
    if module is None:
        module = module_for(path)[0]
    return Job(entry=f"{module}:{function}", file=os.path.abspath(path), module=module, function=function,
               examples=_examples(config or ConfirmConfig(), module, function, examples))


def example_keys(module: Optional[str], function: str) -> Tuple[str, ...]:
    """The ``[tool.gblint.confirm] examples`` keys that name entry ``module:function``, most
    specific first: ``"module:function"`` and ``"function"``."""
    return ((f"{module}:{function}",) if module else ()) + (function,)


def check_examples(config: ConfirmConfig, jobs: Sequence[Job], unrunnable: Sequence[Unrunnable] = (),
                   files: Sequence[str] = (), settings=None) -> None:
    """Raise :class:`gblint.settings.config.ConfigError` for the first ``examples`` key of ``config``
    that names nothing: a misspelt key would otherwise leave its region to synthesised
    arguments without a word. A key names something when it is the entry of one of ``jobs``
    (the ``main()``, regions or ``--entry`` being confirmed) or of ``unrunnable``, or else
    when a function or class of that qualified name is defined in ``files`` (the files of this
    run) or in the project under the configuration's folder (files ``settings`` does not
    exclude): a run over some files of a project does not fail on the keys of the others. The
    message lists the entries of this run."""
    if not config.examples:
        return
    names: Dict[str, None] = {}
    for job in jobs:
        if job.kind == "entry":
            for key in example_keys(job.module, job.function):
                names.setdefault(key, None)
    for u in unrunnable:
        module, _, qualname = u.entry.rpartition(":")
        for key in example_keys(module or None, qualname):
            names.setdefault(key, None)
    unmatched = [key for key in config.examples if key not in names]
    if not unmatched:
        return
    project = _ProjectDefinitions(files, os.path.dirname(os.path.abspath(config.source)) if config.source else None,
                                  settings)
    for key in unmatched:
        module, _, qualname = key.rpartition(":")
        if project.defines(module or None, qualname):
            continue
        from gblint.settings.config import ConfigError
        entries = sorted({k for k in names if ":" in k})
        shown = ", ".join(entries[:8]) + (f" and {len(entries) - 8} more" if len(entries) > 8 else "")
        where = f"{config.source}: " if config.source else ""
        what = f"module `{module}` defines no `{qualname}`" if module and project.has_module(module) else (
            f"no module `{module}` in the project" if module else f"no function or class `{qualname}` in the project")
        raise ConfigError(f"{where}[tool.gblint.confirm] examples key {key!r} names nothing: {what} (a key is "
                          f"MODULE:QUALNAME or QUALNAME of a compiled region, main() or --entry; this run's entries: "
                          f"{shown or 'none'})")


class _ProjectDefinitions:
    """The functions and classes defined in the files of a run, then, only when asked about a
    name those lack, in the project's other files (read with :mod:`ast`, never imported)."""

    def __init__(self, files: Sequence[str], root: Optional[str], settings) -> None:
        self.files = [os.path.abspath(f) for f in files]
        self.root = root
        self.settings = settings
        self._more: Optional[List[str]] = None
        self._defs: Dict[str, set] = {}

    def _all(self):
        yield from self.files
        if self._more is None:
            self._more = []
            if self.root is not None:
                from gblint.settings.config import Settings
                from gblint.project.engine import iter_python_files
                seen = set(self.files)
                self._more = [os.path.abspath(p) for p in iter_python_files([self.root], self.settings or Settings())
                              if os.path.abspath(p) not in seen]
        yield from self._more

    def _definitions(self, path: str) -> set:
        if path not in self._defs:
            self._defs[path] = qualnames(path)
        return self._defs[path]

    def has_module(self, module: str) -> bool:
        """Whether a file of the project is module ``module``."""
        return any(module_for(p)[0] == module for p in self._all())

    def defines(self, module: Optional[str], qualname: str) -> bool:
        """Whether ``qualname`` is defined in module ``module`` (any file when None)."""
        last = qualname.rsplit(".", 1)[-1]
        for path in self._all():
            if module is not None and module_for(path)[0] != module:
                continue
            try:
                with open(path, "rb") as fh:
                    if last.encode() not in fh.read():
                        continue
            except OSError:
                continue
            if qualname in self._definitions(path):
                return True
        return False


def qualnames(path: str) -> set:
    """Qualified names of the functions and classes ``path`` defines outside function bodies
    (``f``, ``Net``, ``Net.forward``), read with :mod:`ast`; empty when it does not parse."""
    try:
        with open(path, "rb") as fh:
            tree = ast.parse(fh.read(), path)
    except (OSError, SyntaxError, ValueError):
        return set()
    out = set()
    todo = [(tree.body, "")]
    while todo:
        body, prefix = todo.pop()
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.add(prefix + node.name)
                if isinstance(node, ast.ClassDef):
                    todo.append((node.body, f"{prefix}{node.name}."))
            elif isinstance(node, (ast.If, ast.Try)):  # definitions under `if`/`try` at the same level
                handlers = [n for h in getattr(node, "handlers", []) for n in h.body]
                todo.append((node.body + node.orelse + getattr(node, "finalbody", []) + handlers, prefix))
    return out


def static_regions(paths: Sequence[str], settings) -> List[Tuple[str, str, bool]]:
    """Every compiled region the static pass finds in ``paths``: ``(path, entry qualname,
    fullgraph)``."""
    from gblint.project.engine import find_regions, iter_python_files, summarize
    from gblint.dynamo.index import Project
    from gblint.core.source import SourceError, read_source
    summaries = []
    for p in iter_python_files(list(paths), settings):
        try:
            summaries.append(summarize(read_source(p), p, settings))
        except SourceError:
            continue
        except Exception:
            continue
    out = []
    for region in find_regions(Project(summaries), settings):
        out.append((region.entry.path, region.entry.name, bool(region.fullgraph)))
    return out


def plan_files(paths: Sequence[str], settings, config: ConfirmConfig, examples: Optional[List[str]] = None,
               regions: Optional[List[Tuple[str, str, bool]]] = None) -> Tuple[List[Job], List[Unrunnable]]:
    """Jobs for ``gblint check --confirm`` / ``gblint confirm`` without ``--entry``: ``main()``
    of each file that has one and compiles something (:func:`compiles_something`), else the
    file as a program when it is a script that compiles something (see the module doc), else
    each compiled region of the file.
    ``regions``: ``(path, qualname, fullgraph)`` of the static pass (found again when None)."""
    from gblint.project.engine import iter_python_files
    files = iter_python_files(list(paths), settings)
    if regions is None:
        regions = static_regions(files, settings)
    jobs: List[Job] = []
    unrunnable: List[Unrunnable] = []
    by_file: Dict[str, List[Tuple[str, bool]]] = {}
    for path, qualname, fullgraph in regions:
        by_file.setdefault(os.path.abspath(path), []).append((qualname, fullgraph))
    for path in files:
        apath = os.path.abspath(path)
        module, root = module_for(path)
        if has_main(path) and compiles_something(path):
            jobs.append(Job(entry=f"{module}:main", file=apath, module=module, function="main",
                            examples=_examples(config, module, "main", examples), path_entry=root))
            continue
        if compiles_something(path) and (has_main_guard(path) or not by_file.get(apath)
                                         or calls_compiled_at_module_level(path)):
            # a script: it compiles and runs at module level (or its `if __name__ ==
            # "__main__":` does, or its regions are another file's): run it whole, with real inputs
            jobs.append(script_job(path))
            continue
        funcs, classes = top_level_names(path)
        for qualname, fullgraph in by_file.get(apath, []):
            entry = f"{module}:{qualname}"
            parts = qualname.split(".")
            if not ((len(parts) == 1 and parts[0] in funcs) or (len(parts) == 2 and parts[0] in classes)):
                unrunnable.append(Unrunnable(path, entry, "not a module-level function or a method of a "
                                                          "module-level class, so it cannot be called from outside; "
                                                          "run the code that builds it with --entry module:function"))
                continue
            jobs.append(Job(entry=entry, file=apath, module=module, function=qualname,
                            examples=_examples(config, module, qualname, examples), path_entry=root,
                            compile_target=True, fullgraph=fullgraph))
    return jobs, unrunnable


def _examples(config: ConfirmConfig, module: Optional[str], function: str,
              given: Optional[List[str]]) -> Optional[List[str]]:
    if given:
        return list(given)
    for key in example_keys(module, function):
        if key in config.examples:
            return list(config.examples[key])
    return None


_PY_FLAGS_WITH_ARG = ("-W", "-X", "-Q")


def program_job(command: Sequence[str]) -> Tuple[Job, str]:
    """``python [flags] script.py args`` or ``python -m module args`` -> ``(job, interpreter)``.
    Raises ``ValueError`` for a command that does not start with a Python interpreter."""
    if not command:
        raise ValueError("--run needs a command after '--', e.g. gblint confirm --run -- python train.py")
    exe = command[0]
    base = os.path.basename(exe)
    if not (base.startswith("python") or os.path.realpath(shutil.which(exe) or exe) == os.path.realpath(sys.executable)):
        raise ValueError(f"--run observes Python programs: the command must start with a Python interpreter, "
                         f"not {exe!r} (for a test suite use `pytest -p gblint.runtime_check.pytest_plugin "
                         f"--gblint-confirm`)")
    interpreter = shutil.which(exe) or exe
    rest = list(command[1:])
    while rest and rest[0].startswith("-") and rest[0] != "-m":
        flag = rest.pop(0)
        if flag in _PY_FLAGS_WITH_ARG and rest:
            rest.pop(0)
        elif flag == "-c":
            raise ValueError("--run cannot observe `python -c`; put the code in a file")
    if not rest:
        raise ValueError("--run needs a script or -m module after the interpreter")
    if rest[0] == "-m":
        if len(rest) < 2:
            raise ValueError("-m needs a module name")
        job = Job(entry=f"-m {rest[1]}", kind="program", module=rest[1], argv=rest[1:], path_entry=os.getcwd())
    else:
        job = Job(entry=rest[0], kind="program", file=os.path.abspath(rest[0]), argv=rest, path_entry=os.getcwd())
    return job, interpreter


def user_files(runs: Sequence[Dict[str, Any]], roots: Sequence[str]) -> List[str]:
    """Files under ``roots`` (folders) that the runs' observations name: they are checked
    statically too, so that a break in a helper module can be matched."""
    seen = set()
    roots = [os.path.realpath(r) + os.sep for r in roots]
    for run in runs:
        items: List[Dict[str, Any]] = []
        for b in run.get("breaks", []):
            items.append(b)
            items.extend(b.get("stack", []))
        items.extend(run.get("skipped_frames", []))
        for err in ([run["error"]] if run.get("error") else []) + list(run.get("compile_errors") or []):
            items.append(err)
            items.extend(err.get("stack") or [])
        for it in items:
            p = it.get("path")
            if p and p.endswith(".py") and os.path.isfile(p):
                rp = os.path.realpath(p)
                if any(rp.startswith(r) for r in roots) and "site-packages" not in rp:
                    seen.add(rp)
    return sorted(seen)
