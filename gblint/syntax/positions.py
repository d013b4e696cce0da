"""Source positions for libcst nodes, taken from CPython's :mod:`ast`.

libcst's ``PositionProvider`` generates the code of the whole module to learn positions, which
costs about twice the parse itself. CPython's parser gives positions almost for free. For each
libcst node type gblint reports on, the k-th node of that type in libcst's visiting order is the
k-th node of the matching ast type in source order (ties: the outer node first). When the counts
of any type disagree (an f-string split differently, syntax ``ast`` rejects), the caller falls
back to ``PositionProvider``; ``tests/test_positions.py`` checks both give the same summaries.
f-strings are not matched (ast joins implicitly concatenated pieces into one node): a site on
one takes the position of the innermost matched node around it.
"""
from __future__ import annotations

import ast
import warnings
from typing import Dict, List, Optional, Tuple

import libcst as cst

from ..core.source import split_lines

# libcst type -> ast types holding the same constructs
MATCHING = {
    cst.Call: (ast.Call,),
    cst.FunctionDef: (ast.FunctionDef, ast.AsyncFunctionDef),
    cst.ClassDef: (ast.ClassDef,),
    cst.If: (ast.If,),
    cst.While: (ast.While,),
    cst.For: (ast.For, ast.AsyncFor),
    cst.With: (ast.With, ast.AsyncWith),
    cst.Try: (ast.Try,),
    cst.ExceptHandler: (ast.ExceptHandler,),
    cst.Raise: (ast.Raise,),
    cst.Return: (ast.Return,),
    cst.Assign: (ast.Assign,),
    cst.Expr: (ast.Expr,),
    cst.IfExp: (ast.IfExp,),
    cst.Lambda: (ast.Lambda,),
    cst.Subscript: (ast.Subscript,),
    cst.Attribute: (ast.Attribute,),
    cst.Comparison: (ast.Compare,),
    cst.UnaryOperation: (ast.UnaryOp,),
    cst.BinaryOperation: (ast.BinOp,),
    cst.ListComp: (ast.ListComp,),
    cst.SetComp: (ast.SetComp,),
    cst.DictComp: (ast.DictComp,),
    cst.GeneratorExp: (ast.GeneratorExp,),
    cst.Assert: (ast.Assert,),
    cst.Import: (ast.Import,),
    cst.ImportFrom: (ast.ImportFrom,),
}
if hasattr(cst, "TryStar") and hasattr(ast, "TryStar"):
    MATCHING[cst.TryStar] = (ast.TryStar,)

Position = Tuple[int, int, int, int]  # line, column (1-based), end line, end column


class AstPositions:
    """Positions by (libcst type, index in visiting order). Raises SyntaxError/ValueError when
    ``ast`` cannot parse the text."""

    def __init__(self, text: str):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes and the like: not gblint's business
            tree = ast.parse(text)
        self.lines = split_lines(text)
        found: Dict[type, List[tuple]] = {c: [] for c in MATCHING}
        by_ast: Dict[type, List[tuple]] = {a: found[c] for c, group in MATCHING.items() for a in group}
        decorators: List[tuple] = []
        generator, definitions = ast.GeneratorExp, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        for node in _nodes(tree):
            t = type(node)
            items = by_ast.get(t)
            if items is None:
                continue
            if t is generator:
                # ast's generator expression starts at its `(` (or the call's), libcst's at the element
                e = node.elt
                items.append((e.lineno, e.col_offset, -(node.end_lineno or node.lineno), -(node.end_col_offset or 0)))
                continue
            if hasattr(node, "lineno"):
                items.append((node.lineno, node.col_offset, -(node.end_lineno or node.lineno),
                              -(node.end_col_offset or 0)))
            if t in definitions:
                for d in node.decorator_list:
                    decorators.append((d.lineno, d.col_offset - 1, -(d.end_lineno or d.lineno),
                                       -(d.end_col_offset or 0)))
        found[cst.Decorator] = decorators
        self.table: Dict[type, List[Position]] = {}
        for c, items in found.items():
            items.sort()
            self.table[c] = [self._convert(i) for i in items]

    def _convert(self, item: tuple) -> Position:
        line, col, end_line, end_col = item[0], item[1], -item[2], -item[3]
        return line, self._chars(line, col) + 1, end_line, self._chars(end_line, end_col) + 1

    def _chars(self, line: int, col: int) -> int:
        """ast columns count UTF-8 bytes; libcst's count characters."""
        if col <= 0 or line - 1 >= len(self.lines):
            return max(col, 0)
        text = self.lines[line - 1]
        if text.isascii():
            return col
        return len(text.encode("utf-8")[:col].decode("utf-8", errors="replace"))

    def count(self, node_type: type) -> int:
        return len(self.table.get(node_type, ()))

    def get(self, node_type: type, index: int) -> Optional[Position]:
        items = self.table.get(node_type)
        if items is None or index >= len(items):
            return None
        return items[index]


INDEXED = frozenset(MATCHING) | {cst.Decorator}

# fields that hold only operator and context singletons (Load, Add, Eq, ...), which nothing matches
_SINGLETON_FIELDS = frozenset(("ctx", "op", "ops"))
_CHILD_FIELDS: Dict[type, Tuple[str, ...]] = {}


def _nodes(tree: ast.AST) -> List[ast.AST]:
    """Every node of ``tree`` but the operator and context singletons, in no particular order
    (the caller sorts); ``ast.walk`` without its per-node generators."""
    out: List[ast.AST] = []
    stack = [tree]
    fields_of = _CHILD_FIELDS
    node_type = ast.AST
    while stack:
        node = stack.pop()
        out.append(node)
        t = type(node)
        fields = fields_of.get(t)
        if fields is None:
            fields = fields_of[t] = tuple(f for f in t._fields if f not in _SINGLETON_FIELDS)
        for name in fields:
            value = getattr(node, name, None)
            if type(value) is list:
                stack.extend(v for v in value if isinstance(v, node_type))
            elif isinstance(value, node_type):
                stack.append(value)
    return out
