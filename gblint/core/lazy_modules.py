"""Lazy packages as transformers builds them, read from their text (never imported).

A package whose ``__init__`` does ``sys.modules[__name__] = _LazyModule(__name__, _file,
define_import_structure(_file), ...)`` has as names what the files under its folder list in
``__all__`` (transformers ``utils/import_utils.py``: ``define_import_structure``,
``create_import_structure_from_path``, ``fetch__all__``). The two questions below are asked through
:meth:`gblint.project.engine.Loader.lazy_exporters`, whose answers are kept with the package's other
mentions (:mod:`gblint.project.mentions`): each object stands where a compiled expression would, its
``search(text)`` giving the answer for one file's text.
"""
from __future__ import annotations

import ast
from typing import Iterator, List, Optional


def _module_level(body: List[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements that run at import: the module's, and those under its ``if``/``else`` and
    ``try`` (not inside functions or classes)."""
    for node in body:
        yield node
        if isinstance(node, ast.If):
            yield from _module_level(node.body)
            yield from _module_level(node.orelse)
        elif isinstance(node, ast.Try):
            for part in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                yield from _module_level(part)


def _parse(text: str) -> Optional[ast.Module]:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _names_call(node: ast.AST, name: str) -> bool:
    """Whether ``node`` holds a call of a function or method named ``name``."""
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            func = n.func
            if isinstance(func, ast.Name) and func.id == name or isinstance(func, ast.Attribute) and func.attr == name:
                return True
    return False


class LazyInit:
    """Whether a package's ``__init__`` text replaces the module in ``sys.modules`` with a value
    built from ``define_import_structure(...)``, at import (not in a docstring, a comment, a function
    or a class)."""

    def search(self, text: str) -> bool:
        tree = _parse(text)
        if tree is None:
            return False
        for node in _module_level(tree.body):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and _is_own_entry(node.targets[0]) \
                    and isinstance(node.value, ast.Call) and _names_call(node.value, "define_import_structure"):
                return True
        return False


def _is_own_entry(target: ast.AST) -> bool:
    """``sys.modules[__name__]``."""
    return (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Attribute)
            and target.value.attr == "modules" and isinstance(target.value.value, ast.Name)
            and target.value.value.id == "sys" and isinstance(target.slice, ast.Name) and target.slice.id == "__name__")


class Exports:
    """Whether a file's ``__all__`` lists ``word``, read as transformers' ``fetch__all__`` reads it:
    the last module-level statement that binds ``__all__`` (``=``, an annotated ``=`` or ``+=``)
    whose value is a list or tuple of strings."""

    def __init__(self, word: str):
        self.word = word

    def search(self, text: str) -> bool:
        tree = _parse(text)
        if tree is None:
            return False
        last = None
        for node in tree.body:
            target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else \
                getattr(node, "target", None) if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else None
            if isinstance(target, ast.Name) and target.id == "__all__" and node.value is not None:
                last = node.value
        if not isinstance(last, (ast.List, ast.Tuple)):
            return False
        return any(isinstance(e, ast.Constant) and e.value == self.word for e in last.elts)
