"""Re-summarise only the top-level definition an edit touched (the editor's case).

An editor sends the whole buffer on every keystroke, but an edit changes one function or
class. :func:`summarize_incremental` compares the new text with the previous one of the same
path, finds the top-level ``def``/``class`` statements the changed lines fall in, and
summarises a copy of the file in which every other definition is reduced to a one-line stub on
its own line (module-level statements are kept, so imports, globals and ``torch.compile``
calls read the same, and every line keeps its number). The summaries of the untouched
definitions are reused, shifted by the number of lines the edit added or removed. Any other
edit (imports, module-level code, a syntax error) falls back to a full summary.
``tests/test_incremental.py`` checks that both give the same summary.
"""
from __future__ import annotations

import ast
import collections
import pickle
import warnings
from typing import Callable, List, Optional, Tuple

from ..core.source import split_lines
from ..core.model import FileSummary

_LAST: "collections.OrderedDict[Tuple[str, str], Tuple[str, bytes]]" = collections.OrderedDict()
_LIMIT = 64


def forget() -> None:
    """Drop every remembered summary (tests, or when settings change)."""
    _LAST.clear()


def summarize_incremental(text: str, path: str, settings_key: str, full: Callable[[str], FileSummary]
                          ) -> FileSummary:
    """The summary of ``text`` for ``path``; ``full(text)`` summarises a text from scratch.

    ``settings_key`` identifies the settings the summary depends on (a different key never
    reuses a summary).
    """
    key = (path, settings_key)
    prev = _LAST.get(key)
    summary = None
    if prev is not None:
        old_text, blob = prev
        if old_text == text:
            summary = pickle.loads(blob)
        else:
            try:
                summary = _incremental(old_text, pickle.loads(blob), text, full)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                summary = None
    if summary is None:
        summary = full(text)
    try:
        _LAST[key] = (text, pickle.dumps(summary, protocol=pickle.HIGHEST_PROTOCOL))
        _LAST.move_to_end(key)
        while len(_LAST) > _LIMIT:
            _LAST.popitem(last=False)
    except Exception:  # an unpicklable summary only costs speed next time
        _LAST.pop(key, None)
    return summary


def _start(node: ast.stmt) -> int:
    lines = [node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]
    return min(lines)


def _incremental(old_text: str, old: FileSummary, text: str, full: Callable[[str], FileSummary]
                 ) -> Optional[FileSummary]:
    old_lines = split_lines(old_text)
    new_lines = split_lines(text)
    p = 0
    while p < len(old_lines) and p < len(new_lines) and old_lines[p] == new_lines[p]:
        p += 1
    s = 0
    while s < min(len(old_lines), len(new_lines)) - p and old_lines[-1 - s] == new_lines[-1 - s]:
        s += 1
    first, last = p + 1, max(p + 1, len(new_lines) - s)  # changed lines of the new text (1-based)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = ast.parse(text)
    defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    touched = [n for n in tree.body if _start(n) <= last and n.end_lineno >= first]
    if not touched or not all(isinstance(n, defs) for n in touched):
        return None
    a = min(_start(n) for n in touched)
    b = max(n.end_lineno for n in touched)
    if not (a <= first and last <= b):
        return None
    delta = len(new_lines) - len(old_lines)
    old_b = b - delta
    synthetic = list(new_lines)
    for node in tree.body:
        if node in touched or not isinstance(node, defs):
            continue
        for i in range(_start(node) - 1, node.end_lineno):
            synthetic[i] = "\n"
        synthetic[node.lineno - 1] = _stub(node)
    fresh = full("".join(synthetic))
    return _merge(old, fresh, a, b, old_b, delta)


def _stub(node: ast.stmt) -> str:
    if isinstance(node, ast.ClassDef):
        bases = ", ".join(ast.unparse(b) for b in node.bases)
        return f"class {node.name}({bases}): pass\n"
    prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    return f"{prefix} {node.name}(*args, **kwargs): pass\n"


def _inside(line: int, a: int, b: int) -> bool:
    return a <= line <= b


def _merge(old: FileSummary, fresh: FileSummary, a: int, b: int, old_b: int, delta: int) -> FileSummary:
    merged = FileSummary(fresh.path, fresh.module)
    merged.config = fresh.config
    merged.imports = fresh.imports
    merged.module_names = fresh.module_names
    for qual, f in old.functions.items():
        if f.span.line < a:
            merged.functions[qual] = f
        elif f.span.line > old_b:
            _shift_function(f, delta)
            merged.functions[qual] = f
    for qual, f in fresh.functions.items():
        if _inside(f.span.line, a, b):
            merged.functions[qual] = f
    for qual, c in old.classes.items():
        if c.span.line < a:
            merged.classes[qual] = c
        elif c.span.line > old_b:
            _shift(c.span, delta)
            merged.classes[qual] = c
    for qual, c in fresh.classes.items():
        if _inside(c.span.line, a, b):
            merged.classes[qual] = c
    # module-level compile calls are read again in `fresh`; decorators and calls inside the
    # stubbed definitions only exist in `old`
    for r in old.regions:
        if r.spelling == "@torch.compile" or r.function is not None:
            if r.span.line < a:
                merged.regions.append(r)
            elif r.span.line > old_b:
                _shift(r.span, delta)
                merged.regions.append(r)
    for r in fresh.regions:
        if _inside(r.span.line, a, b) or (r.spelling != "@torch.compile" and r.function is None):
            merged.regions.append(r)
    merged.rule_errors = [e for e in old.rule_errors if e[1] < a] + \
        [(n, l + delta, m) for n, l, m in old.rule_errors if l > old_b] + \
        [e for e in fresh.rule_errors if _inside(e[1], a, b)]
    return merged


def _shift(span, delta: int) -> None:
    span.line += delta
    span.end_line += delta


def _shift_function(f, delta: int) -> None:
    if not delta:
        return
    _shift(f.span, delta)
    seen_blocks: List[object] = []
    for ev in f.events:
        _shift(ev.span, delta)
        if ev.origin_line:
            ev.origin_line += delta
        for block in ev.blocks:
            if block.line > 0 and not any(block is s for s in seen_blocks):
                block.line += delta
                seen_blocks.append(block)
