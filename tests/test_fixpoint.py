"""gblint.core.fixpoint: cycles are solved, not cut once and memoised (the soundness kind memo_after_cut_cycle).

A toy interpreter over sets stands for gblint.abstract.interp: each name's value is the union of what its
equation reads, and a read of a name whose evaluation is in progress is a cycle.
"""
from __future__ import annotations

from gblint.core.fixpoint import MAX_PASSES, CutMemo, Fixpoint

TOP = "*"


def _interpreter(equations):
    fp = Fixpoint(frozenset(), lambda v: v | {TOP})
    runs = []

    def read(name):
        key = (name,)
        found = fp.get(key)
        if found is None:
            runs.append(name)
            found = fp.compute(key, lambda _calls: frozenset(equations[name](read)), False)
        return found[0]

    return read, runs


CYCLE = {
    "x": lambda read: {1} | read("y"),
    "y": lambda read: read("x") | {2},
    "z": lambda read: read("y"),
}


def test_a_value_in_a_cycle_is_the_cycles_whole_value_whatever_is_read_first():
    for order in (("x", "y", "z"), ("y", "x", "z"), ("z", "y", "x")):
        read, _runs = _interpreter(CYCLE)
        got = {name: read(name) for name in order}
        assert got == {"x": {1, 2}, "y": {1, 2}, "z": {1, 2}}, order


def test_the_old_cut_would_have_memoised_a_partial_value():
    # reading x cuts the cycle at x: y is first computed with x empty ({2}); it must not stay so
    read, _runs = _interpreter(CYCLE)
    assert read("x") == {1, 2}
    assert read("y") == {1, 2}


def test_a_settled_cycle_is_memoised():
    read, runs = _interpreter(CYCLE)
    read("x")
    before = len(runs)
    assert read("y") == {1, 2} and read("x") == {1, 2}
    assert len(runs) == before  # nothing evaluated again


def test_a_cycle_that_does_not_settle_is_widened_to_not_known():
    growing = {"n": lambda read: {0} | {k + 1 for k in read("n") if k != TOP and k < 100}}
    read, runs = _interpreter(growing)
    got = read("n")
    assert TOP in got and {0, 1}.issubset(got) and 99 not in got  # MAX_PASSES passes, then widened
    before = len(runs)
    assert read("n") == got and len(runs) == before and MAX_PASSES < 50


def test_no_cycle_is_evaluated_once():
    read, runs = _interpreter({"a": lambda read: read("b") | {1}, "b": lambda read: {2}})
    assert read("a") == {1, 2} and read("b") == {2} and runs == ["a", "b"]


def test_cut_memo_drops_a_walk_that_rested_on_a_walk_in_progress():
    memo = CutMemo()
    calls = {"A": ["B"], "B": ["A", "C"], "C": []}
    walked = []

    def walk(name, stack=()):
        known = memo.get(name)
        if known is not None:
            return known
        if name in stack:
            return memo.cut(stack.index(name))
        walked.append(name)
        with memo.entered(name, len(stack)) as out:
            out.append(name)
            for callee in calls[name]:
                out.extend(walk(callee, stack + (name,)))
        return out

    assert walk("A") == ["A", "B", "C"]
    assert memo.get("C") == ["C"]  # rested on nothing: final
    assert memo.get("B") is None  # rested on A's walk, which was in progress: walked again when asked
    assert walk("B") == ["B", "A", "B", "C", "C"]  # A's whole walk, then C
    assert memo.get("B") == ["B", "A", "B", "C", "C"] and walked == ["A", "B", "C", "B"]
