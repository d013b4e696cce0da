"""Import and alias resolution without libcst's scope providers.

libcst's scope and qualified-name providers (``ScopeProvider``, ``QualifiedNameProvider``) cost
about 6x a parse, measured before gblint was written (README.md, "Speed", has where gblint's own
time goes).
gblint needs far less: the dotted name an expression such as ``T._dynamo.graph_break``
or ``gb`` (``from torch._dynamo import graph_break as gb``) stands for. An
:class:`ImportTable` maps each bound name to the dotted name it imports; function-local
imports are layered on top of the module's table.
"""
from __future__ import annotations

from typing import Dict, List, Optional

import libcst as cst

#: the names Python's builtins module defines (``print``, ``len``): what a bare name means where nothing binds it
BUILTIN_NAMES = frozenset(dir(__import__("builtins")))


def dotted(node: cst.BaseExpression) -> Optional[str]:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def _module_name(node) -> str:
    if node is None:
        return ""
    return dotted(node) or ""


def resolve_relative(module: str, is_package: bool, level: int, name: str) -> str:
    """Absolute dotted name of ``from {'.'*level}{name} import ...`` inside ``module``.

    ``module`` is the importing module's dotted name; ``is_package`` says whether it is
    an ``__init__`` (then level 1 means the module itself).
    """
    parts = module.split(".") if module else []
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: max(0, len(parts) - (level - 1))]
    base = ".".join(parts)
    if name:
        return f"{base}.{name}" if base else name
    return base


class ImportTable:
    """Bound name -> dotted target, with an optional parent table (module scope)."""

    def __init__(self, module: str = "", is_package: bool = False, parent: "ImportTable" = None):
        self.module = module
        self.is_package = is_package
        self.parent = parent
        self.names: Dict[str, str] = {}
        self.stars: List[str] = []  # modules of ``from M import *``, in order

    def child(self) -> "ImportTable":
        return ImportTable(self.module, self.is_package, self)

    def add_import(self, node: cst.Import) -> None:
        for alias in node.names:
            target = _module_name(alias.name)
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self.names[alias.asname.name.value] = target
            else:
                top = target.split(".")[0]
                self.names[top] = top

    def add_import_from(self, node: cst.ImportFrom) -> None:
        base = _module_name(node.module)
        level = len(node.relative)
        if level:
            base = resolve_relative(self.module, self.is_package, level, base)
        if isinstance(node.names, cst.ImportStar):
            if base and base not in self.stars:
                self.stars.append(base)
            return
        for alias in node.names:
            name = _module_name(alias.name)
            bound = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                bound = alias.asname.name.value
            self.names[bound] = f"{base}.{name}" if base else name

    def lookup(self, name: str) -> Optional[str]:
        table = self
        while table is not None:
            if name in table.names:
                return table.names[name]
            table = table.parent
        return None

    def resolve(self, node: cst.BaseExpression) -> Optional[str]:
        """The dotted name an expression refers to through imports, or None.

        Names that are not imported resolve to themselves (``print`` -> ``print``), so a
        caller can tell builtins and local definitions apart by looking them up itself.
        """
        text = dotted(node)
        if text is None:
            return None
        head, _, rest = text.partition(".")
        target = self.lookup(head)
        if target is None:
            return text
        return f"{target}.{rest}" if rest else target

    def is_imported(self, name: str) -> bool:
        return self.lookup(name) is not None


def module_imports(body, imports: ImportTable, declared: bool = False, conditional: bool = False):
    """``(statement, conditional)`` for the import statements of a module body that bind its
    global names: top-level ones, those in ``try:`` bodies and ``else:`` (optional imports; never
    the ``except`` fallbacks), everything under ``if TYPE_CHECKING:`` (also
    ``if TYPE_CHECKING or SLOW_IMPORT:``) with nested ``if``s (``declared``): how lazy packages
    such as transformers and diffusers declare what ``from pkg import Name`` gives,
    ``_LazyModule`` doing the rest at run time. Imports under any other top-level ``if`` come
    ``conditional``: they bind only names nothing else binds."""
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, (cst.Import, cst.ImportFrom)):
                    yield small, conditional
        elif isinstance(stmt, cst.If):
            inner = declared or _type_checking(stmt.test, imports)
            maybe = conditional or not inner
            yield from module_imports(stmt.body.body, imports, inner, maybe)
            branch = stmt.orelse
            while branch is not None:
                yield from module_imports(branch.body.body, imports, inner, maybe)
                branch = branch.orelse if isinstance(branch, cst.If) else None
        elif isinstance(stmt, cst.Try):
            yield from module_imports(stmt.body.body, imports, declared, conditional)
            if stmt.orelse is not None:
                yield from module_imports(stmt.orelse.body.body, imports, declared, conditional)


def _type_checking(test, imports: ImportTable) -> bool:
    """Whether an ``if`` test is ``TYPE_CHECKING``, or an ``or`` with it as one operand."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
        return _type_checking(test.left, imports) or _type_checking(test.right, imports)
    return imports.resolve(test) in ("typing.TYPE_CHECKING", "TYPE_CHECKING")
