"""A cached hash for frozen dataclasses that nest (:class:`gblint.core.model.Expr`).

The dataclass-generated ``__hash__`` hashes every field again on each call, all the way down a
value's parts: the interpreter's memo keys (:mod:`gblint.abstract.interp`) hash the same values many
thousands of times. These replace it with the same hash (``hash((field, ...))``, so sets and
dicts order as before), computed once per object and kept in its ``__dict__``; equality first
compares identity and the hashes. Pickling rebuilds from the fields (a hash is per process).
"""
from __future__ import annotations


def cached_hash(self) -> int:
    """``hash((self.op, self.value, self.parts))``, computed once."""
    d = self.__dict__
    h = d.get("_hash")
    if h is None:
        h = d["_hash"] = hash((self.op, self.value, self.parts))
    return h


def cached_eq(self, other) -> bool:
    """The dataclass's equality (same class, equal fields), short-cut by identity and cached hashes."""
    if self is other:
        return True
    if other.__class__ is not self.__class__:
        return NotImplemented
    if cached_hash(self) != cached_hash(other):  # computed once per object, so cheaper than comparing the parts
        return False
    return (self.op, self.value, self.parts) == (other.op, other.value, other.parts)


def rebuild(self):
    """For pickle and copy: built again from the fields (the cached hash is left behind)."""
    return (self.__class__, (self.op, self.value, self.parts))
