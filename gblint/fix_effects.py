"""What a fix does to the graphs: the predicted graphs of the frame before and after a rewrite.

A fix that compiles a frame Dynamo skipped often trades one skipped frame for graph breaks
(unrolling a loop with a break gives one break per iteration). So that users can choose, the
title of a loop or block fix says the graphs of its frame before and after
(``... (`refine`: ~0 -> ~4 graphs, 3 graph breaks)``): both predicted by gblint itself, with the
file alone and the fixed function taken as the compiled entry (callees in other files are not
followed, so breaks they hold are not counted). :func:`graph_counter` builds the predictor
from the engine's ``run``, which this module never imports.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Dict, Optional, Tuple

from .diagnostics import Edit, Fix

#: ``predict(path, text, frame)``: ``(graphs, graph breaks)`` of ``frame`` compiled alone, or None
Predictor = Callable[[str, str, str], Optional[Tuple[int, int]]]


def graph_counter(run, source_file, settings, cache=None) -> Predictor:
    """A predictor that checks one file's text with ``run`` (:func:`gblint.engine.run`, fed
    ``source_file(path, text)`` records), the frame as its only compiled entry (``--entry
    MODULE:QUALNAME``); memoised per text and frame. ``cache`` (a summary cache) is read, never
    written: the text as it is comes from it, the fixed text (seen once) is not stored."""
    reading = _ReadOnly(cache) if cache is not None else None
    memo: Dict[Tuple[str, int, str], Optional[Tuple[int, int]]] = {}

    def predict(path: str, text: str, frame: str) -> Optional[Tuple[int, int]]:
        key = (path, hash(text), frame)
        if key not in memo:
            memo[key] = _predict(run, source_file, settings, path, text, frame, reading)
        return memo[key]
    return predict


class _ReadOnly:
    """A summary cache that answers from what it holds and stores nothing."""

    def __init__(self, cache):
        self.cache = cache

    def key(self, *args, **kwargs):
        return self.cache.key(*args, **kwargs)

    def get(self, key, fix: bool = False):
        c = self.cache
        counts = (c.hits, c.misses, c.fix_hits, c.fix_misses)
        try:
            return c.get(key, fix)
        finally:  # the cache's counts describe the run's own reads, not the prediction's
            c.hits, c.misses, c.fix_hits, c.fix_misses = counts

    def put(self, key, value) -> None:
        pass


def _predict(run, source_file, settings, path: str, text: str, frame: str, cache=None) -> Optional[Tuple[int, int]]:
    from .index import module_name
    module = module_name(path)[0]
    alone = dataclasses.replace(settings, entry_points=(f"{module}:{frame}",), jobs=1,
                                select=("GBL",), ignore=(), per_file_ignores={})
    try:
        _, _, _, walks = run([source_file(path, text)], alone, cache, fixes=False)
    except Exception:  # a prediction is a courtesy: never a reason for the fix, or the run, to fail
        return None
    mine = [w for w in walks if w.region.entry.name == frame and w.region.entry.path == path]
    if not mine:
        return None
    walk = mine[0]
    return sum(fr.graphs for fr in walk.frames), sum(len(fr.splits) for fr in walk.frames)


def apply_edit(text: str, edit: Edit) -> str:
    """``text`` with one 1-based edit applied."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line: int, column: int) -> int:
        return len(text) if line - 1 >= len(lines) else starts[line - 1] + column - 1
    return text[:offset(edit.line, edit.column)] + edit.text + text[offset(edit.end_line, edit.end_column):]


def with_graphs(fix: Fix, path: str, text: str, frame: str, predict: Predictor) -> Fix:
    """``fix`` whose title says the graphs of ``frame`` before and after it, when both can be
    predicted and differ."""
    if len(fix.edits) != 1:
        return fix
    before = predict(path, text, frame)
    after = predict(path, apply_edit(text, fix.edits[0]), frame)
    if before is None or after is None or before == after:
        return fix
    graphs, breaks = after
    # graphs are estimated from the ops between breaks, as --explain shows them (~): the breaks are counted
    note = f" (`{frame}`: ~{before[0]} -> ~{graphs} graph{'s' if graphs != 1 else ''}, " \
           f"{breaks} graph break{'s' if breaks != 1 else ''})"
    return dataclasses.replace(fix, title=fix.title + note)
