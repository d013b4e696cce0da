"""Where a file compiles something: ``@torch.compile``, ``torch.compile(fn)``,
``torch.compile(Module())``, ``model.compile()``.

Each place becomes a :class:`gblint.core.model.RegionDecl` naming what is compiled; the engine later
resolves it to the compiled entry frames. :class:`gblint.syntax.summary.SummaryBuilder` owns a
:class:`Regions` and hands it the calls, assignments, definitions and the module's end it meets.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Protocol, Set, Tuple

import libcst as cst

from ..core.model import (Binding, Dotted, Expr, FileSummary, InstanceCall, InstanceValue, LocalFunction, Method, RegionDecl,
                          SelfAttrMethod, SelfMethod, Span)
from ..core.ops import Op
from .compiled_uses import runs_compiled, stored_away
from .refs import Refs, module_itself
from .scope import FunctionScope
from ..core.semantics import COMPILE_NAMES, SELF_RETURNING_METHODS, STANCE_SETTERS, SUBSTITUTES
from .traversal import kwarg, literal


# calls after which a tensor's dtype or device is not what its factory or its layer's input says (torch/__init__.py)
_DEFAULT_DTYPE_SETTERS = frozenset({"torch.set_default_dtype", "torch.set_default_tensor_type", "torch.autocast",
                                    "torch.amp.autocast", "torch.cuda.amp.autocast", "torch.cpu.amp.autocast",
                                    "torch.set_default_device"})
# managers that change the default device while they run (torch/utils/_device.py)
_DEVICE_MANAGERS = frozenset({"torch.device", "torch.utils._device.DeviceContext"})
_Name = Tuple[Optional[str], str]  # (the function a name is local to, or None at module level; the name)


class RegionsHost(Protocol):
    """What :class:`Regions` asks of the traversal (:class:`gblint.syntax.summary.SummaryBuilder`): the
    file's summary, module names as bound so far, the scope being read, positions and values."""

    summary: FileSummary
    module_now: Dict[str, Binding]
    scope: Optional[FunctionScope]

    @property
    def ctx(self) -> FunctionScope: ...

    def in_function(self) -> bool: ...

    def span(self, node: cst.CSTNode) -> Span: ...

    def value_of(self, node: cst.BaseExpression) -> Expr: ...


class Regions:
    """Records the compile calls and decorators of a file as :class:`RegionDecl` objects, the
    mode (``.eval()`` / ``.train()``) the code sets on what they compile, and whether it changes
    the default dtype of the tensors the compiled code makes; read through ``builder`` (a
    :class:`RegionsHost`), ``refs`` (what calls refer to) and ``def_quals`` (``id()`` of a ``def``
    -> the qualified name the traversal gave it)."""

    _modes: Dict[_Name, Set[Optional[bool]]]  # a name -> the modes set through it (None: a mode not known)
    _aliases: Dict[_Name, _Name]  # `compiled = torch.compile(model)`: compiled -> model (one module)
    _mode_of: List[Tuple[RegionDecl, _Name, Set[Optional[bool]]]]  # each region: its name, chain modes

    def __init__(self, builder: RegionsHost, refs: Refs, def_quals: Dict[int, str]) -> None:
        self.builder, self.refs, self._def_quals = builder, refs, def_quals
        self.summary = builder.summary
        self._modes, self._aliases, self._mode_of = {}, {}, []
        self._all_modes: Set[Optional[bool]] = set()  # every mode the file sets, on anything (None: not known)
        self._escaped: Set[_Name] = set()  # names handed to a call or another name: set elsewhere, maybe
        self._bound: Dict[_Name, int] = {}  # how many times a name is bound to something other than its compiled self
        self._discarded: Set[int] = set()  # ids of the calls whose result a statement throws away
        self._made: Dict[int, List[RegionDecl]] = {}  # id of a compile call -> the regions it declared
        self._local_compiled: Dict[str, List[Tuple[List[RegionDecl], str]]] = {}  # function -> (regions, local name)
        self._module_switches: List[int] = []  # ids of the module-level calls that may switch Dynamo off or on

    def visit_Expr(self, node: cst.Expr) -> None:
        if isinstance(node.value, cst.Call):
            self._discarded.add(id(node.value))

    def visit_WithItem(self, node: cst.WithItem) -> None:
        item = node.item
        if isinstance(item, cst.Call) and self.builder.ctx.resolve(item.func) in _DEVICE_MANAGERS or \
                isinstance(item, (cst.Name, cst.Attribute)) and self._a_device(item):
            self.summary.sets_default_dtype = True  # `with torch.device("cuda"):`, `with META:` (torch/utils/_device.py)

    def _a_device(self, item: cst.BaseExpression) -> bool:
        """Whether ``item`` is a ``torch.device``: a local or a global of the file bound to one."""
        value = self.builder.value_of(item)
        if value.op == Op.GLOBAL and isinstance(item, cst.Name):
            return any(v.op == Op.DEVICE for v in self.summary.module_values.get(item.value, ()))
        return value.op == Op.DEVICE

    def detect_compile(self, node: cst.Call, q) -> None:
        """Record ``node`` when it compiles something; ``q`` is what its function resolves to."""
        scope = self.builder.ctx
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("eval", "train"):
            modes = _mode_set(node)
            self._note_mode(func.value, modes)
            self._all_modes |= modes
        if q not in COMPILE_NAMES:
            self._escaped.update(self._local_name(a.value.value) for a in node.args if isinstance(a.value, cst.Name))
        if q in _DEFAULT_DTYPE_SETTERS or isinstance(func, cst.Attribute) and func.attr.value == "__enter__":
            self.summary.sets_default_dtype = True  # also `torch.device("meta").__enter__()`
        if _switches(node, q) and (self.builder.in_function() or id(node) not in self._discarded):
            self.summary.config["dynamo_switched"] = True  # not a statement at the top (summary.collect_config)
        elif _switches(node, q):
            self._module_switches.append(id(node))  # at the top, unless under an `if`, `try`... (settle)
        if q in ("setattr", "builtins.setattr") and node.args and self.builder.ctx.resolve(node.args[0].value) in (
                "torch._dynamo.config", "torch.compiler.config"):
            self.summary.config["dynamo_switched"] = True  # `setattr(torch._dynamo.config, "disable", True)`
        if isinstance(func, cst.Call) and func.args and scope.resolve(func.func) in SUBSTITUTES:
            replaced = self.builder.value_of(func.args[0].value)  # `substitute_in_graph(f)(polyfill)`
            if replaced.op == Op.ATTR and replaced.parts and replaced.parts[0].op == Op.GLOBAL:  # `Op.apply`
                replaced = Expr(Op.GLOBAL, f"{replaced.parts[0].value}.{replaced.value}")
            if replaced.op == Op.GLOBAL:
                self.summary.substitutes.append(replaced.value)
        if q in COMPILE_NAMES:
            self.record_compile(node)
        elif isinstance(func, cst.Attribute) and func.attr.value == "compile":
            self.record_method_compile(node)
        elif isinstance(func, cst.Call) and scope.resolve(func.func) in COMPILE_NAMES and node.args \
                and all(a.keyword is not None for a in func.args):
            # torch.compile(backend=...)(fn); not torch.compile(model)(x), a call of the compiled model
            self.record_compile(cst.Call(func=func.func, args=[node.args[0]] + list(func.args)), span_node=node)

    def record_compile(self, call: cst.Call, span_node=None) -> None:
        """``torch.compile(x, ...)``: what ``x`` names (a function, a method, a module instance or
        a module built in place); ``span_node`` is where to report it, when not ``call``."""
        scope = self.builder.ctx
        fullgraph = literal(kwarg(call, "fullgraph")) is True
        disable = kwarg(call, "disable")
        if literal(disable) is True or id(span_node or call) in self._discarded:
            return  # `torch.compile(model)` alone compiles nothing: the module is called as it was (kinds kd4)
        span = self.builder.span(span_node or call)
        if not call.args or call.args[0].keyword is not None:
            return  # decorator form with options: handled on the FunctionDef
        target = module_itself(call.args[0].value)  # torch.compile(Net().eval()), torch.compile(model.to(d))
        fn = self.builder.scope.info.qualname if self.builder.in_function() else None
        before = len(self.summary.regions)
        self._record_compile_target(call, target, scope, fullgraph, span, fn)
        value = self.builder.value_of(call.args[0].value)
        if len(self.summary.regions) > before:
            self.summary.regions[-1].value = value
        else:  # nothing the summary's own refs name: the interpreter may still resolve the value
            self.summary.regions.append(RegionDecl(None, False, fullgraph, span, "torch.compile(x)", fn, value=value))
        self._region_mode(self.summary.regions[-1], call.args[0].value)
        if disable is not None and literal(disable) is not False:  # `disable=not USE_COMPILE`: decided on values
            for decl in self.summary.regions[before:]:
                decl.disable = self.builder.value_of(disable)
        self._made[id(span_node or call)] = self.summary.regions[before:]

    def _record_compile_target(self, call, target, scope, fullgraph, span, fn) -> None:
        if isinstance(target, cst.Call):
            ref = self.refs.callee_ref(target.func, scope)
            if ref:
                self.summary.regions.append(RegionDecl(ref, True, fullgraph, span, "torch.compile(Module())", fn))
            return
        ref = self.refs.callee_ref(target, scope)
        if isinstance(target, cst.Name) and not self.builder.in_function():
            # `model = Net(cfg)` then `model = torch.compile(model)`: what the name holds at this
            # statement, not its last binding in the module (which is the compiled model itself)
            now = self.builder.module_now.get(target.value)
            if isinstance(now, InstanceValue):
                ref = InstanceCall(now.cls)
        if isinstance(target, cst.Name) and ref is not None:
            if isinstance(ref, InstanceCall):
                self.summary.regions.append(RegionDecl(ref.cls, True, fullgraph, span, "torch.compile(model)", fn))
            else:
                self.summary.regions.append(RegionDecl(ref, False, fullgraph, span, "torch.compile(fn)", fn))
        elif ref is not None:
            if isinstance(ref, (SelfAttrMethod, SelfMethod)):
                self.summary.regions.append(RegionDecl(ref, False, fullgraph, span, "torch.compile(fn)", fn))
            elif isinstance(ref, Method):
                self.summary.regions.append(RegionDecl(ref, False, fullgraph, span, "torch.compile(obj.method)", fn))

    def record_method_compile(self, call: cst.Call) -> None:
        """``self.compile()`` and ``model.compile()``, ``model`` an instance of a known class."""
        func = call.func
        base = func.value
        scope = self.builder.ctx
        span = self.builder.span(call)
        fullgraph = literal(kwarg(call, "fullgraph")) is True
        fn = self.builder.scope.info.qualname if self.builder.in_function() else None
        if isinstance(base, cst.Name):
            if scope.self_name and base.value == scope.self_name and scope.class_info:
                self.summary.regions.append(RegionDecl(Dotted(self.qual(scope.class_info.qualname)), True,
                                                       fullgraph, span, "self.compile()", fn))
                return
            v = None
            s = scope
            while s is not None and v is None:
                v = s.values.get(base.value)
                s = s.parent
            if v is None:
                v = self.summary.module_names.get(base.value)
            if isinstance(v, InstanceValue):
                names = (base.value,) if not self.builder.in_function() else ()
                self.summary.regions.append(RegionDecl(v.cls, True, fullgraph, span, "model.compile()", fn, names,
                                                       value=self.builder.value_of(base)))
                self._region_mode(self.summary.regions[-1], base)
                return
        if isinstance(base, cst.Name) and scope.imports.lookup(base.value) is not None:
            return  # `re.compile(...)`: a module's function, not a model's method
        names = (base.value,) if isinstance(base, cst.Name) and not self.builder.in_function() else ()
        self.summary.regions.append(RegionDecl(None, True, fullgraph, span, "model.compile()", fn, names,
                                               value=self.builder.value_of(base)))
        self._region_mode(self.summary.regions[-1], base)

    # -- the mode: `self.training` in what a region compiles
    def _local_name(self, name: str) -> _Name:
        return (self.builder.scope.info.qualname if self.builder.in_function() else None, name)

    def _note_mode(self, base: cst.BaseExpression, modes: Set[Optional[bool]]) -> None:
        """``x.eval()``, ``x.to(d).train()``: the module ``x`` names is set to ``modes``."""
        root = module_itself(base)
        if isinstance(root, cst.Name):
            self._modes.setdefault(self._local_name(root.value), set()).update(modes)

    def note_mode_assign(self, node: cst.Assign) -> None:
        """``model = Net().eval()`` sets the mode of what ``model`` names; ``compiled =
        torch.compile(model)`` makes ``compiled`` the module compiled (``OptimizedModule`` hands
        ``.eval()`` and ``.train()`` to the module it wraps)."""
        if any(isinstance(t.target, cst.Attribute) and self.builder.ctx.resolve(t.target) == "torch._dynamo.config.disable"
               for t in node.targets):
            if self.builder.in_function():
                self.summary.config["dynamo_switched"] = True
            else:
                self._module_switches.append(id(node))  # at the top, unless under an `if`... (settle)
        if any(isinstance(t.target, cst.Attribute) and t.target.attr.value == "training" for t in node.targets):
            self._all_modes.add(None)  # `model.training = flag`
        if isinstance(node.value, cst.Name):  # `m = model`: the module goes by another name too
            self._escaped.add(self._local_name(node.value.value))
        keys = [self._local_name(t.target.value) for t in node.targets if isinstance(t.target, cst.Name)]
        if id(node.value) in self._made and len(node.targets) == 1 and keys and keys[0][0] is not None:
            self._local_compiled.setdefault(keys[0][0], []).append((self._made.pop(id(node.value)), keys[0][1]))
        modes = _chain_modes(node.value)
        root = module_itself(node.value)
        compiled = None
        if isinstance(root, cst.Call) and root.args and self.builder.ctx.resolve(root.func) in COMPILE_NAMES:
            modes |= _chain_modes(root.args[0].value)
            compiled = self._compiled_key(root.args[0].value)
        for key in keys:
            if key != compiled:  # `model = torch.compile(model)` keeps the module the name holds
                self._bound[key] = self._bound.get(key, 0) + 1
                if compiled is not None:
                    self._aliases[key] = compiled
            if modes:
                self._modes.setdefault(key, set()).update(modes)

    def _compiled_key(self, compiled: cst.BaseExpression) -> _Name:
        """The name a compiled module goes by here: its own, or one made for a module built in place."""
        root = module_itself(compiled)
        return self._local_name(root.value if isinstance(root, cst.Name) else f"\0{id(compiled)}")

    def _region_mode(self, decl: RegionDecl, compiled: cst.BaseExpression) -> None:
        self._mode_of.append((decl, self._compiled_key(compiled), _chain_modes(compiled)))

    def settle_modes(self) -> None:
        """At the module's end, each region's mode: the one mode the code sets on what it compiles (through its name,
        the compiled object's name or a chain such as ``Net().eval()``), when the file sets only
        that one mode, on nothing else (a submodule's own ``.train()``, ``model.training = x``),
        and the module's names are bound once and handed to no call (which may set it)."""
        if len(self._all_modes) > 1 or None in self._all_modes:
            self._mode_of = []
        for decl, name, modes in self._mode_of:
            modes = set(modes)
            group = {name}
            for alias, target in self._aliases.items():
                if target == name:
                    group.add(alias)
            for n in group:
                modes |= self._modes.get(n, set())
            if any(n in self._escaped or self._bound.get(n, 0) > 1 for n in group):
                continue
            if len(modes) == 1 and None not in modes:
                decl.training = next(iter(modes))

    def settle(self, module: cst.Module) -> None:
        """At the module's end: each region's mode (:meth:`settle_modes`), what keeps its compiled object
        (:meth:`settle_stores`), and whether a switch of Dynamo at module level is not a statement at the top (under an
        ``if``, a ``try``, a ``with``): then what is compiled is decided at run time (``config["dynamo_switched"]``)."""
        self.settle_modes()
        self.settle_stores(module)
        if self._module_switches:
            top = {id(small.value) if isinstance(small, cst.Expr) else id(small) for stmt in module.body
                   if isinstance(stmt, cst.SimpleStatementLine) for small in stmt.body}
            if any(key not in top for key in self._module_switches):  # under an `if`, a `try`, a `with`
                self.summary.config["dynamo_switched"] = True

    def settle_stores(self, module: cst.Module) -> None:
        """At the module's end, the regions of the compiled objects only a container or an attribute never read keeps
        (:func:`gblint.syntax.compiled_uses.stored_away`): conditional on the object being called."""
        for key, condition in stored_away(module, set(self._made)).items():
            for decl in self._made[key]:
                decl.unsure += (condition,)
        self._made = {}

    def qual(self, name: str) -> str:
        """The dotted name of ``name`` defined in this module."""
        return f"{self.summary.module}.{name}" if self.summary.module else name

    def note_decorators(self, node: cst.FunctionDef) -> None:
        """``@torch.compile`` and ``@torch.compile(...)`` on a definition (after its body was read)."""
        for d in node.decorators:
            expr = d.decorator
            call = expr if isinstance(expr, cst.Call) else None
            q = self.builder.ctx.resolve(call.func if call else expr)
            if q in COMPILE_NAMES:
                if call is not None and literal(kwarg(call, "disable")) is True:
                    continue
                fullgraph = call is not None and literal(kwarg(call, "fullgraph")) is True
                qual = self.function_qual(node)
                self.summary.regions.append(RegionDecl(LocalFunction(qual), False, fullgraph, self.builder.span(d),
                                                       "@torch.compile", None, value=self._wrapped(node, d, qual)))

    def leave_function(self, node: cst.FunctionDef) -> None:
        """At the end of a definition: its ``@torch.compile`` (:meth:`note_decorators`); and drop the regions of the
        compiled objects its body binds to a local name and never runs compiled
        (:func:`gblint.syntax.compiled_uses.runs_compiled`): Dynamo traces nothing of them."""
        self.note_decorators(node)
        for decls, name in self._local_compiled.pop(self.function_qual(node), ()):
            if not runs_compiled(node.body, name, self.builder.ctx.resolve):
                self.summary.regions[:] = [d for d in self.summary.regions if not any(d is x for x in decls)]

    def _wrapped(self, node: cst.FunctionDef, compile_decorator: cst.Decorator, qual: str):
        """What ``@torch.compile`` compiles when decorators below it wrap the function: the module-level
        name's value (the interpreter applies the decorators, :meth:`gblint.abstract.interp.Interpreter.defined`;
        ``torch.compile`` keeps what it is given), so that the compiled frame is the wrapper a
        decorator returned (``functools.wraps`` keeps only the name: Dynamo compiles the wrapper's frame
        and inlines the function). None (the function itself) when nothing is below it, the function
        is not at module level, or a decorator above it would wrap the compiled object."""
        if node.decorators[0] is not compile_decorator or len(node.decorators) == 1 or "." in qual:
            return None
        return Expr(Op.GLOBAL, self.qual(qual))

    def function_qual(self, node: cst.FunctionDef) -> str:
        """The qualified name the traversal gave the definition ``node``."""
        return self._def_quals.get(id(node), node.name.value)



def _switches(call: cst.Call, q) -> bool:
    """Whether the call ``call`` (of ``q``) may switch Dynamo off or on: ``torch.compiler.set_stance(...)`` (a call,
    a decorator or a ``with``), ``torch._dynamo.config.patch(...)`` that may set ``disable``."""
    if q in STANCE_SETTERS:
        return True
    if q != "torch._dynamo.config.patch":
        return False
    return any(a.keyword is not None and a.keyword.value == "disable" or a.keyword is None and (
        literal(a.value) in ("disable", None)) or a.star for a in call.args)


def _mode_set(call: cst.Call) -> Set[Optional[bool]]:
    """The mode ``x.eval()`` / ``x.train(...)`` sets: False, True, or None (an argument not known)."""
    if call.func.attr.value == "eval":
        return {False}
    if not call.args:
        return {True}
    value = literal(call.args[0].value)
    return {value} if isinstance(value, bool) else {None}


def _chain_modes(expr: cst.BaseExpression) -> Set[Optional[bool]]:
    """The modes a chain of module methods sets (``Net().eval().to(d)``: {False})."""
    out: Set[Optional[bool]] = set()
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) \
            and expr.func.attr.value in SELF_RETURNING_METHODS:
        if expr.func.attr.value in ("eval", "train"):
            out |= _mode_set(expr)
            break  # the outermost call sets the mode last
        expr = expr.func.value
    return out
