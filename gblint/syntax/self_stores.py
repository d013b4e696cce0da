"""Reads of ``self.X`` that the store ``self.X = v`` just before decides.

``self._islazy = isinstance(mean, LO) or isinstance(cov, LO)`` then ``if self._islazy:`` (gpytorch's
``MultivariateNormal.__init__``): between the store and the read no code runs, so the read gives ``v``
whatever other code stores ``_islazy`` on other objects (``new._islazy = False`` on a fresh instance) or on this
one later. The value model reads an attribute as every store of it the program makes
(:meth:`gblint.abstract.interp.Interpreter.instance_attr`); this scan finds the reads for which the store
before them in the same straight-line code is the only one that can count.

A read is decided by a store when, in evaluation order, nothing that may run code comes between them: no call,
operator on a value, item or attribute read (a property), ``await``/``yield``, no statement that is not itself
such a store or made of names and literals, no loop, ``try``, ``with`` or ``match`` boundary, and the store is on
every way to the read (both arms of an ``if`` keep only what each stored). Stores by a class's own property or
``__setattr__`` are left out where the value is used (:func:`gblint.syntax.value_syntax`): a base class's
``__setattr__`` that keeps something else than the value assigned is not seen (``nn.Module``'s keeps it).
"""
from __future__ import annotations

from typing import Dict, Sequence

import libcst as cst

from .suites import leaves

_INERT = (cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis)


def dominated_reads(body: cst.BaseSuite, self_name: str) -> Dict[int, int]:
    """``{id(read): id(store target)}`` for the ``self.X`` reads of the function ``body`` (``self_name``: its
    first parameter's name) that the store on that target, just before, decides (module docstring)."""
    found: Dict[int, int] = {}
    _Scan(self_name, found).suite(body, {})
    return found


def _statements(suite) -> Sequence[cst.CSTNode]:
    if isinstance(suite, cst.SimpleStatementSuite):
        return (cst.SimpleStatementLine(body=suite.body),)
    return getattr(suite, "body", ())


class _Scan:
    def __init__(self, self_name: str, found: Dict[int, int]):
        self.self_name = self_name
        self.found = found

    def _self_attr(self, node) -> bool:
        return isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) \
            and node.value.value == self.self_name

    def expr(self, node: cst.CSTNode, live: Dict[str, int]) -> bool:
        """Note the decided reads in ``node`` (an expression, read in evaluation order); whether it may run code."""
        if self._self_attr(node):
            target = live.get(node.attr.value)
            if target is None:
                return True  # a property may run
            self.found[id(node)] = target
            return False
        if isinstance(node, _INERT) or node is None:
            return False
        if isinstance(node, (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
            return True  # a body that runs later, or in a frame of its own: its reads are not looked at
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            return self.expr(node.expression, live)
        if isinstance(node, cst.BooleanOperation):
            if self.expr(node.left, live):
                return True
            return self.expr(node.right, live)
        # anything else runs code once its operands are read: the reads in them come first
        for child in node.children:
            if isinstance(child, cst.BaseExpression) or isinstance(child, (cst.Arg, cst.Element, cst.Index,
                                                                           cst.SubscriptElement, cst.ComparisonTarget)):
                if self._sub(child, live):
                    break
        return True

    def _sub(self, node: cst.CSTNode, live: Dict[str, int]) -> bool:
        if isinstance(node, cst.Arg):
            return self.expr(node.value, live)
        if isinstance(node, cst.Element):
            return self.expr(node.value, live)
        if isinstance(node, cst.SubscriptElement):
            return self._sub(node.slice, live)
        if isinstance(node, cst.Index):
            return self.expr(node.value, live)
        if isinstance(node, cst.ComparisonTarget):
            return self.expr(node.comparator, live)
        return self.expr(node, live)

    def suite(self, suite, live: Dict[str, int]) -> Dict[str, int]:
        """Scan the statements of ``suite`` with the stores ``live`` before it; the stores live after it."""
        for stmt in _statements(suite):
            live = self.statement(stmt, live)
        return live

    def statement(self, stmt: cst.CSTNode, live: Dict[str, int]) -> Dict[str, int]:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                live = self.small(small, live)
            return live
        if isinstance(stmt, cst.If):
            return self._if(stmt, live)
        if isinstance(stmt, (cst.For, cst.While)):
            if isinstance(stmt, cst.For):
                self.expr(stmt.iter, live)
            self.suite(stmt.body, {})
            if stmt.orelse is not None:
                self.suite(stmt.orelse.body, {})
            return {}
        if isinstance(stmt, cst.Try):
            self.suite(stmt.body, {})
            for handler in stmt.handlers:
                self.suite(handler.body, {})
            for part in (stmt.orelse, stmt.finalbody):
                if part is not None:
                    self.suite(part.body, {})
            return {}
        if isinstance(stmt, cst.With):
            for item in stmt.items:
                if self.expr(item.item, live):
                    live = {}
            self.suite(stmt.body, {})
            return {}
        return {}  # match, a nested def or class (decorators and a class body run code), anything else

    def _if(self, stmt: cst.If, live: Dict[str, int]) -> Dict[str, int]:
        if self.expr(stmt.test, live):
            live = {}
        ends = []
        body = self.suite(stmt.body, dict(live))
        if not leaves(stmt.body):
            ends.append(body)
        orelse = stmt.orelse
        if isinstance(orelse, cst.If):
            ends.append(self._if(orelse, dict(live)))
        elif isinstance(orelse, cst.Else):
            after = self.suite(orelse.body, dict(live))
            if not leaves(orelse.body):
                ends.append(after)
        else:
            ends.append(live)
        if not ends:
            return {}
        return {k: v for k, v in ends[0].items() if all(e.get(k) == v for e in ends[1:])}

    def small(self, small: cst.CSTNode, live: Dict[str, int]) -> Dict[str, int]:
        if isinstance(small, cst.Assign):
            runs = self.expr(small.value, live)
            live = {} if runs else dict(live)
            for t in small.targets:
                target = t.target
                if self._self_attr(target) and len(small.targets) == 1:
                    live[target.attr.value] = id(target)
                elif isinstance(target, cst.Name) and target.value != self.self_name:
                    continue
                else:
                    return {}  # an item or another object's attribute (which may be this one), unpacking
            return live
        if isinstance(small, cst.Expr):
            return {} if self.expr(small.value, live) else live
        if isinstance(small, (cst.Pass, cst.Nonlocal, cst.Global)):
            return live
        if isinstance(small, cst.Return) and small.value is not None:
            self.expr(small.value, live)
        return {}
