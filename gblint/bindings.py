"""The summary stage's record of values (:mod:`gblint.values`): what each name is bound to, when a
parameter or local stops holding what it was bound to (rebound, changed in place, ``nonlocal``),
module-level driver calls of compiled objects, and one-line helper functions.
:class:`ValuesMixin` is part of :class:`gblint.summary.SummaryBuilder`.
"""
from __future__ import annotations

import libcst as cst

from . import value_syntax
from .model import BlockKind, CallArgs, Expr
from .names import dotted
from .scope import FunctionScope
from .tensors import maybe_tensor

# Methods that change their object in place.
MUTATORS = frozenset({"append", "extend", "insert", "remove", "pop", "popitem", "clear", "update", "setdefault",
                      "add", "discard", "sort", "reverse", "__setitem__", "__delitem__"})

# Functions of modules that only read their arguments.
READER_CALLS = frozenset({"copy.deepcopy", "copy.copy"})

# Builtin types whose methods are C functions (a class attribute bound to one is no Python function).
BUILTIN_TYPES = frozenset({"dict", "object", "list", "tuple", "str", "set", "frozenset", "type"})

# Builtins that only read their arguments.
READERS = frozenset({"len", "isinstance", "issubclass", "print", "str", "repr", "bool", "int", "float", "tuple",
                     "list", "dict", "set", "frozenset", "sorted", "iter", "enumerate", "zip", "any", "all", "sum",
                     "min", "max", "hasattr", "getattr", "type", "id", "hash", "format", "range", "reversed", "abs",
                     "round", "callable"})


class ValuesMixin:
    """Records, while the traversal reads a file, what :mod:`gblint.values` needs later."""

    def note_module_value(self, name: str, value: cst.BaseExpression) -> None:
        """At module level: a name bound to what a compile call returns holds that region (its
        calls are the driver's calls, :meth:`leave_Call`); a name bound to a tuple or a
        ``dict(...)`` / ``{...}`` of keywords may be unpacked into such a call."""
        self.note_object_facts(name, value)
        regions = self.summary.regions
        if isinstance(value, cst.Call) and regions and regions[-1].function is None \
                and regions[-1].span == self.span(value):
            regions[-1].names += (name,)
        if isinstance(value, (cst.Tuple, cst.List)) and not any(isinstance(e, cst.StarredElement) for e in value.elements):
            self._module_args[name] = CallArgs(tuple(value_syntax.expr_of(e.value, self.module_scope) for e in value.elements))
        elif isinstance(value, cst.Call) and dotted(value.func) == "dict" and all(a.keyword for a in value.args):
            self._module_args[name] = CallArgs((), tuple(
                (a.keyword.value, value_syntax.expr_of(a.value, self.module_scope)) for a in value.args))
        elif isinstance(value, cst.Dict) and all(isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
                                                 for e in value.elements):
            self._module_args[name] = CallArgs((), tuple(
                (e.key.evaluated_value, value_syntax.expr_of(e.value, self.module_scope)) for e in value.elements))
        else:
            self._module_args.pop(name, None)

    def note_object_facts(self, name: str, value: cst.BaseExpression) -> None:
        """What rules need to know of module and class names (``rules/notes.py``): a global set
        display holding tensors (iterating it breaks, GB0222), and a class whose ``__getattr__`` is
        bound to a builtin (``__getattr__ = dict.get``: attribute lookups on its instances break,
        GB0256). Class-body assignments come here too: the class scope is the module's."""
        notes = self.rule_notes
        if self.class_stack:
            if name == "__getattr__":
                head = (dotted(value) or "").split(".")[0]
                if head in BUILTIN_TYPES and not self.imports.is_imported(head):
                    notes[("builtin-getattr", self.class_stack[-1].qualname)] = dotted(value)
            return
        holds = isinstance(value, cst.Set) and any(
            not isinstance(e, cst.StarredElement) and maybe_tensor(self.module_scope.kind(e.value)) for e in value.elements)
        if holds:
            notes[("tensor-set", name)] = True
        else:
            notes.pop(("tensor-set", name), None)

    def module_call(self, node: cst.Call) -> None:
        """Record a call ``name(...)`` at module level (a driver calling a compiled model), its
        ``*args`` / ``**kwargs`` unpacked where they name a tuple or keywords bound above."""
        if not isinstance(node.func, cst.Name) or node.func.value in self.imports.names:
            return
        args = value_syntax.call_args(node, self.module_scope)
        positional, keywords = list(args.positional), list(args.keywords)
        star = starstar = False
        for a in node.args:
            known = self._module_args.get(a.value.value) if isinstance(a.value, cst.Name) else None
            if a.star == "*":
                if known is not None and not known.keywords and not star:
                    positional.extend(known.positional)
                else:
                    star = True
            elif a.star == "**":
                if known is not None and not known.positional:
                    keywords.extend(known.keywords)
                else:
                    starstar = True
        self.summary.module_calls.append((node.func.value,
                                          CallArgs(tuple(positional), tuple(keywords), star, starstar)))

    def note_mutated(self, node) -> None:
        """``node`` (a name) may be changed in place here: a collection it holds is no longer
        the one it was bound to (a mutable default, ``**kwargs``, a local list, a driver's dict)."""
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and self.in_function():
            scope = self.scope
            if scope.self_name and node.value.value == scope.self_name and scope.class_info is not None \
                    and node.attr.value not in scope.class_info.mutated:
                scope.class_info.mutated.append(node.attr.value)
            return
        if not isinstance(node, cst.Name):
            return
        name = node.value
        if self.in_function():
            self.scope.mutated.add(name)
            if name in self.scope.bound_names:  # a local collection changed in place: no longer what it was bound to
                self.note_unknown(node)
            local = self.scope.local_values.get(name)
            if local is not None and local.op not in ("const", "notnone"):
                del self.scope.local_values[name]
        elif self.scope is None:
            self._module_args.pop(name, None)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        if not self.in_function():
            return
        scope = self.scope.parent
        while scope is not None:  # the enclosing function's name is rebound from inside
            for n in node.names:
                scope.rebound.add(n.name.value)
                scope.local_values.pop(n.name.value, None)
                if scope.info is not None:
                    scope.info.locals[n.name.value] = scope.info.locals.get(n.name.value, ()) + (values_unknown(),)
            scope = scope.parent

    def note_rebound(self, target) -> None:
        """Record the names ``target`` (an assignment target) binds in the current function."""
        if not self.in_function():
            return
        if isinstance(target, cst.Name):
            self.scope.rebound.add(target.value)
            self.scope.local_values.pop(target.value, None)
            self.scope.masks.discard(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for e in target.elements:
                self.note_rebound(e.value)
        elif isinstance(target, cst.StarredElement):
            self.note_rebound(target.value)

    def leave_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.note_rebound(node.target)
        self.note_target(node.target, self.value_of(node.value))

    def leave_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self.note_rebound(node.asname.name)
            self.note_target(node.asname.name, Expr("enter", parts=(self.value_of(node.item),)))

    def visit_Del(self, node: cst.Del) -> None:
        self.note_rebound(node.target)
        self.note_unknown(node.target)
        if isinstance(node.target, cst.Subscript):
            self.note_mutated(node.target.value)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self.note_rebound(node.name.name)
            self.note_unknown(node.name.name)

    def leave_Return(self, node: cst.Return) -> None:
        self.note_return(node)  # after the value was visited: a lambda in it has its name

    def visit_Return(self, node: cst.Return) -> None:
        if self.in_function() and any(b.kind in (BlockKind.BRANCH, BlockKind.ERROR_PATH) for b in self.scope.blocks):
            self.scope.returned_in_branch = True


def values_unknown():
    """The value of a name rebound where gblint does not follow it."""
    return value_syntax.UNKNOWN


def single_return(node, scope: FunctionScope):
    """``E`` as a value (:func:`gblint.value_syntax.expr_of`) when the body of ``node`` (a ``def``) is
    one ``return E`` (after a docstring) that reads only its parameters; None otherwise."""
    body = getattr(node.body, "body", ())
    if isinstance(node, cst.Lambda) or not body:
        return None
    stmts = list(body)
    if len(stmts) == 2 and isinstance(stmts[0], cst.SimpleStatementLine) and len(stmts[0].body) == 1 \
            and isinstance(stmts[0].body[0], cst.Expr) and isinstance(stmts[0].body[0].value, cst.SimpleString):
        stmts = stmts[1:]  # the docstring
    if len(stmts) != 1:
        return None
    stmt = stmts[0]
    small = stmt.body if isinstance(stmt, cst.SimpleStatementLine) else None
    if not small or len(small) != 1 or not isinstance(small[0], cst.Return) or small[0].value is None:
        return None
    value = value_syntax.expr_of(small[0].value, scope)
    return None if value.op == "unknown" else value
