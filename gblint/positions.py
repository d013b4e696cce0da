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

from .source import split_lines

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
        by_ast: Dict[type, type] = {a: c for c, group in MATCHING.items() for a in group}
        found: Dict[type, List[tuple]] = {c: [] for c in MATCHING}
        decorators: List[tuple] = []
        for node in ast.walk(tree):
            c = by_ast.get(type(node))
            if isinstance(node, ast.GeneratorExp):
                # ast's generator expression starts at its `(` (or the call's), libcst's at the element
                e = node.elt
                found[c].append((e.lineno, e.col_offset, -(node.end_lineno or node.lineno), -(node.end_col_offset or 0)))
                continue
            if c is not None and hasattr(node, "lineno"):
                found[c].append((node.lineno, node.col_offset, -(node.end_lineno or node.lineno),
                                 -(node.end_col_offset or 0)))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
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
