"""Whether a function changes the collections it is handed, for the object interpreter.

A function that hands a parameter on (``misc.handle(kwargs, msg="x")``) may have it changed by
the callee; until the callee is known, the parameter's collection is taken as changed
(:func:`gblint.abstract.values.changed_in_place`) and a test on it (``len(kwargs) > 0``) is not decided.
Each such place is recorded as a ``changes`` test (:attr:`gblint.core.ops.Op.CHANGES`, in
:attr:`gblint.core.model.FunctionInfo.mutated_when`): the walk asks it here, where the called value is known. Python passes the object itself, so the
callee changes it exactly when its own parameter is changed in place (``kw.pop(k)``,
``kw[k] = v``) or handed on to something that may change it. :class:`Handing` answers for
:class:`gblint.abstract.interp.Interpreter`, which holds one.
"""
from __future__ import annotations

from typing import Dict, Optional, Protocol, Set, Tuple, Union

from . import values
from ..core.model import Expr, Frame, FunctionInfo
from ..core.ops import Op

_Key = Tuple[str, str, str]  # (path, qualname, parameter)


class HandingHost(Protocol):
    """What :class:`Handing` asks of the interpreter (:class:`gblint.abstract.interp.Interpreter`)."""

    project: object
    calls: object  # gblint.abstract.invoke.Calls: program_function

    def value(self, e: Expr, env: values.Env) -> Expr: ...

    def frame_env(self, frame: Frame, env: Optional[values.Env]) -> values.Env: ...


class Handing:
    """Whether functions change what they are handed, asked of ``interp`` (a :class:`HandingHost`);
    what it found, per ``(path, qualname, parameter)``, is kept."""

    def __init__(self, interp: HandingHost):
        self.interp = interp
        self.project = interp.project
        self._handing: Dict[_Key, Optional[bool]] = {}
        self._handing_active: Set[_Key] = set()

    def changes(self, e: Expr, env: values.Env) -> Optional[bool]:
        """The ``changes`` test ``e`` in a frame whose values are ``env``: False when every function
        the called value ``e.parts[0]`` may be is one of the program's that changes nothing it gets at
        ``e.value`` (a position or keyword); None (may change) for anything else: a library
        function, a value not known, a slot that lands in ``*args``/``**kwargs``."""
        fn = self.interp.value(e.parts[0], env)
        parts = fn.parts if fn.op == Op.UNION else (fn,)
        if not parts:
            return None
        return False if all(self._callee_changes(p, e.value) is False for p in parts) else None

    def _callee_changes(self, fn: Expr, slot: Union[int, str]) -> Optional[bool]:
        frame, recv = self.interp.calls.program_function(fn)
        name = _parameter(frame.info, slot, recv) if frame is not None else None
        if name is None:
            return None
        return self.param_changed(frame, name)

    def param_changed(self, frame: Frame, name: str) -> Optional[bool]:
        """Whether the function ``frame`` may change in place what its parameter ``name`` holds,
        for any values of its parameters: False when no place changes it and every call it is
        handed to changes nothing (:meth:`changes`) and it keeps the object nowhere another name
        reaches it; None when it may (recursion: may)."""
        info = frame.info
        if self._kept(frame, name):
            return None
        if name not in info.mutated:
            return False
        key = (frame.path, info.qualname, name)
        if key in self._handing:
            return self._handing[key]
        if key in self._handing_active:
            return None
        self._handing_active.add(key)
        try:
            env = self.interp.frame_env(frame, None)
            found = False if not values.changed_by(info, name, env) else None
        finally:
            self._handing_active.discard(key)
        self._handing[key] = found
        return found

    def _kept(self, frame: Frame, name: str) -> bool:
        """Whether ``frame``'s function keeps what its parameter ``name`` holds where other code may
        change it: returns it, binds it to a local, or stores it on its instance."""
        info = frame.info
        if any(_holds(v, name) for v in info.results) or \
                any(_holds(v, name) for vs in info.locals.values() for v in vs):
            return True
        summary = self.project.by_path.get(frame.path)
        cls = summary.classes.get(info.class_name) if summary is not None and info.class_name else None
        return cls is not None and any(q == info.qualname and _holds(v, name)
                                       for stores in cls.assigned.values() for q, v in stores)


def _holds(e: Expr, name: str) -> bool:
    """Whether the value ``e`` may be, or hold, what the parameter ``name`` holds (``p``, ``p or {}``,
    ``(p, q)``): another name for the same object, which the function's caller may change later."""
    if e.op == Op.PARAM:
        return e.value == name
    parts = e.parts[1:] if e.op == Op.IFELSE else e.parts if e.op in _CARRIERS else ()
    return any(_holds(p, name) for p in parts)


_CARRIERS = frozenset({Op.UNION, Op.OR, Op.AND, Op.SEQ, Op.SET, Op.DICT, Op.KV})


def _parameter(info: FunctionInfo, slot: Union[int, str], recv: int) -> Optional[str]:
    """The parameter of ``info`` that an argument at ``slot`` (a position, after ``recv`` bound
    receivers, or a keyword) binds; None when it lands in ``*args``/``**kwargs`` or nowhere."""
    if isinstance(slot, int):
        pos = [p for p in info.params if p.kind == "pos"]
        at = slot + recv
        return pos[at].name if at < len(pos) else None
    found = next((p for p in info.params if p.name == slot and p.kind in ("pos", "kwonly")), None)
    return found.name if found is not None else None
