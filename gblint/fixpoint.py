"""Memoised evaluations whose cycles are solved by iteration, not cut once and forgotten.

The interpreter (:mod:`gblint.interp`) evaluates a value by evaluating the values it is made of; a
value may rest on itself (a loop rebinds ``x = x - x.sum().item()``, an attribute is assigned from
its own earlier value). Reading an evaluation that is still in progress is a cycle: it gives the
cycle's *seed*, the empty value at first. Everything computed on the way rests on that seed and is
partial; memoising it as final made a later read order-dependent and too small (a value that may be
a tensor taken for a plain ``int``: a false definite break). So:

- a value that rests on an evaluation still in progress below it is kept only while that evaluation
  runs (one pass over the cycle, not one per read) and dropped after;
- the evaluation a cycle closes on (the lowest one it reached) runs again, each read of an evaluation of
  the cycle giving what that evaluation gave in the pass before, until each such read was given the value
  its evaluation then computed; then what rests on it is final and memoised. After
  :data:`MAX_PASSES` passes without that, each value of the cycle is widened with "not known" and memoised.
"""
from __future__ import annotations

import contextlib
from typing import Any, Callable, Dict, Hashable, Iterator, List, Optional, Tuple

MAX_PASSES = 2  # passes over one cycle, at most; the last widens instead of going on

_NONE = 1 << 30  # no evaluation in progress was reached


class Fixpoint:
    """The memo of one interpreter run.

    :param bottom: what reading an evaluation in progress gives on the first pass (the empty value).
    :param widen: ``widen(value)``: a value that holds ``value`` and anything else (for a cycle whose value
        did not settle within :data:`MAX_PASSES` passes).
    """

    def __init__(self, bottom: Any, widen: Callable[[Any], Any]):
        self._bottom = bottom
        self._widen = widen
        self._memo: Dict[Hashable, tuple] = {}  # key -> (value, calls): final
        self._active: Dict[Hashable, int] = {}  # evaluations in progress -> their depth
        self._seeds: Dict[Hashable, Any] = {}  # an evaluation in progress -> what reading it gives
        self._given: Dict[Hashable, Any] = {}  # what reads of evaluations in progress were given, this pass
        self._low = _NONE  # the least depth a read of an evaluation in progress reached in the current one
        self._partial: Dict[Hashable, tuple] = {}  # key -> (value, calls, depth of the evaluation it rests on)
        self._resting: Dict[int, List[Hashable]] = {}  # depth -> the keys of _partial resting on it
        self._values: Dict[Any, Any] = {}  # one object per value, so that comparing values seldom goes deep

    def get(self, key: Hashable) -> Optional[tuple]:
        """``(value, calls)`` known for ``key`` (final, or partial within the evaluation it rests on), or None."""
        found = self._memo.get(key)
        if found is not None:
            return found
        found = self._partial.get(key)
        if found is not None and found[2] < self._low:
            self._low = found[2]
        return found

    def compute(self, key: Hashable, run: Callable[[Optional[list]], Any], with_calls: bool) -> tuple:
        """``(value, calls)`` of ``key`` from ``run(calls)`` (which appends the calls it makes to ``calls``, a
        list when ``with_calls``), memoised as described in the module's docstring."""
        active = self._active
        depth = active.get(key)
        if depth is not None:  # a cycle
            if depth < self._low:
                self._low = depth
            given = self._seeds.get(key, self._bottom)
            self._given[key] = given
            return given, ()
        depth = active[key] = len(active)
        outer = self._low
        cut = _NONE
        seeded: List[Hashable] = []
        try:
            for passes in range(1, MAX_PASSES + 1):
                self._low = _NONE
                mine: Optional[list] = [] if with_calls else None
                value = self._values.setdefault(*(run(mine),) * 2)
                cut = self._low
                resting = self._resting.pop(depth, ())
                if cut < depth:  # partial itself: what rests on it rests on the evaluation it rests on
                    for k in resting:
                        if k in self._partial:
                            self._partial[k] = self._partial[k][:2] + (cut,)
                    self._resting.setdefault(cut, []).extend(resting)
                    break
                if cut > depth:  # no cycle through it: final
                    break
                # a cycle closes here: settled when each read of an evaluation in progress was given its value
                now = {k: self._partial[k][0] for k in resting if k in self._partial}
                now[key] = value
                given = self._given
                settled = all([given.pop(k) == v for k, v in now.items() if k in given])
                seeds = self._seeds
                if settled or passes == MAX_PASSES:
                    widen = (lambda v: v) if settled else self._widen
                    value = self._values.setdefault(*(widen(value),) * 2)
                    for k in resting:
                        found = self._partial.pop(k, None)
                        if found is not None:
                            self._memo[k] = (self._values.setdefault(*(widen(found[0]),) * 2), found[1])
                    break
                for k in resting:
                    self._partial.pop(k, None)
                seeded.extend(k for k in now if k not in seeds)
                seeds.update(now)
        finally:
            del active[key]
            for k in seeded:
                self._seeds.pop(k, None)
            for k in self._resting.pop(depth, ()):  # left by a pass an exception ended
                self._partial.pop(k, None)
            self._low = min(outer, cut) if cut < depth else outer
        found = (value, tuple(mine or ()))
        if cut < depth:
            self._partial[key] = found + (cut,)
            self._resting.setdefault(cut, []).append(key)
        else:
            self._memo[key] = found
        return found


class CutMemo:
    """The memo of a recursive walk that cuts its cycles (a call back into a function whose walk is still in
    progress gives nothing, :meth:`gblint.consequences.Consequences.inner_breaks`): a result computed while a cut
    reached a walk in progress below it is partial, kept only until that walk ends, as in :class:`Fixpoint` (no
    passes again: a walk's results are lists, cut cycles add nothing to them)."""

    def __init__(self):
        self._memo: Dict[Hashable, list] = {}
        self._partial: Dict[Hashable, Tuple[list, int]] = {}
        self._resting: Dict[int, List[Hashable]] = {}
        self._low = _NONE

    def get(self, key: Hashable) -> Optional[list]:
        """What the walk of ``key`` found, or None when it has to be walked (again)."""
        found = self._memo.get(key)
        if found is not None:
            return found
        hit = self._partial.get(key)
        if hit is None:
            return None
        if hit[1] < self._low:
            self._low = hit[1]
        return hit[0]

    def cut(self, depth: int) -> list:
        """A cycle back into the walk entered at ``depth``: nothing (what is computed above it is partial)."""
        if depth < self._low:
            self._low = depth
        return []

    @contextlib.contextmanager
    def entered(self, key: Hashable, depth: int) -> Iterator[list]:
        """The walk of ``key`` at ``depth`` (walks in progress below it): yields the list it fills, memoised on a
        normal exit (final, or partial when a cut reached below ``depth``)."""
        outer, self._low = self._low, _NONE
        out: list = []
        done = False
        try:
            yield out
            done = True
        finally:
            low = self._low
            resting = self._resting.pop(depth, ())
            if done and low < depth:  # partial itself: what rests on it rests on the walk it rests on
                for k in resting:
                    if k in self._partial:
                        self._partial[k] = (self._partial[k][0], low)
                self._resting.setdefault(low, []).extend(resting)
            else:  # walked again when read: the walk they rest on is now known whole
                for k in resting:
                    self._partial.pop(k, None)
            self._low = min(outer, low) if low < depth else outer
            if done and low < depth:
                self._partial[key] = (out, low)
                self._resting.setdefault(low, []).append(key)
            elif done:
                self._memo[key] = out


__all__: Tuple[str, ...] = ("CutMemo", "Fixpoint", "MAX_PASSES")
