"""What the summary records of object flow, for the interpreter (:mod:`gblint.abstract.interp`).

Dynamo follows calls into whatever object the call's function turns out to be: a decorated
function's wrapper, a closure a factory returned, a layer taken out of an ``nn.ModuleList``, a
method of a config object passed as a parameter, a property's getter. gblint follows them by
recording, per function, what each local name is assigned (:attr:`FunctionInfo.locals`) and what
it returns (:attr:`FunctionInfo.results`); per class, what each ``self`` attribute is assigned
in which method (:attr:`ClassInfo.assigned`), its class-body values and fields; per module,
what each global is assigned (:attr:`FileSummary.module_values`); and attribute reads that may
run code (a property, ``__getattribute__``) as events. All of them are
:class:`gblint.core.model.Expr` values built by :mod:`gblint.syntax.value_syntax`; the interpreter evaluates
them later, flow-insensitively (a name is any of the values it is ever assigned).
:class:`gblint.syntax.summary.SummaryBuilder` owns a :class:`Flows` and hands it what it meets.
"""
from __future__ import annotations

import dataclasses
from typing import Optional, Protocol

import libcst as cst

from ..abstract import keyed, tensors
from ..core import namespace
from . import value_syntax
from ..core.model import BlockKind, CallArgs, Event, EventKind, Expr, Kind, TensorAttr
from ..core.ops import Op
from .positions import MATCHING
from .refs import is_external
from .scope import ReadingHost
from ..core.semantics import CALLS_ARGUMENT
from ..abstract.tensors import likely_tensor
from .traversal import code_of
from ..abstract.values import UNKNOWN, const

_GUARDS = (BlockKind.BRANCH, BlockKind.OPERAND, BlockKind.AFTER_RETURN)
# builtins whose result iterates as a builtin does (what they iterate is not followed)
_ITERATING_BUILTINS = frozenset({"range", "enumerate", "zip", "reversed", "sorted", "list", "tuple", "dict", "set",
                                 "map", "filter", "iter", "frozenset"})
# torch.nn.Module methods that register a hook on the module they are called on: calling the
# module then calls the hook (torch/nn/modules/module.py, _call_impl).
HOOK_METHODS = {"register_forward_hook": "\0hooks", "register_forward_pre_hook": "\0prehooks"}


TENSOR_CLASSES = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.Buffer",
                             "torch.nn.parameter.Buffer", "torch.Tensor"})


def tensor_constructor(value: cst.BaseExpression, scope) -> bool:
    """Whether ``value`` is a call of ``nn.Parameter``/``nn.Buffer`` (a tensor, whatever it wraps)."""
    return isinstance(value, cst.Call) and (scope.resolve(value.func) or "") in TENSOR_CLASSES


class FlowsHost(ReadingHost, Protocol):
    """What :class:`Flows` asks of the traversal (:class:`gblint.syntax.summary.SummaryBuilder`): what every
    collaborator reads (:class:`gblint.syntax.scope.ReadingHost`), and where events go."""

    def add_event(self, ev: Event) -> None: ...


class Flows:
    """Records assignments, returns, class attributes and attribute reads as values, read through
    ``builder`` (a :class:`FlowsHost`). Its own: ``numpy_attrs`` and ``none_buffers`` (``(class
    qualname, attribute)`` assigned a NumPy array made from Python values, registered as a ``None``
    buffer), the attributes stored and methods called at module level (as sets), the calls and
    imports open around the node and the attributes that are the base of a longer read."""

    def __init__(self, builder: FlowsHost):
        self.builder = builder
        self.summary = builder.summary
        self.numpy_attrs, self.none_buffers = set(), set()  # see note_value_facts, note_registered_tensor
        self._stored: set = set()  # FileSummary.stored_attrs and called_methods as sets
        self._called: set = set()
        self._in_import = 0  # import statements being visited (their dotted names are no attribute reads)
        self._open_calls: list = []  # (call, whether reads in its arguments are the call's) around the node
        self._chained: set = set()  # id() of attributes that are the base of a longer attribute read

    def note_registered_tensor(self, node: cst.Call, scope) -> None:
        """``self.register_buffer("name", value)`` / ``self.register_parameter("name", value)`` in a
        method: ``self.name`` is then a tensor (``nn.Module`` accepts only a tensor or ``None`` there,
        torch/nn/modules/module.py), known to be one when ``value`` is known to be a tensor (a torch
        factory's result, ``nn.Parameter(...)``, a local computed by torch ops)."""
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in ("register_buffer", "register_parameter")
                and isinstance(func.value, cst.Name) and scope.self_name and func.value.value == scope.self_name
                and scope.class_info is not None and len(node.args) >= 2 and node.args[0].keyword is None):
            return
        name = node.args[0].value
        name = name.evaluated_value if isinstance(name, cst.SimpleString) else None
        value = next((a.value for a in node.args[1:] if a.keyword is None or a.keyword.value in ("tensor", "param")),
                     None)
        if not isinstance(name, str) or value is None or self.builder.suppressed():
            return
        attrs, key = scope.class_info.attrs, (scope.class_info.qualname, name)
        if isinstance(value, cst.Name) and value.value == "None":
            self.none_buffers.add(key)  # `self.name` may be None: not known to be a tensor
            if isinstance(attrs.get(name), TensorAttr):
                attrs.pop(name)
            return
        if key not in self.none_buffers and (tensor_constructor(value, scope) or
                                             scope.known_tensor(value) == Kind.TENSOR):
            if attrs.get(name) is None or isinstance(attrs.get(name), TensorAttr):
                attrs[name] = TensorAttr(known=True)

    def note_value_facts(self, target, value: cst.BaseExpression, scope) -> None:
        """What assigning ``value`` to ``target`` makes known beyond its kind: a local bound to a boolean
        mask (``scope.masks``) or to a NumPy array made from Python values (``scope.numpy_locals``), a
        ``self`` attribute assigned one (``numpy_attrs``: see :func:`gblint.abstract.tensors.numpy_made`)."""
        if isinstance(target, cst.Name) and self.builder.in_function() and scope is self.builder.scope:
            if tensors.mask_kind(value, scope) is not None:
                scope.masks.add(target.value)
            if tensors.numpy_made(value, scope):
                scope.numpy_locals.add(target.value)
        elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and scope.self_name \
                and target.value.value == scope.self_name and scope.class_info is not None \
                and tensors.numpy_made(value, scope):
            self.numpy_attrs.add((scope.class_info.qualname, target.attr.value))

    # -- assignments
    def note_target(self, target: cst.BaseExpression, value: Expr, suffix: str = "") -> None:
        """Record that ``target`` (an assignment target) is bound to ``value``: a local name of
        the function, a global at module level, a class-body name, or a ``self`` attribute.
        ``suffix`` is added to each name (a comprehension's own: :data:`value_syntax.COMP`)."""
        if self.builder.in_function() and isinstance(target, (cst.Attribute, cst.Subscript)) and not (
                isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
                and target.value.value == self.builder.scope.self_name):
            keyed.note_escape(self.builder.scope, value)  # held by another object (`holder.d = kwargs`)
        elif self.builder.in_function() and isinstance(target, cst.Attribute):  # `self.d = d`: changed through it
            keyed.note_escape_local(self.builder.scope, value)
        if isinstance(target, cst.Name):
            self._note_name(target.value + suffix, value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for i, element in enumerate(target.elements):
                if isinstance(element, cst.StarredElement):
                    self.note_target(element.value, UNKNOWN, suffix)
                else:
                    self.note_target(element.value, Expr(Op.UNPACK, i, (value,)), suffix)
        elif isinstance(target, cst.StarredElement):
            self.note_target(target.value, UNKNOWN, suffix)
        elif isinstance(target, cst.Subscript):
            self.note_namespace_store(namespace.item_stores(target, self.builder.ctx.resolve))
        elif isinstance(target, cst.Attribute):
            scope = self.builder.scope
            if isinstance(target.value, cst.Name) and self.builder.in_function() and scope.self_name \
                    and target.value.value == scope.self_name and scope.class_info is not None:
                scope.self_store_values[id(target)] = value  # for the reads it decides (gblint.syntax.self_stores)
                if not self.builder.suppressed():
                    assigned = scope.class_info.assigned
                    assigned[target.attr.value] = assigned.get(target.attr.value, ()) + ((scope.info.qualname, value),)
                    test = arm_test(scope.blocks)
                    if test is not None:
                        guards = scope.class_info.guards
                        guards[target.attr.value] = guards.get(target.attr.value, ()) + (
                            (scope.info.qualname, value, test),)
                    if not all(b.kind in (BlockKind.WITH, BlockKind.AFTER_RETURN) for b in scope.blocks):
                        scope.class_info.unsure += ((scope.info.qualname, target.attr.value),)
            elif target.attr.value in ("__defaults__", "__kwdefaults__"):
                self._forget_defaults(target)
            else:
                if isinstance(target.value, cst.Name) and self.builder.in_function() \
                        and target.value.value in scope.params \
                        and not self.builder.suppressed():  # a class decorator's `cls.forward = wrapper`
                    sure = all(b.kind in (BlockKind.WITH, BlockKind.AFTER_RETURN) for b in scope.blocks)
                    scope.info.param_stores += ((target.value.value, target.attr.value, value, sure),)
                    if target.value.value == "self" and scope.info.params[0].name == "self":
                        return  # a method made outside its class (a decorator's `__init__`): its own self
                self.note_attr_store(target.attr.value)

    def note_attr_store(self, name: str) -> None:
        """The attribute ``name`` is assigned, deleted or ``setattr`` on something other than a
        method's own ``self`` (:attr:`FileSummary.stored_attrs`)."""
        if self.builder.in_function():
            if name not in self.builder.scope.info.stores:
                self.builder.scope.info.stores += (name,)
        elif name not in self._stored:
            self._stored.add(name)
            self.summary.stored_attrs += (name,)

    def _forget_defaults(self, target: cst.Attribute) -> None:
        """``f.__defaults__ = ...``: the defaults of the function ``f`` defined above (this
        module's, or a class's ``C.f``) are no longer the ones its ``def`` gives."""
        qual = code_of(target.value)
        if self.builder.in_function() and isinstance(target.value, cst.Name):
            local = self.builder.scope.info.local_defs.get(target.value.value)
            qual = local if isinstance(local, str) else qual
        info = self.summary.functions.get(qual)
        if info is not None:
            info.params = tuple(dataclasses.replace(p, default=None) for p in info.params)

    def note_setattr(self, node: cst.Call, q: Optional[str]) -> None:
        """``setattr(obj, "name", value)`` stores ``name`` (:meth:`note_attr_store`); a call at
        module level on an object is recorded by the method's name (:attr:`FileSummary.called_methods`)."""
        func = node.func
        if isinstance(func, cst.Attribute) and not self.builder.in_function() and func.attr.value not in self._called:
            self._called.add(func.attr.value)
            self.summary.called_methods += (func.attr.value,)
        found = namespace.call_stores(node, self.builder.ctx.resolve)
        key = None
        if found is not None and found[1] == (namespace.ANY,) and self.builder.in_function():
            if isinstance(func, cst.Name) and func.value == "setattr" or q == "object.__setattr__":
                key = self.builder.value_of(node.args[1].value)
            elif isinstance(func, cst.Attribute) and func.attr.value == "__setattr__":  # super().__setattr__(k, v)
                key = self.builder.value_of(node.args[0].value)
        self.note_namespace_store(found, key)

    def note_namespace_store(self, found, key: Optional[Expr] = None) -> None:
        """Attributes stored on an object by name or through its ``__dict__`` (``found``: what
        :mod:`gblint.core.namespace` read, or None): each literal name as :meth:`note_attr_store`; a name
        not known as :data:`gblint.core.namespace.ANY`, unless the object is the method's own ``self``
        (``setattr(self, key, value)`` over a constructor's ``**kwargs``): then only the class's own
        instances may hold any attribute (``ClassInfo.assigned[ANY]``, with ``key``, what names the attribute in
        ``setattr(self, key, value)``, read by :mod:`gblint.abstract.interp`)."""
        if found is None:
            return
        owner, names = found
        own = self.builder.in_function() and self.builder.scope.self_name and (
            (isinstance(owner, cst.Name) and owner.value == self.builder.scope.self_name)
            or (isinstance(owner, cst.Call) and isinstance(owner.func, cst.Name) and owner.func.value == "super"))
        for name in names:
            if name != namespace.ANY or not own:
                self.note_attr_store(name)
            elif self.builder.scope.class_info is not None:  # the class's own instances may hold any attribute
                assigned = self.builder.scope.class_info.assigned
                assigned[name] = assigned.get(name, ()) + ((self.builder.scope.info.qualname,
                                                            UNKNOWN if key is None else key),)

    def note_del(self, node: cst.Del) -> None:
        """``del target, ...``: names stored by item or attribute, attributes rebound to nothing followed."""
        targets = node.target.elements if isinstance(node.target, (cst.Tuple, cst.List)) else ()
        for t in [e.value for e in targets] or [node.target]:
            self.note_namespace_store(namespace.item_stores(t, self.builder.ctx.resolve))
            if isinstance(t, cst.Attribute):
                self.note_unknown(t)

    def note_item_store(self, target: cst.Subscript, value: Expr) -> None:
        """``obj[key] = value``: it runs ``type(obj).__setitem__`` (a ``STORE_SUBSCR``). Recorded
        as a read event of ``obj.__setitem__`` with the key and value as its arguments (no
        unfollowed call when ``obj`` is a plain container); a break in that method resumes after
        the store, as after a call (measured: tests/fixtures/reach/o14_dataclass_output_and_item_store.py).
        A tensor's item store is an op, not code of the program."""
        scope = self.builder.scope
        if self.builder.suppressed() or scope.known_tensor(target.value) is not None:
            return
        item = self.builder.value_of(target)
        if item.op != Op.SUB or len(item.parts) != 2:
            return
        base, key = item.parts
        self.builder.add_event(Event(EventKind.CALL, self.builder.span(target), tuple(scope.blocks), scope.ops,
                             call_text=code_of(target.value) + ".__setitem__",
                             func=Expr(Op.ATTR, "__setitem__", (base,)), read=True,
                             args=CallArgs(positional=(key, value))))

    def _note_name(self, name: str, value: Expr) -> None:
        scope = self.builder.scope
        if self.builder.in_function():
            if self.builder.suppressed():
                return  # never runs under Dynamo (`if not is_compiling():`)
            info = scope.info
            info.locals[name] = info.locals.get(name, ()) + (value,)
            scope.bound_names.add(name)
            if name in scope.declared_global:  # what a reader elsewhere sees: a literal, else a value not known
                stores = self.summary.global_stores
                stores[name] = stores.get(name, ()) + (value if value.op == Op.CONST else UNKNOWN,)
                if name not in info.rebinds:
                    info.rebinds += (name,)
        elif scope is None and self.builder.class_stack:
            cls = self.builder.class_stack[-1]
            cls.values[name] = value
        elif self.builder.scope is None:
            values = self.summary.module_values
            values[name] = values.get(name, ()) + (value,)

    def note_annotated(self, node: cst.AnnAssign) -> None:
        """A class-body ``name: T`` (``= default``): a field of a dataclass-like class, unless ``T`` is
        ``ClassVar[...]`` (``dataclasses._process_class`` leaves those out of the fields and ``__init__``)."""
        if self.builder.scope is None and self.builder.class_stack and isinstance(node.target, cst.Name) \
                and not self.builder.in_function() and not _class_var(node.annotation.annotation):
            cls = self.builder.class_stack[-1]
            if node.target.value not in cls.fields:
                cls.fields = cls.fields + (node.target.value,)

    def note_unknown(self, target: cst.BaseExpression) -> None:
        """``target`` is rebound to something gblint does not follow (``x += 1``, ``except E
        as x``, ``del x``)."""
        self.note_target(target, UNKNOWN)

    def note_call_flows(self, node: cst.Call) -> None:
        """What a call makes run later or besides: a hook it registers (:meth:`note_hook`),
        ``len(obj)`` calls ``type(obj).__len__`` (a read event of a ``protocol`` value)."""
        self.note_hook(node)
        if isinstance(node.func, cst.Name) and node.func.value == "len" and len(node.args) == 1 \
                and self.builder.scope.imports.lookup("len") is None and "len" not in self.builder.scope.env:
            self.note_iteration(node.args[0].value, "__len__", at=node)

    def note_hook(self, node: cst.Call) -> None:
        """``self.register_forward_hook(fn)`` / ``self.child.register_forward_pre_hook(fn)`` in a
        method: calling that module calls ``fn`` too."""
        func = node.func
        if not (self.builder.in_function() and isinstance(func, cst.Attribute) and func.attr.value in HOOK_METHODS
                and node.args and self.builder.scope.class_info is not None and self.builder.scope.self_name):
            return
        owner = func.value
        path = []
        while isinstance(owner, cst.Attribute):
            path.append(owner.attr.value)
            owner = owner.value
        scope = self.builder.scope
        if not (isinstance(owner, cst.Name) and owner.value == scope.self_name) or len(path) > 1:
            return
        key = HOOK_METHODS[func.attr.value] + (path[0] if path else "")
        assigned = scope.class_info.assigned
        assigned[key] = assigned.get(key, ()) + ((scope.info.qualname, self.builder.value_of(node.args[0].value)),)

    # -- loops, comprehensions, managers
    def note_loop(self, target: cst.BaseExpression, iterable: cst.BaseExpression) -> None:
        """``for target in iterable`` (a statement or a comprehension's ``for``)."""
        self.note_target(target, Expr(Op.ITER, parts=(self.builder.value_of(iterable),)))

    def note_comp_for(self, node: cst.CompFor) -> None:
        """A comprehension's ``for``: its target is bound to what the iterable yields."""
        if self.builder.in_function():
            with value_syntax.outside_comprehension(node, self.builder.scope):
                self.note_target(node.target, Expr(Op.ITER, parts=(self.builder.value_of(node.iter),)),
                                 value_syntax.COMP)

    def enter_comp_iter(self, node: cst.CompFor) -> None:
        """Entering a comprehension's iterable."""
        if self.builder.in_function():  # the first `for`'s iterable is read in the enclosing scope
            scope = self.builder.scope
            outside = value_syntax.outside_comprehension(node, scope)
            scope.outside.append(outside.__enter__())
            # and evaluated in the enclosing frame (Python passes the comprehension function its iterator): a break
            # there is the enclosing frame's, not one in the comprehension's frame
            first = bool(scope.comp_names) and scope.comp_names[-1][0] is node and scope.blocks \
                and scope.blocks[-1].kind in (BlockKind.COMP, BlockKind.GENEXPR)
            scope.comp_iter_blocks.append(scope.blocks.pop() if first else None)

    def leave_comp_iter(self, node: cst.CompFor) -> None:
        """Leaving a comprehension's iterable: iterating it runs ``__iter__`` (:meth:`note_iteration`)."""
        if self.builder.in_function():
            self.builder.scope.outside.pop().__exit__(None, None, None)
            block = self.builder.scope.comp_iter_blocks.pop()
            if block is not None:
                self.builder.scope.blocks.append(block)
        comps = self.builder.scope.comp_names if self.builder.in_function() else None
        at = comps[-1][2] if comps else node.iter
        if isinstance(at, cst.GeneratorExp):  # its span is not one positions.py can give: the iterable's
            at = node.iter if type(node.iter) in MATCHING else None
        if at is not None:
            self.note_iteration(node.iter, at=at)

    def note_iteration(self, iterable: cst.BaseExpression, method: str = "__iter__", at=None) -> None:
        """``for x in iterable`` calls ``type(iterable).__iter__`` (``GET_ITER``), or, for a class
        with only ``__getitem__`` or a ``collections.abc.Sequence`` base, ``__getitem__``: a read
        event whose function is a ``protocol`` value (no unfollowed call when it is neither). A
        tensor, a display or a call of a builtin (``range``, ``enumerate``...) is not recorded.
        ``method``: the one called (``__len__`` for ``len(iterable)``); ``at``: the node the event
        is placed at (the ``for`` statement, the comprehension, the ``len`` call)."""
        scope = self.builder.scope
        if not self.builder.in_function() or self.builder.suppressed() or scope.known_tensor(iterable) is not None \
                or isinstance(iterable, (cst.List, cst.Tuple, cst.Set, cst.Dict, cst.ListComp, cst.GeneratorExp,
                                         cst.SimpleString, cst.FormattedString)) \
                or (isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name)
                    and iterable.func.value in _ITERATING_BUILTINS):
            return
        value = self.builder.value_of(iterable)
        if value.op in (Op.UNKNOWN, Op.CONST, Op.SEQ, Op.DICT):
            return
        self.builder.add_event(Event(EventKind.CALL, self.builder.span(at if at is not None else iterable),
                                     tuple(scope.blocks), scope.ops, call_text=code_of(iterable) + "." + method,
                                     read=True, func=Expr(Op.PROTOCOL, method, (value,)), args=CallArgs()))

    # -- returns
    def note_return(self, node: cst.Return) -> None:
        """Record what a ``return`` returns."""
        # an eager-only `return` is never taken under Dynamo
        if self.builder.in_function() and not self.builder.suppressed():
            info = self.builder.scope.info
            value = self.builder.value_of(node.value) if node.value is not None else const(None)
            tests = [b.test for b in self.builder.scope.blocks if b.test is not None and b.kind in _GUARDS]
            if tests:  # returned only when the tests around it hold
                test = tests[0] if len(tests) == 1 else Expr(Op.AND, parts=tuple(tests))
                value = Expr(Op.IFELSE, parts=(test, value, Expr(Op.UNION)))
            info.results = info.results + (value,)

    # -- attribute reads that may run code
    def note_attribute_read(self, node: cst.Attribute) -> None:
        """After ``node`` was visited: an attribute read outside any call, on an object that is not
        a tensor or a module path: it may run a property's getter or a ``__getattribute__`` (one
        event per value and blocks; reads inside calls are followed with the call)."""
        scope = self.builder.scope
        if not self.builder.in_function() or self._read_by_call(node) or self._in_import or id(node) in self._chained \
                or id(node) in scope.store_targets or id(node) in scope.written or self.builder.suppressed():
            return
        if scope.self_name and isinstance(node.value, cst.Name) and node.value.value == scope.self_name \
                and scope.class_info is not None and node.attr.value in scope.class_info.assigned:
            return  # an attribute this class assigns: no property of its own class
        known = scope.known_tensor(node.value)
        if known == Kind.TENSOR or (known is not None and node.attr.value in tensors.TENSOR_READS):
            return  # a parameter may hold any object (`cache.is_sliding`), unless this is a tensor's attribute
        value = self.builder.value_of(node)
        if value.op != Op.ATTR:
            return
        key = (value, tuple(id(b) for b in scope.blocks))
        if key in scope.read_keys:
            return
        scope.read_keys.add(key)
        self.builder.add_event(Event(EventKind.CALL, self.builder.span(node), tuple(scope.blocks), scope.ops,
                             call_text=code_of(node), func=value, read=True))

    def enter_call(self, node: cst.Call, q: Optional[str]) -> None:
        """Entering the call ``node`` of the dotted name ``q`` (None: not a name). The arguments of a
        call gblint may follow are evaluated with it, reads in them included; those of a library's
        function (``zip(cache.is_sliding, cache.is_dummy)``, ``torch.cat(...)``) are not, so an
        attribute read in them is an event of its own (a property's getter runs there)."""
        library = bool(q) and is_external(q) and q not in CALLS_ARGUMENT and not self.named_attribute_read(node, q)
        self._open_calls.append((node, not library))

    def _read_by_call(self, node: cst.Attribute) -> bool:
        """Whether the attribute read ``node`` is followed with the innermost call around it: the
        call's function, or in the arguments of a call gblint may follow."""
        if not self._open_calls:
            return False
        call, owns_arguments = self._open_calls[-1]
        return owns_arguments or call.func is node

    def leave_call(self) -> None:
        """Leaving the innermost call entered (:meth:`enter_call`)."""
        self._open_calls.pop()

    def enter_import(self) -> None:
        """Entering an import statement: its dotted names are no attribute reads."""
        self._in_import += 1

    def leave_import(self) -> None:
        self._in_import -= 1

    def note_chain(self, node: cst.Attribute) -> None:
        """Mark the attribute under ``node`` (``a.b`` of ``a.b.c``): its read is part of this one."""
        if isinstance(node.value, cst.Attribute):
            self._chained.add(id(node.value))

    def named_attribute_read(self, node: cst.Call, name: str) -> bool:
        """Whether ``node`` is ``getattr(obj, "name"[, default])`` on an object not known to be a
        tensor: it reads the attribute as ``obj.name`` does (a property's getter, ``__getattr__``),
        so it is a call gblint follows (``builtins.getattr`` in :mod:`gblint.abstract.invoke`)."""
        if name not in ("builtins.getattr", "getattr") or len(node.args) < 2:
            return False
        key = node.args[1].value
        if not isinstance(key, cst.SimpleString):
            return False
        scope = self.builder.scope
        # a parameter that may be a tensor may be any object too (`cache: Cache | None`): the walk decides
        return scope is None or scope.kind(node.args[0].value) not in (Kind.TENSOR, Kind.PROBABLE)  # None: module level

    def may_follow(self, node: cst.Call) -> bool:
        """Whether a call whose function the summary's own refs do not name may still lead into
        the project's code (:mod:`gblint.abstract.interp` decides): not a method of a tensor, not a
        function of a library gblint does not follow."""
        func = node.func
        if isinstance(func, cst.Attribute):
            kind = self.builder.scope.kind(func.value)
            # a parameter or a function's result may be any object (`cache.update(...)`,
            # `out.to_tuple()`): only a known tensor, or a tensor method's name, is a tensor's call
            if kind == Kind.TENSOR or (likely_tensor(kind) and func.attr.value in tensors.TENSOR_METHODS):
                return False
        q = self.builder.scope.resolve(func)
        return not (q and is_external(q))


def _class_var(annotation: cst.BaseExpression) -> bool:
    """Whether the annotation ``annotation`` is ``ClassVar`` (``typing.ClassVar[int]``, ``"ClassVar[int]"``)."""
    if isinstance(annotation, cst.SimpleString):
        text = annotation.evaluated_value if isinstance(annotation.evaluated_value, str) else ""
        return text.split("[", 1)[0].strip().rsplit(".", 1)[-1] == "ClassVar"
    if isinstance(annotation, cst.Subscript):
        annotation = annotation.value
    if isinstance(annotation, cst.Attribute):
        return annotation.attr.value == "ClassVar"
    return isinstance(annotation, cst.Name) and annotation.value == "ClassVar"


def arm_test(blocks) -> Optional[Expr]:
    """The test under which code inside ``blocks`` runs, when only ``if`` arms (and ``with`` blocks, and the rest
    after an early return) are around it: their tests joined with ``and``; None when there is none, or another
    block (a loop, a ``try``) is around."""
    tests = []
    for b in blocks:
        if b.kind == BlockKind.BRANCH and b.test is not None:
            tests.append(b.test)
        elif b.kind not in (BlockKind.WITH, BlockKind.AFTER_RETURN):
            return None
    if not tests:
        return None
    return tests[0] if len(tests) == 1 else Expr(Op.AND, parts=tuple(tests))
