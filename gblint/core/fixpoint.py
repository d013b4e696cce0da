"""Memoised evaluations whose cycles are solved by iteration, not cut once and forgotten.

The interpreter (:mod:`gblint.abstract.interp`) evaluates a value by evaluating the values it is made of; a
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


class _Resting:
    """What both memos keep: final results (``_memo``), partial ones (``_partial``: key -> ``(result, depth of
    the computation in progress it rests on)``, listed by that depth in ``_resting``), and ``_low``, the least
    depth a cut reached in the computation under way."""

    def __init__(self):
        self._memo: Dict[Hashable, Any] = {}
        self._partial: Dict[Hashable, Tuple[Any, int]] = {}
        self._resting: Dict[int, List[Hashable]] = {}
        self._low = _NONE

    def _lookup(self, key: Hashable) -> Any:
        """The result known for ``key`` (final, or partial: then what is computed with it rests where it does), or
        None."""
        found = self._memo.get(key)
        if found is not None:
            return found
        hit = self._partial.get(key)
        if hit is None:
            return None
        self._reach(hit[1])
        return hit[0]

    def _reach(self, depth: int) -> None:
        if depth < self._low:
            self._low = depth

    def _pass_down(self, depth: int, low: int) -> None:
        """The computation at ``depth`` ended partial, resting on the one at ``low``: so do the results resting on it."""
        resting = self._resting.pop(depth, ())
        for k in resting:
            if k in self._partial:
                self._partial[k] = (self._partial[k][0], low)
        self._resting.setdefault(low, []).extend(resting)

    def _drop(self, depth: int) -> None:
        """Forget the partial results resting on the computation at ``depth`` (computed again when read)."""
        for k in self._resting.pop(depth, ()):
            self._partial.pop(k, None)

    def _keep(self, key: Hashable, result: Any, low: int, depth: int) -> None:
        """``result`` of the computation of ``key`` at ``depth``: partial when a cut reached ``low`` below it."""
        if low < depth:
            self._partial[key] = (result, low)
            self._resting.setdefault(low, []).append(key)
        else:
            self._memo[key] = result


class Fixpoint(_Resting):
    """The memo of one interpreter run; results are ``(value, calls)``.

    :param bottom: what reading an evaluation in progress gives on the first pass (the empty value).
    :param widen: ``widen(value)``: a value that holds ``value`` and anything else (for a cycle whose value
        did not settle within :data:`MAX_PASSES` passes).
    """

    def __init__(self, bottom: Any, widen: Callable[[Any], Any]):
        super().__init__()
        self._bottom = bottom
        self._widen = widen
        self._active: Dict[Hashable, int] = {}  # evaluations in progress -> their depth
        self._seeds: Dict[Hashable, Any] = {}  # an evaluation in progress -> what reading it gives
        self._given: Dict[Hashable, Any] = {}  # what reads of evaluations in progress were given, this pass
        self._values: Dict[Any, Any] = {}  # one object per value, so that comparing values seldom goes deep

    def get(self, key: Hashable) -> Optional[tuple]:
        """``(value, calls)`` known for ``key`` (final, or partial within the evaluation it rests on), or None."""
        return self._lookup(key)

    def _intern(self, value: Any) -> Any:
        return self._values.setdefault(value, value)

    def compute(self, key: Hashable, run: Callable[[Optional[list]], Any], with_calls: bool) -> tuple:
        """``(value, calls)`` of ``key`` from ``run(calls)`` (which appends the calls it makes to ``calls``, a
        list when ``with_calls``), memoised as described in the module's docstring."""
        active = self._active
        depth = active.get(key)
        if depth is not None:  # a cycle
            self._reach(depth)
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
                value = self._intern(run(mine))
                cut = self._low
                if cut < depth:  # partial itself: what rests on it rests on the evaluation it rests on
                    self._pass_down(depth, cut)
                    break
                if cut > depth:  # no cycle through it: final (nothing rests on it)
                    break
                # a cycle closes here: settled when each read of an evaluation in progress was given its value
                resting = self._resting.pop(depth, ())
                now = {k: self._partial[k][0][0] for k in resting if k in self._partial}
                now[key] = value
                given = self._given
                settled = all([given.pop(k) == v for k, v in now.items() if k in given])  # a list: pop every one
                seeds = self._seeds
                if settled or passes == MAX_PASSES:
                    widen = (lambda v: v) if settled else self._widen
                    value = self._intern(widen(value))
                    for k in resting:
                        found = self._partial.pop(k, None)
                        if found is not None:
                            self._memo[k] = (self._intern(widen(found[0][0])), found[0][1])
                    break
                for k in resting:
                    self._partial.pop(k, None)
                seeded.extend(k for k in now if k not in seeds)
                seeds.update(now)
        finally:
            del active[key]
            for k in seeded:
                self._seeds.pop(k, None)
            self._drop(depth)  # left by a pass an exception ended
            self._low = min(outer, cut) if cut < depth else outer
        found = (value, tuple(mine or ()))
        self._keep(key, found, cut, depth)
        return found


class CutMemo(_Resting):
    """The memo of a recursive walk that cuts its cycles (a call back into a function whose walk is still in
    progress gives nothing, :meth:`gblint.dynamo.consequences.Consequences.inner_breaks`): a result computed while a cut
    reached a walk in progress below it is partial, kept only until that walk ends, as in :class:`Fixpoint` (no
    passes again: a walk's results are lists, cut cycles add nothing to them)."""

    def get(self, key: Hashable) -> Optional[list]:
        """What the walk of ``key`` found, or None when it has to be walked (again)."""
        return self._lookup(key)

    def cut(self, depth: int) -> list:
        """A cycle back into the walk entered at ``depth``: nothing (what is computed above it is partial)."""
        self._reach(depth)
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
            if done and low < depth:  # partial itself: what rests on it rests on the walk it rests on
                self._pass_down(depth, low)
            else:  # walked again when read: the walk they rest on is now known whole
                self._drop(depth)
            self._low = min(outer, low) if low < depth else outer
            if done:
                self._keep(key, out, low, depth)


__all__: Tuple[str, ...] = ("CutMemo", "Fixpoint", "MAX_PASSES")
