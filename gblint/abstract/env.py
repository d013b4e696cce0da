"""What a frame's names hold while gblint evaluates it (:class:`Env`): the values its parameters
hold, and, as named fields, the context the interpreter (:mod:`gblint.abstract.interp`) evaluates it in.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

# the fields of an Env besides its bindings and resolver, in the order of its key (values.env_key)
_FIELDS = ("frame", "outer", "mode", "read", "via", "before_self", "before", "locals")


class Env:
    """An environment: ``bindings`` (parameter name -> :class:`gblint.core.model.Expr`, what the call
    passes) and what the interpreter reads besides.

    Args:
        bindings (dict): parameter name -> value. Callers may fill it in before they share the Env.
        resolver: the :class:`gblint.abstract.interp.Interpreter` objects are followed with (None: values
            that are objects are not known); not part of :func:`gblint.abstract.values.env_key`.
        frame: the function the environment belongs to (a :class:`gblint.abstract.objects.Here`).
        outer: the frame a closure was made in (a :class:`gblint.abstract.objects.Ctx`).
        mode: ``self.training`` in the region (a ``const`` bool), when the code sets the mode.
        read (bool): a call target's values: it runs inside an attribute read (``Target.read``).
        via (str): a call target's values: it runs only when the called value is this one (a test in words).
        before_self (str): the ``self`` parameter of a method whose store ``self.<name> = ...`` is evaluated.
        before (dict): attribute name -> what ``self.<name>`` held before that store.
        locals (dict): a comprehension's target name -> the one element it is bound to.
    """

    __slots__ = ("bindings", "resolver") + _FIELDS

    def __init__(self, bindings: Optional[Dict[str, Any]] = None, resolver=None, frame=None, outer=None, mode=None,
                 read: bool = False, via: Optional[str] = None, before_self: Optional[str] = None,
                 before: Optional[Dict[str, Any]] = None, locals: Optional[Dict[str, Any]] = None):
        self.bindings = {} if bindings is None else bindings
        self.resolver = resolver
        self.frame = frame
        self.outer = outer
        self.mode = mode
        self.read = read
        self.via = via
        self.before_self = before_self
        self.before = {} if before is None else before
        self.locals = {} if locals is None else locals

    def replace(self, **changes) -> "Env":
        """A copy (its own ``bindings``, ``before`` and ``locals`` dicts) with ``changes``."""
        fields = {name: getattr(self, name) for name in ("resolver",) + _FIELDS}
        fields.update(bindings=dict(self.bindings), before=dict(self.before), locals=dict(self.locals))
        fields.update(changes)
        return Env(**fields)

    def context(self) -> Tuple:
        """The fields besides the bindings and the resolver, hashable (what tells apart two
        environments of the same bindings: a closure's frame, the module mode, the marks of a call target)."""
        return (self.frame, self.outer, self.mode, self.read, self.via, self.before_self,
                tuple(sorted(self.before.items(), key=_name)), tuple(sorted(self.locals.items(), key=_name)))

    @classmethod
    def from_key(cls, key: Tuple, **changes) -> "Env":
        """The Env whose :func:`gblint.abstract.values.env_key` is ``key``, with ``changes``."""
        bindings, frame, outer, mode, read, via, before_self, before, locals_ = key
        fields = dict(bindings=dict(bindings), frame=frame, outer=outer, mode=mode, read=read, via=via,
                      before_self=before_self, before=dict(before), locals=dict(locals_))
        fields.update(changes)
        return cls(**fields)

    def __eq__(self, other) -> bool:
        if other.__class__ is not Env:
            return NotImplemented
        return self.resolver is other.resolver and self.bindings == other.bindings and \
            self.context() == other.context()

    __hash__ = None  # its dicts change while callers fill them in, as a dict's do

    def __repr__(self) -> str:
        return f"Env({self.bindings!r}, {', '.join(f'{n}={getattr(self, n)!r}' for n in _FIELDS)})"


def _name(item: Tuple[str, Any]) -> str:
    return item[0]
