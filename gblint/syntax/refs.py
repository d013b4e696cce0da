"""What names are bound to and what calls refer to, as the summary records them.

A *value ref* describes what a name is bound to (a context manager's constructor call, an
instance of some class, an ``nn.ModuleList``, a ``functools.partial``...); a *callee ref*
describes what a call's function refers to (a function of this file, a dotted name, a method on
``self`` or ``super()``, a module attribute...), for :mod:`gblint.dynamo.index` to resolve across the
project. :class:`Refs` reads them for :class:`gblint.syntax.summary.SummaryBuilder`, which owns one.
"""
from __future__ import annotations

from typing import Dict, List, Optional

import libcst as cst

from ..core.model import (Binding, CallResult, CallTarget, CompiledValue, ContainerValue, Dotted, FileSummary,
                          InstanceCall, InstanceValue, Kind, LayerValue, LocalDefValue, LocalFunction, LoggerValue,
                          ManagerValue, Method, Modules, OtherValue, PartialValue, SelfAttrMethod, SelfMethod,
                          SuperMethod)
from ..core.names import ImportTable, dotted
from .scope import FunctionScope
from ..abstract.tensors import UNSUPPORTED_MANAGERS
from ..core.semantics import COMPILE_NAMES, CONTAINER_CLASSES, EXTERNAL_HEADS, NON_RESUMABLE_GB, RESUMABLE_MANAGERS, \
    SELF_RETURNING_METHODS


class Refs:
    """Value refs and callee refs of one file, read against the scopes given and the file's own
    ``summary`` (its classes and module names, filled as the traversal goes), ``imports`` and
    ``module_now`` (module-level names as bound so far in the traversal), all three the builder's."""

    def __init__(self, summary: FileSummary, imports: ImportTable, module_now: Dict[str, Binding]):
        self.summary = summary
        self.imports = imports
        self.module_now = module_now

    def value_ref(self, value: cst.BaseExpression, scope: FunctionScope) -> Binding:
        """What a name assigned ``value`` is bound to (a manager, an instance, a logger...).
        ``Net().eval()`` / ``model.to(device)`` are what they are called on."""
        inner = module_itself(value)
        if inner is not value:
            if isinstance(inner, cst.Name):
                bound = self.binding_of(inner.value, scope)
                return bound if isinstance(bound, InstanceValue) else OtherValue()
            value = inner
        if isinstance(value, cst.Call):
            q = scope.resolve(value.func)
            if q:
                if q in RESUMABLE_MANAGERS or q in UNSUPPORTED_MANAGERS or q in NON_RESUMABLE_GB:
                    return ManagerValue(q)
                if q in ("logging.getLogger", "logging.get_logger", "structlog.get_logger"):
                    return LoggerValue()
                if q in COMPILE_NAMES:
                    return CompiledValue()
                if q == "functools.partial" and value.args:
                    ref = self.callee_ref(value.args[0].value, scope)
                    if ref is not None:
                        return PartialValue(ref)
                if q in CONTAINER_CLASSES:
                    return ContainerValue(CONTAINER_CLASSES[q], tuple(self.module_refs(value, scope)))
                head = q.split(".")[0]
                if q[:1].isupper() or q.rsplit(".", 1)[-1][:1].isupper():
                    return InstanceValue(self.callee_ref(value.func, scope) or Dotted(q))
                return CallResult(q, head)
            return CallResult(None, None)
        return OtherValue()

    def binding_of(self, name: str, scope: FunctionScope) -> Optional[Binding]:
        """What ``name`` is bound to at this point: a local value, else (at module level) the
        module name as bound so far in the traversal."""
        s = scope
        while s is not None and s.info is not None:
            if name in s.values:
                return s.values[name]
            s = s.parent
        if name in self.module_now:
            return self.module_now[name]
        return self.summary.module_names.get(name)  # the module pre-pass: bindings in source order

    def module_refs(self, call: cst.Call, scope: FunctionScope) -> List[CallTarget]:
        """The classes of the modules listed in ``nn.ModuleList([...])`` / ``nn.Sequential(...)``."""
        refs = []
        exprs: List[cst.BaseExpression] = []
        for a in call.args:
            if isinstance(a.value, (cst.List, cst.Tuple)):
                exprs.extend(e.value for e in a.value.elements)
            elif isinstance(a.value, (cst.ListComp, cst.GeneratorExp)):
                exprs.append(a.value.elt)
            elif isinstance(a.value, cst.Dict):
                exprs.extend(e.value for e in a.value.elements if isinstance(e, cst.DictElement))
            else:
                exprs.append(a.value)
        for e in exprs:
            if isinstance(e, cst.Call):
                ref = self.callee_ref(e.func, scope)
                if ref is not None:
                    refs.append(ref)
        return refs

    def is_module_class(self, ref: InstanceValue) -> bool:
        """Whether ``ref`` is an instance of an ``nn.Module`` class (a ``torch.nn`` class, or a
        class of this file with a ``Module`` base)."""
        callee = ref.cls
        if isinstance(callee, Dotted):
            q = callee.name
            if q.startswith("torch.nn.") and q.rsplit(".", 1)[-1][:1].isupper():
                return True
            cls = self.summary.classes.get(q.rsplit(".", 1)[-1]) if "." not in q or q.startswith(self.summary.module + ".") else None
            return bool(cls and any("Module" in b for b in cls.bases))
        return False

    @staticmethod
    def self_attr(node, scope: FunctionScope) -> Optional[Binding]:
        """What ``self.attr`` (``node``, read in ``scope``) was assigned in the class, or None."""
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and scope.self_name \
                and node.value.value == scope.self_name and scope.class_info is not None:
            return scope.self_attr_ref(node.attr.value)
        return None

    def callee_ref(self, func: cst.BaseExpression, scope: FunctionScope) -> Optional[CallTarget]:
        """What a call's ``func`` refers to, for the index to resolve; None when it is a local
        value gblint cannot follow."""
        if isinstance(func, cst.Name):
            name = func.value
            s = scope
            while s is not None and s.info is not None:
                if name in s.info.local_defs:
                    return LocalFunction(s.info.local_defs[name])
                v = s.values.get(name)
                if isinstance(v, PartialValue):
                    return v.target
                if isinstance(v, LayerValue):
                    return Modules(v.classes)
                if isinstance(v, InstanceValue):
                    return InstanceCall(v.cls)
                if isinstance(v, LocalDefValue):
                    return LocalFunction(v.qualname)
                if name in s.env and s.env[name] != Kind.UNKNOWN:
                    return None
                s = s.parent
            q = self.imports.resolve(func) if not scope.imports.lookup(name) else scope.imports.resolve(func)
            if name in self.summary.module_names and not self.imports.is_imported(name):
                mv = self.summary.module_names[name]
                if isinstance(mv, InstanceValue):
                    return InstanceCall(mv.cls)
                if isinstance(mv, PartialValue):
                    return mv.target
                return Dotted(f"{self.summary.module}.{name}" if self.summary.module else name)
            return Dotted(q) if q else None
        if isinstance(func, cst.Attribute):
            attr = func.attr.value
            base = func.value
            if isinstance(base, cst.Name) and scope.self_name and base.value == scope.self_name:
                return SelfMethod(scope.class_info.qualname if scope.class_info else None, attr)
            if isinstance(base, cst.Call) and dotted(base.func) == "super" and scope.class_info:
                return SuperMethod(scope.class_info.qualname, attr)
            if isinstance(base, cst.Attribute) and isinstance(base.value, cst.Name) and scope.self_name \
                    and base.value.value == scope.self_name:
                return SelfAttrMethod(scope.class_info.qualname if scope.class_info else None, base.attr.value, attr)
            if isinstance(base, cst.Name):
                v = None
                s = scope
                while s is not None and v is None:
                    v = s.values.get(base.value)
                    s = s.parent
                if v is None and base.value in self.summary.module_names and not self.imports.is_imported(base.value):
                    v = self.summary.module_names[base.value]
                if isinstance(v, InstanceValue):
                    return Method(v.cls, attr)
                if v is not None:
                    return None
            q = scope.resolve(func)
            return Dotted(q) if q else None
        return None


def is_external(q: str) -> bool:
    """Whether calls of dotted name ``q`` go into library code gblint does not follow."""
    return q.split(".")[0] in EXTERNAL_HEADS


def module_itself(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr`` without trailing calls of ``nn.Module`` methods that return the module itself
    (:data:`gblint.core.semantics.SELF_RETURNING_METHODS`): ``Net().eval().to(d)`` -> ``Net()``."""
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) \
            and expr.func.attr.value in SELF_RETURNING_METHODS:
        expr = expr.func.value
    return expr
