"""Where a file compiles something: ``@torch.compile``, ``torch.compile(fn)``,
``torch.compile(Module())``, ``model.compile()``.

Each place becomes a :class:`gblint.model.RegionDecl` naming what is compiled; the engine later
resolves it to the compiled entry frames. :class:`RegionsMixin` is part of
:class:`gblint.summary.SummaryBuilder`.
"""
from __future__ import annotations

import libcst as cst

from .model import (Dotted, InstanceCall, InstanceValue, LocalFunction, Method, RegionDecl, SelfAttrMethod,
                    SelfMethod)
from .refs import module_itself
from .semantics import COMPILE_NAMES
from .traversal import kwarg, literal


class RegionsMixin:
    """Records the compile calls and decorators of a file as :class:`RegionDecl` objects."""

    def detect_compile(self, node: cst.Call, q) -> None:
        """Record ``node`` when it compiles something; ``q`` is what its function resolves to."""
        scope = self.ctx
        func = node.func
        if q in COMPILE_NAMES:
            self.record_compile(node)
        elif isinstance(func, cst.Attribute) and func.attr.value == "compile":
            self.record_method_compile(node)
        elif isinstance(func, cst.Call) and scope.resolve(func.func) in COMPILE_NAMES and node.args:
            # torch.compile(backend=...)(fn)
            self.record_compile(cst.Call(func=func.func, args=[node.args[0]] + list(func.args)), span_node=node)

    def record_compile(self, call: cst.Call, span_node=None) -> None:
        """``torch.compile(x, ...)``: what ``x`` names (a function, a method, a module instance or
        a module built in place); ``span_node`` is where to report it, when not ``call``."""
        scope = self.ctx
        fullgraph = literal(kwarg(call, "fullgraph")) is True
        if literal(kwarg(call, "disable")) is True:
            return
        span = self.span(span_node or call)
        if not call.args or call.args[0].keyword is not None:
            return  # decorator form with options: handled on the FunctionDef
        target = module_itself(call.args[0].value)  # torch.compile(Net().eval()), torch.compile(model.to(d))
        fn = self.scope.info.qualname if self.in_function() else None
        before = len(self.summary.regions)
        self._record_compile_target(call, target, scope, fullgraph, span, fn)
        value = self.value_of(call.args[0].value)
        if len(self.summary.regions) > before:
            self.summary.regions[-1].value = value
        else:  # nothing the summary's own refs name: the interpreter may still resolve the value
            self.summary.regions.append(RegionDecl(None, False, fullgraph, span, "torch.compile(x)", fn, value=value))

    def _record_compile_target(self, call, target, scope, fullgraph, span, fn) -> None:
        if isinstance(target, cst.Call):
            ref = self.callee_ref(target.func, scope)
            if ref:
                self.summary.regions.append(RegionDecl(ref, True, fullgraph, span, "torch.compile(Module())", fn))
            return
        ref = self.callee_ref(target, scope)
        if isinstance(target, cst.Name) and not self.in_function():
            # `model = Net(cfg)` then `model = torch.compile(model)`: what the name holds at this
            # statement, not its last binding in the module (which is the compiled model itself)
            now = self.module_now.get(target.value)
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
        scope = self.ctx
        span = self.span(call)
        fullgraph = literal(kwarg(call, "fullgraph")) is True
        fn = self.scope.info.qualname if self.in_function() else None
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
                names = (base.value,) if not self.in_function() else ()
                self.summary.regions.append(RegionDecl(v.cls, True, fullgraph, span, "model.compile()", fn, names,
                                                       value=self.value_of(base)))
                return
        if isinstance(base, cst.Name) and scope.imports.lookup(base.value) is not None:
            return  # `re.compile(...)`: a module's function, not a model's method
        self.summary.regions.append(RegionDecl(None, True, fullgraph, span, "model.compile()", fn,
                                               (base.value,) if isinstance(base, cst.Name) and not self.in_function()
                                               else (), value=self.value_of(base)))

    def qual(self, name: str) -> str:
        """The dotted name of ``name`` defined in this module."""
        return f"{self.summary.module}.{name}" if self.summary.module else name

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        """``@torch.compile`` and ``@torch.compile(...)`` on a definition."""
        for d in node.decorators:
            expr = d.decorator
            call = expr if isinstance(expr, cst.Call) else None
            q = self.ctx.resolve(call.func if call else expr)
            if q in COMPILE_NAMES:
                if call is not None and literal(kwarg(call, "disable")) is True:
                    continue
                fullgraph = call is not None and literal(kwarg(call, "fullgraph")) is True
                qual = self.function_qual(node)
                self.summary.regions.append(RegionDecl(LocalFunction(qual), False, fullgraph, self.span(d),
                                                       "@torch.compile", None))

    def function_qual(self, node: cst.FunctionDef) -> str:
        """The qualified name the traversal gave the definition ``node``."""
        return self._def_quals.get(id(node), node.name.value)

