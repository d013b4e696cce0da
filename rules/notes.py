"""What rules remember while one file is read, and what they ask of the names in it.

Some break sources are two statements apart: a hook handle is made by one call and used by a
later one, a submodule gets a backward hook in ``__init__`` and is called in ``forward``, a
lazily formatted string is built on one line and used on another. A rule notes the first
statement here and reads the note at the second. Notes on a function's locals live in its
:class:`gblint.syntax.scope.FunctionScope` (``ctx.notes``), notes on classes and module globals in the
file's :class:`gblint.syntax.summary.SummaryBuilder` (``ctx.builder.rule_notes``); both last only
while the file is read (the summary keeps the events, not the notes).
"""
from __future__ import annotations

from typing import Optional, Tuple

import libcst as cst

from gblint.core.model import ContainerValue, Dotted, InstanceCall, InstanceValue, LocalFunction, ModuleAttr, NnModuleAttr


def note_local(ctx, what: str, name: str, value: object = True) -> None:
    """Note that local ``name`` of the function ``ctx`` holds ``what`` (``value`` says more)."""
    ctx.notes[(what, name)] = value


def local_note(ctx, what: str, name: str) -> Optional[object]:
    """What was noted of local ``name`` as ``what`` in ``ctx`` or an enclosing function, or None."""
    scope = ctx
    while scope is not None:
        if (what, name) in scope.notes:
            return scope.notes[(what, name)]
        if name in scope.env:
            return None  # a local of this function that was not noted
        scope = scope.parent
    return None


def forget_local(ctx, what: str, name: str) -> None:
    """``name`` was bound to something else: what was noted of it as ``what`` no longer holds."""
    ctx.notes.pop((what, name), None)


def note_file(ctx, key: tuple, value: object = True) -> None:
    """Note ``key`` (a tuple starting with what is noted) for the rest of the file."""
    ctx.builder.rule_notes[key] = value


def file_note(ctx, key: tuple) -> Optional[object]:
    """What was noted as ``key`` in this file, or None."""
    return ctx.builder.rule_notes.get(key)


def is_global(ctx, name: str) -> bool:
    """Whether ``name``, read in ``ctx``, is a module-level name of this file (not a local, a
    parameter or an import)."""
    return ctx.lookup(name) is None and not ctx.imports.is_imported(name) and \
        name in ctx.builder.summary.module_names


def instance_classes(node: cst.BaseExpression, ctx) -> Tuple[str, ...]:
    """The dotted names of the classes ``node`` is known to be an instance of: a local or
    module-level name bound to ``Class(...)``, or ``self.attr`` assigned one (``self.opt =
    torch.optim.SGD(...)``). Classes of this file are ``module.Class``; empty when not known."""
    binding = None
    if isinstance(node, cst.Name):
        scope = ctx
        while scope is not None and binding is None:
            binding = scope.values.get(node.value)
            if binding is None and node.value in scope.env:
                return ()
            scope = scope.parent
        if binding is None and is_global(ctx, node.value):
            binding = ctx.builder.summary.module_names.get(node.value)
    elif isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and ctx.self_name \
            and node.value.value == ctx.self_name and ctx.class_info is not None:
        binding = ctx.self_attr_ref(node.attr.value)
    if isinstance(binding, InstanceValue):
        return _names((binding.cls,), ctx)
    if isinstance(binding, ModuleAttr):
        return _names(binding.classes, ctx)
    if isinstance(binding, NnModuleAttr):
        return (binding.name,)
    if isinstance(binding, ContainerValue):
        return ()
    return ()


def _names(targets, ctx) -> Tuple[str, ...]:
    out = []
    module = ctx.builder.summary.module
    for t in targets:
        if isinstance(t, InstanceCall):
            t = t.cls
        if isinstance(t, Dotted):
            out.append(t.name)
        elif isinstance(t, LocalFunction):
            out.append(f"{module}.{t.qualname}" if module else t.qualname)
    return tuple(out)
