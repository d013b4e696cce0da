"""Compiled regions: from what the files declare (``@torch.compile``, ``torch.compile(model)``,
``--entry``) to the entry frames Dynamo compiles, and the functions those reach.

Stage 3b of the pipeline (``docs/architecture.md``): it reads only the index and the summaries.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from ..settings.config import Settings, display_path
from .index import Project
from ..core.model import BlockKind, Expr, FileSummary, Frame, InstanceCall, LocalFunction, Region, RegionDecl
from ..core.ops import Op
from ..abstract import values
from ..abstract.certainty import certainty_of
from ..abstract.values import ERROR_PATH
from ..core.semantics import EAGER_STANCES
from ..core.versions import torch_of


def find_regions(project: Project, settings: Settings, summaries: Optional[List[FileSummary]] = None) -> List[Region]:
    """Every compiled entry declared in the checked files, plus configured entry points."""
    regions: List[Region] = []
    seen = set()
    checked = summaries if summaries is not None else list(project.by_path.values())

    def add(frame: Frame, env, fullgraph: bool, summary: FileSummary, spelling: str, names=(), obj=None,
            training=None, site=None, unsure=()) -> None:
        # a closure is a frame per frame that made it: a decorator's wrapper around each compiled function
        key = (frame.path, frame.name, env.outer if env else None)
        if key in seen:
            return
        seen.add(key)
        ngb = summary.config.get("nested_graph_breaks", settings.dynamo_config.get("nested_graph_breaks", False))
        regions.append(Region(frame, fullgraph, bool(ngb), settings.python_version, spelling,
                              tuple((summary.path, n) for n in names), env, obj, torch_of(settings), training, site,
                              unsure))

    for summary in checked:
        switched = switched_off(summary)
        if switched is True:
            continue  # switched off at module level, before any compiled object runs: Dynamo compiles nothing
        for decl in summary.regions:
            if decl.disable is not None and _disabled(project, summary, decl):
                continue
            obj = project.interp.calls.compiled_object(summary, decl.value, decl.function) if decl.value is not None \
                else None
            for frame, env in _entry_targets(project, summary, decl):
                add(frame, env, decl.fullgraph, summary, decl.spelling, decl.names, obj if env is not None else None,
                    decl.training, (summary.path, decl.function) if decl.function else None,
                    decl.unsure + ((_SWITCHED,) if switched is None else ()))
    for spec in settings.entry_points:
        for frame, env in _entry_point_targets(project, spec):
            add(frame, env, False, project.by_path[frame.path], f"entry point {spec}")
    return regions


_SWITCHED = "Dynamo is not switched off by the file's `set_stance` or `config.disable`"


def switched_off(summary: FileSummary) -> Optional[bool]:
    """Whether the file switches Dynamo off before its compiled objects run: True where it is
    ``torch.compiler.set_stance("force_eager")`` or ``torch._dynamo.config.disable = True`` at its top and nothing else
    in it changes the stance or the setting; None where anything else does (a stance or value not known, another
    stance, a setting inside a function or a ``with``, ``config.patch(disable=...)``: what is compiled is then not
    proven, its diagnostics are conditional on it); False where nothing does (torch/compiler/__init__.py
    ``set_stance``; measured: tests/cases/kinds kd7-kd9 and kd12)."""
    config = summary.config
    stance, disable = config.get("stance", "default"), config.get("disable", False)
    disable = bool(disable) if isinstance(disable, (int, float)) else disable  # `config.disable = 1` switches it off
    if config.get("dynamo_switched") or stance not in EAGER_STANCES | {"default"} or disable not in (True, False):
        return None
    return True if disable is True or stance in EAGER_STANCES else False


def _disabled(project: Project, summary: FileSummary, decl: RegionDecl) -> bool:
    """Whether the ``disable=`` of the compile call ``decl`` is surely true where the call is (``torch.compile(step,
    disable=not USE_COMPILE)`` with ``USE_COMPILE = False``): then nothing is compiled (torch/__init__.py: ``compile``
    returns the function itself; measured: tests/cases/kinds kd4)."""
    interp = project.interp
    info = summary.functions.get(decl.function) if decl.function else None
    env = interp.frame_env(Frame(summary.path, info), None) if info is not None else interp.module_env(summary.path)
    return values.truth_of(interp.evaluate(decl.disable, env, None)) is True


def entry_point_frames(project: Project, spec: str) -> List[Frame]:
    """Frames named by ``pkg.module:Class.forward``, ``pkg.module:Class`` (its forward) or
    ``pkg.module:function``. Unknown names yield nothing."""
    return [frame for frame, _ in _entry_point_targets(project, spec)]


def _entry_point_targets(project: Project, spec: str) -> List[Tuple[Frame, Optional[dict]]]:
    """:func:`entry_point_frames` with what each entry's parameters hold: a class's instance
    is ``self``, and its ``forward`` is what its decorators made it (their wrapper first)."""
    module, _, qual = spec.partition(":")
    summary = project.module(module)
    if summary is None:
        for s in project.by_path.values():  # a bare file name: "train:main"
            if s.module.rsplit(".", 1)[-1] == module:
                summary = s
                break
    if summary is None or not qual:
        return []
    if qual in summary.classes or (qual in summary.functions and "." not in qual):
        found = [(t.frame, t.env) for t in project.interp.calls.compiled(summary, Expr(Op.GLOBAL, f"{summary.module}.{qual}"
                                                                                if summary.module else qual), None)]
        if found:
            return found
    if qual in summary.functions:
        return [(Frame(summary.path, summary.functions[qual]), None)]
    if qual in summary.classes:
        m = project.method(summary, summary.classes[qual], "forward")
        return [(m, None)] if m else []
    return []


def _entry_targets(project: Project, summary: FileSummary, decl: RegionDecl) -> List[Tuple[Frame, Optional[dict]]]:
    """The frames a region declaration compiles, with what their parameters hold: what the
    interpreter finds the compiled object to be (:meth:`gblint.abstract.interp.Interpreter.compiled`),
    else what the declaration's own ref names."""
    if decl.value is not None:
        found = [(t.frame, t.env) for t in project.interp.calls.compiled(summary, decl.value, decl.function)]
        if found:
            return found
    return [(f, None) for f in _entry_frames(project, summary, decl)]


def _entry_frames(project: Project, summary: FileSummary, decl: RegionDecl) -> List[Frame]:
    """The frames a region declaration compiles: the decorated function (``@torch.compile``), or the
    class's ``forward`` (``@torch.compile`` on a class, ``model.compile()``)."""
    ref = decl.target
    if not decl.is_class:  # `torch.compile(x)` of another value: what the interpreter found it to be, or nothing
        f = project.function(summary, ref.qualname) if isinstance(ref, LocalFunction) else None
        return [f] if f else []
    found = project.class_info(summary, ref)
    if found is None and isinstance(ref, InstanceCall):
        found = project.class_info(summary, ref.cls)
    if found:
        m = project.method(found[0], found[1], "forward")
        return [m] if m else []
    return []


def unresolved_regions(project: Project, summaries: Sequence[FileSummary]) -> List[Tuple[FileSummary, RegionDecl]]:
    """The compile declarations of the checked files that resolve to no entry frame (an unknown
    object, a package that is not followed): each is named to the user (``GBL003``) instead of
    being dropped without a word."""
    return [(summary, decl) for summary in summaries for decl in summary.regions
            if not _entry_targets(project, summary, decl)]


def _target_name(decl: RegionDecl) -> Optional[str]:
    target = decl.target
    name = getattr(target, "name", None) or getattr(getattr(target, "cls", None), "name", None)
    return name if isinstance(name, str) else None


def excluded_target(decl: RegionDecl, excluded: Dict[str, Tuple[str, str]]) -> Optional[Tuple[str, str, str]]:
    """``(module, file, pattern)`` when what ``decl`` compiles lives in a project module that
    configuration excludes (``excluded``: :attr:`gblint.project.engine.Loader.excluded`), else None."""
    name = _target_name(decl) or ""
    parts = name.split(".")
    for i in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:i])
        if module in excluded:
            return (module,) + excluded[module]
    return None


def unresolved_reason(project: Project, decl: RegionDecl, followed: Sequence[str],
                      excluded: Optional[Dict[str, Tuple[str, str]]] = None) -> str:
    """Why ``decl`` did not resolve, in words, with what would fix it. ``excluded``: project
    modules configuration leaves out (module -> (file, pattern)), named as such rather than as
    packages to follow."""
    name = _target_name(decl)
    hidden = excluded_target(decl, excluded or {})
    if hidden is not None:
        module, path, pattern = hidden
        return (f"`{name}` is in {display_path(path)} (module `{module}`), which is excluded by configuration "
                f"(exclude pattern \"{pattern}\"), so it is not read")
    if isinstance(name, str) and "." in name:
        head = name.split(".")[0]
        if project.lookup(name) is not None:
            kind = "a function's result" if decl.is_class else "not a function gblint can follow"
            return f"what is compiled is {kind} (`{name}`), which gblint does not follow yet"
        if project.module(head) is None and head not in followed and head != "torch":
            return f"`{name}` is in package `{head}`, which is not followed: pass --follow-imports {head}"
        return f"`{name}` was not found in the source read"
    return "gblint cannot tell what object is compiled here"


def certainty(project: Project, path: str, frame: Optional[str], line: int, trace) -> Tuple[str, str]:
    """``(certainty, condition)`` of a diagnostic at ``path:line`` in ``frame`` reached through
    ``trace`` (:class:`gblint.core.diagnostics.TraceFrame` objects, the paying frame first): the blocks
    around each call of the trace and around the site decide. Under an ``if`` whose test gblint
    does not evaluate: ``"conditional"`` with the test as written (the innermost one, with a
    count when there are more); on an error path (reported with ``--error-paths``):
    ``"error-path"``; else ``"definite"``."""
    steps = [(t.path, t.function, t.line) for t in trace] or [(path, frame, line)]
    conditions: List[str] = []
    error = False
    for step_path, function, step_line in steps:
        summary = project.by_path.get(step_path)
        info = summary.functions.get(function) if summary is not None and function else None
        if info is None:
            continue
        for ev in info.events:
            if ev.span.line != step_line:
                continue
            for b in ev.blocks:
                if b.kind == BlockKind.ERROR_PATH:
                    error = True
                elif b.kind in (BlockKind.BRANCH, BlockKind.OPERAND, BlockKind.AFTER_RETURN) \
                        and b.condition not in conditions:
                    conditions.append(b.condition)
            break
    return certainty_of(conditions + [ERROR_PATH] if error else conditions)
