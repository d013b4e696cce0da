"""Fixes: turning a diagnostic's ``fix_request`` into edits, and ``gblint fix``.

A diagnostic from :mod:`gblint.consequences` may carry a ``fix_request`` (which block or
function to rewrite). :func:`attach_fixes` turns it into a :class:`gblint.diagnostics.Fix`
with text edits, using the rewrites of :mod:`gblint.rules.rewrites`. :func:`fix_sources`
applies fixes in rounds (at most one per frame and file per round, edits that do not overlap)
and re-checks after each round (a fix may expose another), until nothing changes. Every applied
fix is checked: CPython compiles the result, the fixed diagnostic is gone on re-check (else the
fix is reverted), and a second run changes nothing.
"""
from __future__ import annotations

import dataclasses
import difflib
from typing import Dict, List, Optional, Sequence, Tuple

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from .config import Settings
from .diagnostics import Diagnostic, Edit, Fix
from .source import compile_error, restore_line_endings, split_lines

#: Rounds of fixes (each: apply, then re-check the project) before ``fix_sources`` gives up and
#: says so (``FixResult.complete`` False). A round fixes every frame it can, so chains of fixes
#: that expose one another (the loops of one function, one after the other) set the count.
MAX_ROUNDS = 200

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
    whole = top is None or (needs_torch and alias is None)
    if whole:
        module = pos.module
    else:
        module = cst.Module(body=[top], default_indent=pos.module.default_indent,
                            default_newline=pos.module.default_newline, header=[], footer=[],
                            encoding=pos.module.encoding, has_trailing_newline=True)
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
    old_code = module.code
    offset = 0 if whole else pos.lines(top)[1] - len(split_lines(old_code))
    # new lines take the ending of the line they are inserted next to, not the file's first line's
    new_code = restore_line_endings(old_code, _bare_newlines(new.code), pos.module.default_newline, loose=True)
    try:
        cst.parse_module(new_code)
    except Exception:
        return None
    if compile_error(new_code, "<fix>") is not None:  # libcst accepts code that CPython rejects
        return None
    edit = edit_for(old_code, new_code)
    if edit is None:
        return None
    edit = Edit(edit.line + offset, edit.column, edit.end_line + offset, edit.end_column, edit.text)
    return Fix(title, applicability, (edit,))


def _bare_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


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


Key = Tuple[str, str, Optional[str], str]  # (path, code, frame, fix title)


@dataclasses.dataclass
class FixResult:
    """What ``fix_sources`` did: new texts by path, applied fixes ``(path, code, frame, title)``,
    fixes reverted because the re-check still reported their diagnostic, the report of a fresh
    check of the final texts, and whether the fixes reached a fixpoint (``complete``; False when
    :data:`MAX_ROUNDS` rounds ran out with fixes still to apply)."""

    texts: Dict[str, str]
    original: Dict[str, str]
    applied: List[Key]
    reverted: List[Key]
    report: object
    complete: bool = True

    def changed(self) -> List[str]:
        return [p for p in self.texts if self.texts[p] != self.original[p]]

    def diff(self) -> str:
        out = []
        for p in self.changed():
            out.extend(difflib.unified_diff(split_lines(self.original[p]), split_lines(self.texts[p]),
                                            fromfile=p, tofile=p))
        return "".join(out)


@dataclasses.dataclass
class _Applied:
    """A fix applied in the current round: its key, the line its diagnostic was on, and the lines
    (``start`` inclusive, ``end`` exclusive) its edit spans in the old text, then in the new one."""

    key: Key
    line: int
    old: Tuple[int, int]
    new: Tuple[int, int] = (0, 0)


def fix_sources(paths_texts: Dict[str, str], settings: Settings, unsafe: bool = False) -> FixResult:
    """Apply fixes to in-memory texts until nothing changes; returns a :class:`FixResult`.

    ``paths_texts`` maps paths to texts: only those files are fixed (files read through
    ``--follow-imports`` are checked, never edited). ``unsafe`` also applies fixes whose
    applicability is ``unsafe``. A fix is kept only if CPython compiles its result and the
    re-check no longer reports its diagnostic. Raises nothing for bad input.
    """
    from .engine import SourceFile, check_sources

    texts = dict(paths_texts)
    applied: List[Key] = []
    reverted: List[Key] = []
    refused: set = set()
    pending: Dict[str, Tuple[str, List[_Applied]]] = {}  # path -> (text before the round, its fixes)
    rounds = 0
    while True:
        report = check_sources([SourceFile(p, t) for p, t in texts.items()], settings, fixes=False)
        # fixes are built from `texts` only: files read through --follow-imports get none
        diags = attach_fixes(report.diagnostics, texts, settings)
        if _revert_failed(pending, diags, texts, refused, applied, reverted):
            pending = {}
            continue  # re-check without the reverted fixes (each revert refuses a fix: this ends)
        if rounds == MAX_ROUNDS:
            complete = not any(_applicable(d, unsafe, refused) for d in diags)
            break
        rounds += 1
        pending = _apply_round(diags, texts, unsafe, refused, applied)
        if not pending:
            complete = True
            break
    return FixResult(texts, dict(paths_texts), applied, reverted, report, complete)


def _revert_failed(pending: Dict[str, Tuple[str, List[_Applied]]], diags: Sequence[Diagnostic],
                   texts: Dict[str, str], refused: set, applied: List[Key], reverted: List[Key]) -> bool:
    """Undo the last round in each file where a fix did not work: its diagnostic is still reported
    (same code and frame, inside the rewritten lines or where it was), or the file no longer
    parses. The failed fixes are never tried again; the others are retried next round."""
    undone = False
    for path, (before, batch) in pending.items():
        here = [d for d in diags if d.path == path]
        broken = any(d.code in ("GBL001", "GBL002") for d in here)
        failed = [f for f in batch if broken or any(
            (d.code, d.frame) == f.key[1:3] and (f.new[0] <= d.line < f.new[1] or d.line == _moved(f.line, batch))
            for d in here)]
        if not failed:
            continue
        texts[path] = before
        for f in batch:
            applied.remove(f.key)
        for f in failed:
            refused.add(f.key)
            reverted.append(f.key)
        undone = True
    return undone


def _moved(line: int, batch: List[_Applied]) -> int:
    """Where old ``line`` is after the batch's edits (0 when an edit replaced it)."""
    shift = 0
    for f in batch:
        if f.old[0] <= line < f.old[1]:
            return 0
        if f.old[1] <= line:
            shift += (f.new[1] - f.new[0]) - (f.old[1] - f.old[0])
    return line + shift


def _applicable(d: Diagnostic, unsafe: bool, refused: set) -> bool:
    """Whether ``d`` has a fix with edits that may be applied: safe (or ``unsafe`` allowed), not
    refused before."""
    return d.fix is not None and bool(d.fix.edits) and (d.fix.applicability == "safe" or unsafe) \
        and (d.path, d.code, d.frame, d.fix.title) not in refused


def _apply_round(diags: Sequence[Diagnostic], texts: Dict[str, str], unsafe: bool, refused: set,
                 applied: List[Key]) -> Dict[str, Tuple[str, List[_Applied]]]:
    """Apply every fix that can go in this round: in a file being fixed, not refused, at most one
    per frame, edits that do not overlap, and a result CPython compiles."""
    chosen: Dict[str, List[Tuple[Diagnostic, Tuple[int, int]]]] = {}
    frames = set()
    for d in diags:
        if not _applicable(d, unsafe, refused) or (d.path, d.frame) in frames:
            continue
        span = (min(e.line for e in d.fix.edits), max(max(e.end_line, e.line + 1) for e in d.fix.edits))
        if any(span[0] < b and a < span[1] for _, (a, b) in chosen.get(d.path, ())):
            continue
        chosen.setdefault(d.path, []).append((d, span))
        frames.add((d.path, d.frame))
    pending: Dict[str, Tuple[str, List[_Applied]]] = {}
    for path, fixes in chosen.items():
        before = text = texts[path]
        batch: List[_Applied] = []
        for d, span in sorted(fixes, key=lambda f: f[1], reverse=True):  # bottom up: lines above stay put
            key = (d.path, d.code, d.frame, d.fix.title)
            new_text = apply_edits(text, d.fix.edits)
            if compile_error(new_text, path) is not None:
                if compile_error(apply_edits(before, d.fix.edits), path) is not None:
                    refused.add(key)  # broken on its own, not only together with this round's others
                continue
            grown = len(split_lines(new_text)) - len(split_lines(text))
            batch.append(_Applied(key, d.line, span, (span[0], span[1] + grown)))
            text = new_text
        if not batch:
            continue
        batch.reverse()
        shift = 0
        for f in batch:  # top down: each new span moves by what the edits above it added
            f.new = (f.new[0] + shift, f.new[1] + shift)
            shift += (f.new[1] - f.new[0]) - (f.old[1] - f.old[0])
        texts[path] = text
        applied.extend(f.key for f in batch)
        pending[path] = (before, batch)
    return pending
