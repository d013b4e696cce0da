"""What the program may change in objects after it builds them (issue 15's known values).

gblint decides a branch on ``self.config.use_cache`` from what the config's class sets, unless
the program may change the attribute before the compiled region runs: ``cfg.use_cache = True``
at module level, in a helper (``enable(cfg)``), ``setattr(cfg, "use_cache", True)``, or a method
that assigns it (``model.enable()``) called on the object from outside its class. Which object
a store changes and whether it runs first are not followed; what counts is whether the code
that stores it may run at all: module-level code, and the functions reachable by name from it
and from the methods Python and Dynamo call themselves (dunder methods, ``forward``): called, or
used as a value (handed to a call, stored in a table, decorated) by such code. A store in
a library method nothing calls (``enable_gradient_checkpointing`` when the program never calls
it) changes nothing.
"""
from __future__ import annotations

from typing import Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

from ..core.model import EventKind, Expr, FileSummary, FunctionInfo
from ..core.namespace import ANY
from ..core.ops import Op

_CALLED_BY_PYTHON = ("forward",)  # besides dunder methods: nn.Module.__call__ calls forward


def program_changes(summaries: Iterable[FileSummary], drivers: Iterable[str] = ()
                    ) -> Tuple[FrozenSet[str], FrozenSet[str], FrozenSet[Tuple[str, str]]]:
    """``(stored, called, rebound)`` over ``summaries``: the attribute names stored on anything
    but a method's own ``self`` by code that may run, the method names called on anything but
    the calling method's ``self`` (at module level or in such code), and the module globals
    (``(path, name)``) such code rebinds under ``global``."""
    changes = ProgramChanges()
    for s in summaries:
        changes.add(s)
    changes.drive(drivers)
    return changes.result()


class ProgramChanges:
    """:func:`program_changes` kept up to date as files are read: each file's functions and
    module-level uses are taken in once (:meth:`add`), and only the names they newly reach are
    followed. What may run is the least set closed under "calls or hands on", which grows with
    the files, so the order files come in does not change the result (an interpreter that read
    every file so far again at each new one spent a tenth of a warm run doing so)."""

    def __init__(self) -> None:
        self._by_name: Dict[str, List[Tuple[str, FunctionInfo]]] = {}  # function name -> (path, function)
        self._reached: Set[str] = set()
        self._called: Set[str] = set()
        self._stored: Set[str] = set()
        self._rebound: Set[Tuple[str, str]] = set()
        self._result: Optional[tuple] = None

    def add(self, s: FileSummary) -> None:
        """Take in one more file summary ``s`` (each file once)."""
        self._result = None
        seeds = set(s.called_methods) | _module_uses(s)  # what module-level code calls or uses as values
        for info in s.functions.values():
            self._by_name.setdefault(info.name, []).append((s.path, info))
            if info.name.startswith("__") or info.name in _CALLED_BY_PYTHON or info.decorators:
                seeds.add(info.name)  # Python calls it, or it is handed to a decorator
        self._called.update(s.called_methods)
        self._stored.update(_scoped(a, s.path) for a in s.stored_attrs)
        stack = []
        for info in s.functions.values():  # a function of a name that already runs runs too
            if info.name in self._reached:
                stack.extend(self._take(s.path, info))
        self._follow(stack + list(seeds))

    def drive(self, drivers: Iterable[str]) -> None:
        """Also run the functions named ``drivers`` (the program's own functions that compile:
        what a driver calls runs)."""
        self._result = None
        self._follow(list(drivers))

    def reaches(self, name: str) -> bool:
        """Whether a function named ``name`` may run (reached by name from what runs)."""
        return name in self._reached

    def result(self) -> Tuple[FrozenSet[str], FrozenSet[str], FrozenSet[Tuple[str, str]]]:
        """``(stored, called, rebound)`` of the files taken in so far (as :func:`program_changes`)."""
        if self._result is None:
            self._result = frozenset(self._stored), frozenset(self._called), frozenset(self._rebound)
        return self._result

    def _follow(self, stack: List[str]) -> None:
        """Mark the names on ``stack`` reached, and what their functions reach."""
        while stack:
            name = stack.pop()
            if name in self._reached:
                continue
            self._reached.add(name)
            for path, info in self._by_name.get(name, ()):
                stack.extend(self._take(path, info))

    def _take(self, path: str, info: FunctionInfo) -> FrozenSet[str]:
        """Note what ``info`` (a function of the file at ``path`` that may run) stores, calls and
        rebinds; return the names it reaches."""
        found, calls = _uses(info)
        self._called |= calls
        self._stored.update(_scoped(a, path) for a in info.stores)
        self._rebound.update((path, g) for g in info.rebinds)
        return found


def _scoped(name: str, path: str) -> str:
    """A stored attribute name; :data:`gblint.core.namespace.ANY` (a name not known) with the path of the file whose
    code stores it (:func:`import_groups`: only objects that file's code can reach are changed)."""
    return ANY + path if name == ANY else name


def import_groups(summaries: Iterable[FileSummary]) -> Dict[str, int]:
    """Each file's group: files connected by imports, either way (a module's code reaches the objects of the
    modules it imports and is handed those of the modules importing it)."""
    summaries = list(summaries)
    by_module = {s.module: s.path for s in summaries}
    parent = {s.path: s.path for s in summaries}

    def find(p: str) -> str:
        while parent[p] != p:
            parent[p] = parent[parent[p]]
            p = parent[p]
        return p

    for s in summaries:
        for dotted in list(s.imports.values()) + list(s.star_imports):
            parts = dotted.split(".")
            for i in range(len(parts), 0, -1):
                other = by_module.get(".".join(parts[:i]))
                if other is not None:
                    parent[find(other)] = find(s.path)
                    break
    groups: Dict[str, int] = {}
    return {p: groups.setdefault(find(p), len(groups)) for p in parent}


_USES: Dict[int, Tuple[FunctionInfo, FrozenSet[str], FrozenSet[str]]] = {}


def _uses(info: FunctionInfo) -> Tuple[FrozenSet[str], FrozenSet[str]]:
    """``(found, called)`` of one function: the names of what it may call or hand on, and the
    method names it calls on anything but its own ``self``. Cached by identity: a summary's
    functions do not change, and every file loaded later asks for them again."""
    hit = _USES.get(id(info))
    if hit is not None and hit[0] is info:
        return hit[1], hit[2]
    # a method's own instance (or class); a plain function's first parameter is any object handed to it
    own = info.params[0].name if info.params and info.class_name and info.decorator("staticmethod") is None else None
    found = _named(v for values in info.locals.values() for v in values) | _named(info.results)
    called = set()
    for ev in info.events:
        if ev.kind != EventKind.CALL or not ev.call_text:
            continue
        name = ev.call_text.rsplit(".", 1)[-1]
        # a method's `super().name(...)` of its own name runs only where it runs: no call of it by the program
        if ev.func is not None and ev.func.op == Op.ATTR and not (
                ev.func.parts and ev.func.parts[0].op == Op.PARAM and ev.func.parts[0].value == own) \
                and not (name == info.name and ev.func.parts and ev.func.parts[0].op == Op.SUPER):
            called.add(name)
        found.add(name)
        found |= _named(_argument_values(ev.args))
    if len(_USES) > 500_000:  # a long-lived server: summaries of old edits go
        _USES.clear()
    uses = frozenset(found), frozenset(called)
    _USES[id(info)] = (info,) + uses
    return uses


_MODULE_USES: Dict[int, Tuple[FileSummary, FrozenSet[str]]] = {}


def _module_uses(s: FileSummary) -> FrozenSet[str]:
    """The names module-level code of ``s`` calls or uses as values (cached by identity, as
    :func:`_uses`: every file loaded later asks for them again)."""
    hit = _MODULE_USES.get(id(s))
    if hit is not None and hit[0] is s:
        return hit[1]
    found = {name.rsplit(".", 1)[-1] for name, _ in s.module_calls}
    found |= _named(v for values in s.module_values.values() for v in values)
    found |= _named(v for _, args in s.module_calls for v in _argument_values(args))
    if len(_MODULE_USES) > 100_000:
        _MODULE_USES.clear()
    _MODULE_USES[id(s)] = (s, frozenset(found))
    return _MODULE_USES[id(s)][1]


def _argument_values(args) -> Iterable[Expr]:
    """The values a call passes (``args``: a :class:`gblint.core.model.CallArgs`, or None)."""
    if args is None:
        return ()
    return args.positional + tuple(v for _, v in args.keywords) + args.rest + args.rest_kw


def _named(found: Iterable) -> set:
    """The last names of the functions and attributes the values ``found`` may refer to (a
    function handed to a call, stored in a table or a ``partial``, a bound method ``self.step``):
    code that may call them."""
    out: set = set()
    seen: set = set()  # a summary's equal values are one object (gblint.project.cache_codec): each walked once
    stack = [v for v in found if v is not None]
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if e.op in _NAMING and isinstance(e.value, str):
            out.add(e.value.rsplit(".", 1)[-1])
        stack.extend(p for p in e.parts if isinstance(p, Expr))
    return out


_NAMING = frozenset({Op.GLOBAL, Op.DEF, Op.ATTR})
