"""The summary stage's record of values (:mod:`gblint.abstract.values`): what each name is bound to, when a
parameter or local stops holding what it was bound to (rebound, changed in place, ``nonlocal``),
module-level driver calls of compiled objects, and one-line helper functions.
:class:`gblint.syntax.summary.SummaryBuilder` owns a :class:`Bindings` and hands it what it meets.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Optional, Protocol, Tuple

import libcst as cst

from . import aliases, value_syntax
from ..abstract import keyed, values
from ..core import namespace
from ..core.model import PARAM_PREFIX, BlockKind, CallArgs, Expr, Kind
from ..core.ops import Op
from .loops import sure_calls
from ..core.names import ImportTable, dotted
from .scope import FunctionScope, ReadingHost
from ..abstract.tensors import likely_tensor, maybe_tensor

if TYPE_CHECKING:
    from .flows import Flows

# Methods that change their object in place.
MUTATORS = frozenset({"append", "extend", "insert", "remove", "pop", "popitem", "clear", "update", "setdefault",
                      "add", "discard", "sort", "reverse", "__setitem__", "__delitem__"})

# Functions of modules that only read their arguments.
READER_CALLS = frozenset({"copy.deepcopy", "copy.copy"})

# Builtins that change an object's attributes, not a collection it is: followed as attribute stores
# (gblint.core.namespace), and `vars(obj)` is the object's namespace, changed only by what is done with it.
ATTRIBUTE_SETTERS = frozenset({"setattr", "delattr", "vars"})

# Builtin types whose methods are C functions (a class attribute bound to one is no Python function).
BUILTIN_TYPES = frozenset({"dict", "object", "list", "tuple", "str", "set", "frozenset", "type"})

# Builtins that only read their arguments.
READERS = frozenset({"len", "isinstance", "issubclass", "print", "str", "repr", "bool", "int", "float", "tuple",
                     "list", "dict", "set", "frozenset", "sorted", "iter", "enumerate", "zip", "any", "all", "sum",
                     "min", "max", "hasattr", "getattr", "type", "id", "hash", "format", "range", "reversed", "abs",
                     "round", "callable"})


class BindingsHost(ReadingHost, Protocol):
    """What :class:`Bindings` asks of the traversal (:class:`gblint.syntax.summary.SummaryBuilder`): what every
    collaborator reads (:class:`gblint.syntax.scope.ReadingHost`), the file's imports, the module scope, the rules'
    notes, and the assignments it records through :class:`gblint.syntax.flows.Flows`."""

    imports: ImportTable
    module_scope: FunctionScope
    rule_notes: Dict[tuple, object]
    flows: "Flows"
    module_node: Optional[cst.Module]


class Bindings:
    """Records, while the traversal reads a file, what :mod:`gblint.abstract.values` needs later, read
    through ``builder`` (a :class:`BindingsHost`). Its own: ``_module_args``, module name -> the
    :class:`CallArgs` a tuple or ``dict(...)`` bound to it unpacks to."""

    def __init__(self, builder: BindingsHost):
        self.builder = builder
        self.summary, self.imports, self.module_scope = builder.summary, builder.imports, builder.module_scope
        self._module_args: Dict[str, CallArgs] = {}
        self._sure: Optional[frozenset] = None  # gblint.syntax.loops.sure_calls of the module, when first asked
        self._global_changes: Dict[str, set] = {}  # global a function changes in place -> the functions' names

    def note_module_value(self, name: str, value: cst.BaseExpression) -> None:
        """At module level: a name bound to what a compile call returns holds that region (its
        calls are the driver's calls, :meth:`leave_Call`); a name bound to a tuple or a
        ``dict(...)`` / ``{...}`` of keywords may be unpacked into such a call."""
        self.note_object_facts(name, value)
        regions = self.summary.regions
        if isinstance(value, cst.Call) and regions and regions[-1].function is None \
                and regions[-1].span == self.builder.span(value):
            regions[-1].names += (name,)
        if isinstance(value, (cst.Tuple, cst.List)) and not any(isinstance(e, cst.StarredElement) for e in value.elements):
            self._module_args[name] = CallArgs(tuple(value_syntax.expr_of(e.value, self.module_scope)
                                                     for e in value.elements))
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
        notes = self.builder.rule_notes
        if self.builder.class_stack:
            if name == "__getattr__":
                head = (dotted(value) or "").split(".")[0]
                if head in BUILTIN_TYPES and not self.imports.is_imported(head):
                    notes[("builtin-getattr", self.builder.class_stack[-1].qualname)] = dotted(value)
            return
        holds = isinstance(value, cst.Set) and any(not isinstance(e, cst.StarredElement)
                                                   and maybe_tensor(self.module_scope.kind(e.value))
                                                   for e in value.elements)
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

    def note_handed(self, node: cst.Call) -> None:
        """The objects ``node`` hands on (not unpacked) may be changed by the callee: after the
        call (the call itself receives them as they were), unless the callee only reads them.
        In a function, each place is recorded with a ``changes`` test (the argument's position or
        keyword, and the called value), so that the walk can tell a callee of the program that
        changes nothing it is handed (:meth:`gblint.abstract.handing.Handing.changes`)."""
        func = node.func
        q = self.builder.ctx.resolve(func)
        if not (isinstance(func, cst.Name) and func.value in READERS | ATTRIBUTE_SETTERS) and q not in READER_CALLS \
                and not (q or "").startswith(("torch.", "inspect.", "math.")):  # these change no Python collection
            called = value_syntax.expr_of(func, self.builder.scope) if self.builder.in_function() else None
            position = 0
            for a in node.args:
                slot = a.keyword.value if a.keyword is not None else position if position >= 0 else None
                if a.star:
                    position = -1  # what follows an unpacked `*x` lands at a place not known
                elif a.keyword is None and position >= 0:
                    position += 1
                if not a.star:
                    if isinstance(a.value, cst.Name) and self.builder.in_function():  # what the call itself is handed
                        self.builder.scope.handed[id(a.value)] = value_syntax.expr_of(a.value, self.builder.scope)
                    how = Expr(Op.CHANGES, slot, (called,)) if called is not None and slot is not None else None
                    self.note_mutated(a.value, how, handed=True)

    def note_grown(self, node: cst.Call) -> bool:
        """``xs.append(v)``, ``xs.insert(i, v)``, ``xs.extend(vs)`` on a local the function binds
        or on ``self.xs`` in a method: ``xs`` may also be a list holding ``v`` (what ``vs``
        holds), besides what it was bound to (``self.layers = nn.ModuleList()`` then
        ``self.layers.append(Block())``, the way PyG and x-transformers build their layers); an
        item appended under a branch or in a loop, or extended from an iterable, may not be there.
        True when recorded so; False for any other call (then :meth:`note_mutated`)."""
        func = node.func
        want = {"append": 1, "insert": 2, "extend": 1}.get(func.attr.value)
        if want is None or len(node.args) != want or any(a.star or a.keyword for a in node.args):
            return False
        if self.builder.scope is None and not self.builder.class_stack and isinstance(func.value, cst.Name):
            return self._module_grown(func.value.value, func.attr.value, node.args[-1].value, node)
        if not self.builder.in_function() or self.builder.suppressed():
            return False
        scope, base = self.builder.scope, func.value
        value = self.builder.value_of(node.args[-1].value)
        item = Expr(Op.ITER, parts=(value,)) if func.attr.value == "extend" else value
        if func.attr.value == "extend":  # from an iterable: maybe none
            item = Expr(Op.UNION, parts=(item, values.OTHER))
        elif scope.blocks:  # under a branch or in a loop: there when their tests hold
            item = _present(item, scope)
        grown = Expr(Op.SEQ, values.APPENDED, (item,))
        if isinstance(base, cst.Attribute) and isinstance(base.value, cst.Name) and scope.self_name \
                and base.value.value == scope.self_name and scope.class_info is not None:
            assigned = scope.class_info.assigned
            assigned[base.attr.value] = assigned.get(base.attr.value, ()) + ((scope.info.qualname, grown),)
            return True
        if isinstance(base, cst.Name) and base.value in scope.bound_names and base.value not in scope.params:
            scope.mutated.add(base.value)
            scope.local_values.pop(base.value, None)
            scope.info.locals[base.value] = scope.info.locals.get(base.value, ()) + (grown,)
            return True
        return False

    def note_keyed(self, target: cst.Subscript, removed: bool, value: Optional[cst.BaseExpression] = None) -> None:
        """``name[key]`` (``target``) is stored (``value``, when known) or deleted (``removed``): ``name`` is changed
        in place."""
        key = keyed.subscript_key(target, self.builder.value_of) if self.builder.in_function() else None
        stored = self.builder.value_of(value) if value is not None and key is not None else None
        self.note_mutated(target.value, key=None if key is None else (key, removed, stored))

    def method_key(self, call: cst.Call) -> Optional[tuple]:
        """``(key, removed, value)`` of a dict method ``call`` in a function that changes one key
        (:func:`gblint.abstract.keyed.method_key`)."""
        return keyed.method_key(call, self.builder.value_of) if self.builder.in_function() else None

    def note_mutated(self, node, how: Optional[Expr] = None, handed: bool = False,
                     key: Optional[tuple] = None) -> None:
        """``node`` (a name) may be changed in place here: a collection it holds is no longer
        the one it was bound to (a mutable default, ``**kwargs``, a local list, a driver's dict).
        ``how``: a test that must also hold for the change to happen (a callee's ``changes``); ``handed``: the
        change is a call's, handed the collection (at module level, not followed: the callee is taken to read
        it). An item changed (``held[0]["k"] = v``) is a change of what holds it. ``key``: ``(key, removed, value)``
        when the change stores (or removes) that one key of the name's dict (:mod:`gblint.abstract.keyed`)."""
        if isinstance(node, cst.Subscript):
            key = None
        while isinstance(node, cst.Subscript):
            name = namespace.item_stores(node, self.builder.ctx.resolve)  # vars(m)["table"][k] = v
            if name is not None:
                self._note_in_place(name[1][0])
            node = node.value
        if isinstance(node, cst.NamedExpr):  # `(kw := kwargs)["k"] = v`: both names' object changes
            self.note_mutated(node.value, how, handed)
            node = node.target
        named = namespace.getattr_name(node, self.builder.ctx.resolve)  # getattr(m, "table")[k] = v
        if named is not None:
            self._note_in_place(named)
        if isinstance(node, cst.Attribute):
            scope = self.builder.scope
            own = self.builder.in_function() and isinstance(node.value, cst.Name) and scope.self_name \
                and node.value.value == scope.self_name
            if own and scope.class_info is not None and node.attr.value not in scope.class_info.mutated:
                scope.class_info.mutated.append(node.attr.value)
            elif not own:  # `model.cfg["debug"] = True`: any object's `cfg` may hold a changed container
                self._note_in_place(node.attr.value)
            return
        if not isinstance(node, cst.Name):
            return
        name, scope = node.value, self.builder.scope
        if self.builder.in_function():
            scope.mutated.add(name)
            keyed.note(scope, name, key)
            if not handed and name not in scope.bound_names and name not in scope.params:
                self._global_changes.setdefault(name, set()).add(scope.info.name)
            tests = tuple(b.test for b in scope.blocks if b.test is not None)
            scope.mutated_at.append((name, tests + ((how,) if how is not None else ())))
            self._local_changed(scope, name)
            for other in sorted(scope.same_object(name)):  # `other = cache; other[k] = v` changes `cache` too
                scope.mutated.add(other)
                keyed.note(scope, other, None)
                self._local_changed(scope, other)
        elif scope is None:
            self._module_args.pop(name, None)
            # `CONFIG.update(...)`
            if not handed and not self.builder.class_stack and name in self.summary.module_values:
                self._module_changed(name)

    def _local_changed(self, scope, name: str) -> None:
        """The collection the name ``name`` of the function of ``scope`` holds is changed in place: a local no longer
        holds only what it was bound to."""
        if name in scope.bound_names:
            self.builder.flows.note_target(cst.Name(name), values.INPLACE)
        local = scope.local_values.get(name)
        if local is not None and local.op not in (Op.CONST, Op.NOTNONE):
            del scope.local_values[name]

    def _note_in_place(self, name: str) -> None:
        """The container attribute ``name`` of some object is changed in place (:data:`gblint.core.namespace.IN_PLACE`)."""
        self.builder.flows.note_attr_store(namespace.IN_PLACE + name)

    def _module_grown(self, name: str, method: str, arg: cst.BaseExpression, call: cst.Call) -> bool:
        """``name.append(v)`` (``insert``, ``extend``) at module level, maybe in a loop or under a branch: the
        list a module global holds may also hold ``v``, in some place, maybe more (``layers = []`` then
        ``layers.append(Layer())`` in a ``for`` loop, before ``nn.ModuleList(layers)``). An ``append`` that surely
        runs (:func:`gblint.syntax.loops.sure_calls`) to a list only appended to makes a :data:`gblint.abstract.values.GROWN` list:
        ``v`` is there. True when noted."""
        found = self.summary.module_values.get(name)
        if not found:
            return False
        value = self.builder.value_of(arg)
        if method == "append" and all(v.op == Op.SEQ and v.value in (None, values.GROWN) for v in found) \
                and id(call) in self._sure_calls():
            self._module_args.pop(name, None)
            self.summary.module_values[name] = tuple(Expr(Op.SEQ, values.GROWN, v.parts + (value,)) for v in found)
            return True
        self._module_changed(name, values.union((Expr(Op.ITER, parts=(value,)) if method == "extend" else value,
                                                 values.OTHER)))
        return True

    def settle_grown(self) -> None:
        """At the module's end: a list module code grew by sure appends (:data:`gblint.abstract.values.GROWN`) that a
        function of the file also changes in place may hold anything else; any other list or dict a function of the
        file changes in place (``REG[name] = cls`` in a registering function, ``NAMES.append(k)`` in ``main()``) is
        noted with those functions (:attr:`gblint.core.model.FileSummary.changed_by`): where one of them may run, the
        interpreter takes it as changed (a registry's ``REG.get(k, Default)`` was taken from its empty ``{}``)."""
        for name, functions in self._global_changes.items():
            found = self.summary.module_values.get(name, ())
            if any(v.op == Op.SEQ and v.value == values.GROWN for v in found):
                self.summary.module_values[name] = tuple(values.changed_in_place(v) for v in found)
            elif any(v.op in (Op.SEQ, Op.DICT) for v in found):  # changed only if one of them may run (interp)
                self.summary.changed_by[name] = tuple(sorted(functions))

    def _sure_calls(self) -> frozenset:
        """id() of the module's calls that run whenever it is imported (:func:`gblint.syntax.loops.sure_calls`)."""
        if self._sure is None:
            self._sure = sure_calls(self.builder.module_node) if self.builder.module_node is not None else frozenset()
        return self._sure

    def module_item_store(self, target: cst.Subscript, value: cst.BaseExpression) -> bool:
        """``name[key] = value`` at module level, maybe in a loop or under a branch: the dict (or list) a module
        global holds may also map ``key`` to ``value`` (opt_einsum's ``_AUTO_CHOICES[i] = optimal`` in a loop
        after ``_AUTO_CHOICES = {}``), each entry maybe another, maybe more. True when noted."""
        name = target.value.value if isinstance(target.value, cst.Name) else None
        found = self.summary.module_values.get(name) if name is not None and not self.builder.class_stack else None
        if not found or len(target.slice) != 1 or not isinstance(target.slice[0].slice, cst.Index):
            return False
        item = values.union((self.builder.value_of(value), values.OTHER))
        self._module_changed(name, item, Expr(Op.KV, parts=(self.builder.value_of(target.slice[0].slice.value), item)))
        return True

    def _module_changed(self, name: str, item: Optional[Expr] = None, entry: Optional[Expr] = None) -> None:
        """What the module global ``name`` may hold after code at module level changed it in place
        (:func:`gblint.abstract.values.changed_in_place`), a list with ``item`` besides, a dict with ``entry`` (a ``kv``)."""
        self._module_args.pop(name, None)
        out = []
        for v in self.summary.module_values[name]:
            changed = values.changed_in_place(v)
            if v.op == Op.SEQ and item is not None:
                changed = Expr(Op.SEQ, values.CHANGED, changed.parts + (item,))
            elif v.op == Op.DICT and entry is not None:
                changed = Expr(Op.DICT, values.CHANGED, changed.parts + (entry,))
            out.append(changed)
        self.summary.module_values[name] = tuple(out)

    def note_nonlocal(self, node: cst.Nonlocal) -> None:
        """``nonlocal x``: the enclosing functions' ``x`` is rebound from inside."""
        if not self.builder.in_function():
            return
        scope = self.builder.scope.parent
        while scope is not None:  # the enclosing function's name is rebound from inside
            for n in node.names:
                scope.rebound.add(n.name.value)
                scope.local_values.pop(n.name.value, None)
                if scope.info is not None:
                    scope.info.locals[n.name.value] = scope.info.locals.get(n.name.value, ()) + (values_unknown(),)
            scope = scope.parent

    def note_rebound(self, target, value: Optional[Expr] = None) -> None:
        """Record the names ``target`` (an assignment target) binds in the current function;
        ``value``: what a plain name ``target`` is bound to (an ``if`` arm's binding is then
        merged after the statement, see :meth:`enter_if_values`)."""
        if not self.builder.in_function():
            return
        if isinstance(target, cst.Name):
            for frame in self.builder.scope.arm_stack:
                frame.note(target.value)
            self.builder.scope.kind_gates.pop(target.value, None)
            self._branch_binding(target.value, value)
            self.builder.scope.rebound.add(target.value)
            self.builder.scope.note_loop_bind(target.value)
            self.builder.scope.local_values.pop(target.value, None)
            self.builder.scope.masks.discard(target.value)
            self.builder.scope.numpy_locals.discard(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            starred = any(isinstance(e, cst.StarredElement) for e in target.elements)
            for i, e in enumerate(target.elements):
                self.note_rebound(e.value, None if value is None or starred else Expr(Op.UNPACK, i, (value,)))
        elif isinstance(target, cst.StarredElement):
            self.note_rebound(target.value)

    # -- names bound in the arms of an `if`: `if x is None: x = default`
    def enter_if_values(self, node: cst.If) -> None:
        """An ``if`` statement begins. When it lies on every path of the function so far (no
        loop, ``try`` or other block around it but ``with``, an early return's rest, or the arm
        of an ``if`` tracked the same way), the names its arms bind plainly are merged when it
        ends: ``ifelse(test, value after the body, value after the else)``, an arm that returns
        or raises left out. Any other binding in it leaves the name unknown, as before."""
        if not self.builder.in_function():
            return
        scope = self.builder.scope
        frames = scope.if_values
        if frames:
            straight = len(scope.blocks) == frames[-1].depth + 1
        else:
            straight = all(b.kind in (BlockKind.WITH, BlockKind.AFTER_RETURN) for b in scope.blocks)
        if straight:  # its test is the body block's (note_if_test), read before any arm rebinds a name
            frames.append(_IfValues(node, len(scope.blocks)))

    def note_if_test(self, node: cst.If, test: Optional[Expr]) -> None:
        """The test of ``node`` as a value (the body block's), None when gblint has none."""
        frames = self.builder.scope.if_values if self.builder.in_function() else None
        if frames and frames[-1].node is node:
            frames[-1].test = test

    def enter_else_values(self, node: cst.If) -> None:
        """The ``else`` (or ``elif``) arm of ``node`` begins."""
        frames = self.builder.scope.if_values if self.builder.in_function() else None
        if frames and frames[-1].node is node:
            frames[-1].arm = 1

    def leave_if_values(self, node: cst.If, flows: Tuple[bool, bool]) -> None:
        """The ``if`` statement ``node`` ends: bind each name its arms bound to the merged value
        (``flows``: whether the body, and the ``else``, may run on to what follows)."""
        frames = self.builder.scope.if_values if self.builder.in_function() else None
        if not frames or frames[-1].node is not node:
            return
        frame = frames.pop()
        for name, prev in frame.prev.items():
            merged = None
            if name not in frame.untracked[0] and name not in frame.untracked[1]:
                ends = [frame.arms[i].get(name, prev) for i in (0, 1) if flows[i]]
                if all(v is not None for v in ends) and ends and (len(ends) == 1 or frame.test is not None):
                    merged = ends[0] if len(ends) == 1 else Expr(Op.IFELSE, parts=(frame.test, ends[0], ends[1]))
            scope = self.builder.scope
            if frames:
                outer = frames[-1]
                if merged is not None and len(scope.blocks) == outer.depth + 1:
                    outer.arms[outer.arm][name] = merged
                else:
                    outer.untracked[outer.arm].add(name)
            elif merged is not None and merged.op != Op.UNKNOWN:
                scope.local_values[name] = merged
            else:
                scope.local_values.pop(name, None)

    def _branch_binding(self, name: str, value: Optional[Expr]) -> None:
        """``name`` is bound (to ``value``, None: to something not followed) inside the tracked
        ``if`` statements: note what it held before each, and what the innermost arm binds."""
        scope = self.builder.scope
        frames = scope.if_values
        if not frames:
            return
        for i, frame in enumerate(frames):
            if name not in frame.prev:
                if i == 0:
                    before = value_syntax.name_expr(name, scope)
                    frame.prev[name] = None if before.op in (Op.LOCAL, Op.UNKNOWN) else before
                else:
                    outer = frames[i - 1]  # what the outer arm holds (not known where it bound it untracked)
                    frame.prev[name] = None if name in outer.untracked[outer.arm] else \
                        outer.arms[outer.arm].get(name, outer.prev[name])
        top = frames[-1]
        if value is not None and value.op != Op.UNKNOWN and len(scope.blocks) == top.depth + 1:
            top.arms[top.arm][name] = value
        else:
            top.untracked[top.arm].add(name)


def note_guess(name: str, value: cst.BaseExpression, scope: FunctionScope) -> None:
    """Record whether local ``name``, just bound from ``value``, is a tensor only by a guess."""
    if likely_tensor(scope.env.get(name, Kind.UNKNOWN)) and scope.guessed_expr(value):
        scope.guessed.add(name)
    else:
        scope.guessed.discard(name)


def constructor_setting(value: cst.BaseExpression, scope: FunctionScope) -> bool:
    """Whether ``self.attr = value`` in a constructor (``scope``) stores configuration, not a tensor:
    a value made only from the constructor's arguments (:func:`from_arguments`), or a tensor only
    if one of them that nothing uses as a tensor is one (:func:`only_config`)."""
    return from_arguments(value, scope) or only_config(scope.kind(value), scope)


def from_arguments(value: cst.BaseExpression, scope: FunctionScope) -> bool:
    """Whether ``value`` is built only from the function's parameters (none seen used as a tensor)
    and literals, with operators: no call, attribute or subscript that could make a tensor."""
    if isinstance(value, cst.Name):
        return value.value in ("True", "False", "None") or (
            value.value in scope.params and value.value not in scope.tensor_params and value.value not in scope.rebound)
    if isinstance(value, (cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(value, cst.UnaryOperation):
        return from_arguments(value.expression, scope)
    if isinstance(value, (cst.BinaryOperation, cst.BooleanOperation)):
        return from_arguments(value.left, scope) and from_arguments(value.right, scope)
    if isinstance(value, cst.Comparison):
        return from_arguments(value.left, scope) and all(from_arguments(c.comparator, scope)
                                                         for c in value.comparisons)
    return False


def only_config(kind: str, scope: FunctionScope) -> bool:
    """Whether a value of ``kind`` in a constructor may be a tensor only because a constructor
    parameter that nothing uses as a tensor might be one (`patch_size if isinstance(patch_size,
    Iterable) else (patch_size, patch_size)`, `getattr(config, "flag", False)`): configuration."""
    if not kind.startswith(PARAM_PREFIX):
        return False
    name = kind[len(PARAM_PREFIX):]
    return name in scope.params and name not in scope.tensor_params


class _IfValues:
    """One tracked ``if`` statement (:meth:`Bindings.enter_if_values`): its test, the
    blocks around it (``depth``), what each name held before it (``prev``; None: not known),
    what each arm bound (``arms``), the arm being read, and the names bound in ways not
    followed in each arm (``untracked``)."""

    __slots__ = ("node", "depth", "test", "prev", "arms", "arm", "untracked")

    def __init__(self, node: cst.If, depth: int):
        self.node, self.depth = node, depth
        self.test: Optional[Expr] = None  # set when the body begins (Bindings.note_if_test)
        self.prev: dict = {}
        self.arms = ({}, {})
        self.arm = 0
        self.untracked = (set(), set())  # per arm


def values_unknown():
    """The value of a name rebound where gblint does not follow it."""
    return value_syntax.UNKNOWN


def single_return(node, scope: FunctionScope):
    """``E`` as a value (:func:`gblint.syntax.value_syntax.expr_of`) when the body of ``node`` (a ``def``) is
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
    return None if value.op == Op.UNKNOWN else value


def mutation_places(scope) -> tuple:
    """:attr:`gblint.core.model.FunctionInfo.mutated` and ``mutated_when`` of a function whose scope ``scope`` (a
    :class:`gblint.syntax.scope.FunctionScope`) is left: the parameters changed in place, by their own names or
    others (:func:`gblint.syntax.aliases.changed_through_aliases`), and each place's tests."""
    aliases.changed_through_aliases(scope)
    for name in sorted(scope.escaped & scope.params):  # held by another object: changed through it, maybe
        scope.mutated.add(name)
        scope.mutated_at.append((name, ()))
    mutated = tuple(sorted(scope.mutated & scope.params))
    scope.info.mutated_keys = keyed.recorded(scope, mutated, scope.rebound)
    scope.info.local_keys = keyed.recorded_locals(scope, scope.rebound)
    return mutated, tuple((name, values.forget(Expr(Op.AND, parts=tests), scope.rebound) if tests else values.const(True))
                 for name, tests in scope.mutated_at if name in mutated)


def _present(item: Expr, scope) -> Expr:
    """An item appended inside the blocks of ``scope`` (a :class:`gblint.syntax.scope.FunctionScope`): the item where the
    tests of the branches and ``for`` loops around it hold (a loop over ``range(n)`` with ``n > 0``), nothing where
    one is false, the item or another value where they are not known (an item that may not be there makes a call
    on the list's items one whose target is not known); any other block (``try``, ``while``, a loop over anything
    else) leaves it maybe there, as :data:`gblint.abstract.values.OTHER` says."""
    tests, rebound = [], set()
    for b in scope.blocks:
        if b.kind == BlockKind.LOOP and id(b) in scope.loop_runs and scope.loop_runs[id(b)][0] is not None:
            test, names, _ = scope.loop_runs[id(b)]
            tests.append(test)
            rebound |= names
        elif b.kind == BlockKind.BRANCH and b.test is not None:
            tests.append(b.test)
        elif b.kind != BlockKind.WITH:
            return Expr(Op.UNION, parts=(item, values.OTHER))
    if not tests:
        return item
    tests = [values.forget(t, rebound) for t in tests]  # a test on what a step of a loop around rebinds: not known
    test = tests[0] if len(tests) == 1 else Expr(Op.AND, parts=tuple(tests))
    absent = Expr(Op.IFELSE, parts=(Expr(Op.NOT, parts=(test,)), Expr(Op.UNION), values.OTHER))
    return Expr(Op.IFELSE, parts=(test, item, absent))


def unpacked(target, value: Expr):
    """``(name, value)`` for each plain name an assignment target binds: ``x`` to ``value``, ``a, b`` to the items
    of unpacking it (:data:`Op.UNPACK`); nothing for a starred target (its items shift)."""
    if isinstance(target, cst.Name):
        return [(target.value, value)]
    if isinstance(target, (cst.Tuple, cst.List)) and not any(isinstance(e, cst.StarredElement)
                                                             for e in target.elements):
        return [pair for i, e in enumerate(target.elements) for pair in unpacked(e.value, Expr(Op.UNPACK, i, (value,)))]
    return []
