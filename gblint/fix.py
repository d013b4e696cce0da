"""Fixes: turning a diagnostic's ``fix_request`` into edits, and ``gblint fix``.

A diagnostic from :mod:`gblint.consequences` may carry a ``fix_request`` (which block or
function to rewrite). :func:`attach_fixes` turns it into a :class:`gblint.diagnostics.Fix`
with text edits, using the rewrites of :mod:`gblint.rules.rewrites`. :func:`fix_sources`
applies fixes one at a time and re-checks after each (a fix may expose another), until
nothing changes. Every applied fix is checked: the result parses, the fixed diagnostic is
gone on re-check (else the fix is reverted), and a second run changes nothing.
"""
from __future__ import annotations

import dataclasses
import difflib
from typing import Dict, List, Optional, Sequence, Tuple

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from .config import Settings
from .diagnostics import Diagnostic, Edit, Fix
from .source import split_lines

MAX_ROUNDS = 25

CONFIG_ADVICE = {
    "capture_scalar_outputs": "Set `torch._dynamo.config.capture_scalar_outputs = True` to trace `.item()` "
                              "as a symbolic scalar instead of breaking",
    "capture_dynamic_output_shape_ops": "Set `torch._dynamo.config.capture_dynamic_output_shape_ops = True` to "
                                        "trace data-dependent output shapes instead of breaking",
    "nested_graph_breaks": "Set `torch._dynamo.config.nested_graph_breaks = True`: one break and 2 graphs "
                           "instead of 2 per frame",
}


# ------------------------------------------------------------------ building fixes


class _Positions:
    """Statements of a module indexed by their first line."""

    def __init__(self, text: str):
        self.module = cst.parse_module(text)
        wrapper = MetadataWrapper(self.module, unsafe_skip_copy=True)
        self.pos = wrapper.resolve(PositionProvider)
        self.by_line: Dict[Tuple[type, int], cst.CSTNode] = {}
        self.functions: List[cst.FunctionDef] = []
        for node, rng in self.pos.items():
            if isinstance(node, (cst.For, cst.While, cst.With, cst.Try, cst.If, cst.FunctionDef)):
                self.by_line.setdefault((type(node), rng.start.line), node)
                if isinstance(node, cst.FunctionDef):
                    self.functions.append(node)
            elif isinstance(node, cst.Decorator):
                pass

    def node(self, kinds, line: int) -> Optional[cst.CSTNode]:
        for k in kinds:
            n = self.by_line.get((k, line))
            if n is not None:
                return n
        return None

    def lines(self, node) -> Tuple[int, int]:
        r = self.pos[node]
        return r.start.line, r.end.line

    def enclosing_function(self, line: int) -> Optional[cst.FunctionDef]:
        best = None
        for f in self.functions:
            a, b = self.lines(f)
            if a <= line <= b and (best is None or self.lines(best)[0] < a):
                best = f
        return best

    def statement_at(self, block, line: int) -> Optional[cst.BaseStatement]:
        body = block.body.body if isinstance(block.body, cst.IndentedBlock) else []
        for stmt in body:
            a, b = self.lines(stmt)
            if a <= line <= b:
                return stmt
        return None

    def top_statement(self, line: int) -> Optional[cst.BaseStatement]:
        """The module-level statement whose lines contain ``line``."""
        for stmt in self.module.body:
            a, b = self.lines(stmt)
            if a - len(getattr(stmt, "decorators", ())) <= line <= b:
                return stmt
        return None

    def def_at(self, line: int) -> Optional[cst.FunctionDef]:
        for f in self.functions:
            r = self.pos[f]
            if r.start.line == line:
                return f
        return None


def edit_for(old: str, new: str) -> Optional[Edit]:
    """One edit replacing the changed lines of ``old`` by those of ``new`` (None when equal)."""
    if old == new:
        return None
    a, b = split_lines(old), split_lines(new)
    p = 0
    while p < len(a) and p < len(b) and a[p] == b[p]:
        p += 1
    s = 0
    while s < len(a) - p and s < len(b) - p and a[len(a) - 1 - s] == b[len(b) - 1 - s]:
        s += 1
    return Edit(line=p + 1, column=1, end_line=len(a) - s + 1, end_column=1, text="".join(b[p:len(b) - s]))


def build_fix(request: tuple, text: str, settings: Settings, positions: Optional[_Positions] = None
              ) -> Optional[Fix]:
    """The Fix for one request on a file's text, or None when the rewrite declines."""
    from gblint.rules import rewrites

    kind = request[0]
    if kind == "config":
        return Fix(CONFIG_ADVICE[request[1]], "unsafe", ())
    try:
        pos = positions or _Positions(text)
    except Exception:
        return None
    # Rewrite only the module-level statement that holds the target: a fix costs a statement's
    # codegen and parse, not the whole file's (the LSP asks for fixes as you type).
    line = request[1]
    top = pos.top_statement(line)
    alias = None
    if top is not None:
        from gblint.rules.rewrites import existing_torch_alias
        alias = existing_torch_alias(pos.module)
    needs_torch = kind in ("disable", "where")
    if top is None or (needs_torch and alias is None):
        module, offset = pos.module, 0
    else:
        module = cst.Module(body=[top], default_indent=pos.module.default_indent,
                            default_newline=pos.module.default_newline, header=[], footer=[],
                            encoding=pos.module.encoding, has_trailing_newline=True)
        offset = pos.lines(top)[1] - len(split_lines(module.code))
    new: Optional[cst.Module] = None
    title = ""
    applicability = "safe"
    if kind == "loop":
        _, loop_line, anchor_line, _frame = request
        loop = pos.node((cst.For, cst.While), loop_line)
        if loop is None:
            return None
        if isinstance(loop, cst.For):
            new = rewrites.unroll(module, loop, settings.max_unroll)
            title = f"Unroll the loop at line {loop_line}"
        if new is None:
            func = pos.enclosing_function(loop_line)
            if func is not None:
                new = rewrites.isolate_loop(module, func, loop, loop_line)
                title = f"Move the loop at line {loop_line} into a helper so only the helper's frame is skipped"
    elif kind in ("with", "try"):
        _, block_line, anchor_line, _frame = request
        block = pos.node((cst.With,) if kind == "with" else (cst.Try,), block_line)
        if block is None:
            return None
        stmt = pos.statement_at(block, anchor_line)
        if stmt is None:
            return None
        if kind == "with":
            new = rewrites.split_with(module, block, stmt)
            title = f"Move the breaking statement out of the `with` block at line {block_line}"
        else:
            new = rewrites.split_try(module, block, stmt)
            title = f"Move the breaking statement out of the `try` block at line {block_line}"
        applicability = "unsafe"
    elif kind == "disable":
        func = pos.def_at(request[1])
        if func is None:
            return None
        new = rewrites.add_disable(module, func, alias)
        title = f"Decorate `{request[2]}` with `@torch.compiler.disable` (one clean break, runs eagerly)"
    elif kind == "where":
        node = pos.node((cst.If,), request[1])
        func = pos.enclosing_function(request[1])
        if node is None or func is None:
            return None
        body = list(func.body.body) if isinstance(func.body, cst.IndentedBlock) else []
        start = pos.lines(node)[0]
        before = [s for s in body if pos.lines(s)[1] < start]
        bound = set(rewrites._param_names(func)) | rewrites.scan(before).binds
        new = rewrites.to_where(module, node, bound, alias)
        title = "Select with `torch.where` instead of branching on a tensor"
        applicability = "unsafe"
    if new is None:
        return None
    old_code, new_code = module.code, new.code
    try:
        cst.parse_module(new_code)
    except Exception:
        return None
    edit = edit_for(old_code, new_code)
    if edit is None:
        return None
    edit = Edit(edit.line + offset, edit.column, edit.end_line + offset, edit.end_column, edit.text)
    return Fix(title, applicability, (edit,))


def attach_fixes(diagnostics: Sequence[Diagnostic], texts: Dict[str, str], settings: Settings) -> List[Diagnostic]:
    """Return the diagnostics with ``fix`` filled in where a fix request can be honoured."""
    out = []
    cache: Dict[str, Optional[_Positions]] = {}
    for d in diagnostics:
        if d.fix_request is None or d.fix is not None:
            out.append(d)
            continue
        text = texts.get(d.path)
        if text is None:
            out.append(d)
            continue
        if d.fix_request[0] != "config" and d.path not in cache:
            try:
                cache[d.path] = _Positions(text)
            except Exception:
                cache[d.path] = None
        fix = build_fix(d.fix_request, text, settings, cache.get(d.path)) \
            if d.fix_request[0] == "config" or cache.get(d.path) else None
        out.append(dataclasses.replace(d, fix=fix) if fix else d)
    return out


# ------------------------------------------------------------------ applying fixes


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    """Apply non-overlapping edits (1-based positions; a line past the end means end of file)."""
    lines = split_lines(text)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def offset(line: int, col: int) -> int:
        if line - 1 >= len(lines):
            return len(text)
        return offsets[line - 1] + col - 1

    out = text
    for e in sorted(edits, key=lambda e: (e.line, e.column), reverse=True):
        a, b = offset(e.line, e.column), offset(e.end_line, e.end_column)
        out = out[:a] + e.text + out[b:]
    return out


@dataclasses.dataclass
class FixResult:
    """What ``fix_sources`` did: new texts by path, applied fixes ``(path, code, frame, title)``,
    fixes reverted because the re-check still reported their diagnostic, and the final report."""

    texts: Dict[str, str]
    original: Dict[str, str]
    applied: List[Tuple[str, str, Optional[str], str]]
    reverted: List[Tuple[str, str, Optional[str], str]]
    report: object

    def changed(self) -> List[str]:
        return [p for p in self.texts if self.texts[p] != self.original[p]]

    def diff(self) -> str:
        out = []
        for p in self.changed():
            out.extend(difflib.unified_diff(split_lines(self.original[p]), split_lines(self.texts[p]),
                                            fromfile=p, tofile=p))
        return "".join(out)


def fix_sources(paths_texts: Dict[str, str], settings: Settings, unsafe: bool = False) -> FixResult:
    """Apply fixes to in-memory texts until nothing changes; returns a :class:`FixResult`.

    ``unsafe`` also applies fixes whose applicability is ``unsafe``. Raises nothing for bad input.
    """
    from .engine import SourceFile, check_sources

    texts = dict(paths_texts)
    original = dict(paths_texts)
    applied: List[Tuple[str, str, Optional[str], str]] = []
    reverted: List[Tuple[str, str, Optional[str], str]] = []
    refused = set()
    pending: Dict[str, Tuple[str, Optional[str], str, str]] = {}
    report = None
    for _ in range(MAX_ROUNDS):
        report = check_sources([SourceFile(p, t) for p, t in texts.items()], settings)
        diags = attach_fixes(report.diagnostics, texts, settings)
        # a fix whose diagnostic is still reported did not work: revert it and never try it again
        undone = False
        for path, (code, frame, title, before) in pending.items():
            if any(d.path == path and d.code == code and d.frame == frame for d in diags):
                texts[path] = before
                refused.add((path, code, frame, title))
                reverted.append((path, code, frame, title))
                applied.remove((path, code, frame, title))
                undone = True
        pending = {}
        if undone:
            continue
        done_paths = set()
        for d in diags:
            if d.path in done_paths or d.fix is None or not d.fix.edits:
                continue
            if d.fix.applicability == "unsafe" and not unsafe:
                continue
            key = (d.path, d.code, d.frame, d.fix.title)
            if key in refused:
                continue
            new_text = apply_edits(texts[d.path], d.fix.edits)
            try:
                cst.parse_module(new_text)
            except Exception:
                refused.add(key)
                continue
            pending[d.path] = (d.code, d.frame, d.fix.title, texts[d.path])
            texts[d.path] = new_text
            applied.append(key)
            done_paths.add(d.path)
        if not pending:
            break
    return FixResult(texts, original, applied, reverted, report)
