"""The kinds of wrong definite diagnostics the soundness generator has found, each with its minimal program.

``KNOWN`` maps a kind's name to a :class:`Kind`: the smallest program of the kind (a :class:`Spec`), the exact
wrong items gblint gives on it today (``tests/test_soundness.py`` runs it and fails when they change or go away,
so that a fix updates the table), and a predicate that says whether the kind explains a wrong item of another
generated program (the CI test fails on a wrong item no kind explains). ``FIXED`` keeps the kinds fixed since
they were found, each with its minimal program, which must stay free of wrong definite diagnostics.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, NamedTuple, Sequence, Tuple

from .generator import Spec


class Kind(NamedTuple):
    """One known fault kind: ``spec`` its minimal program; ``wrong`` the exact ``wrong`` record of
    :func:`tests.soundness.runner.judge` on it; ``applies(spec, item, diags)`` whether the kind explains one
    wrong item of another program (``item``: ``(label, value)``, such as ``("false break sites", 8)``;
    ``diags``: the definite break/skip/error diagnostics behind it, :func:`behind`; ``obs``: the program's
    observation); ``why``: the kind in words."""

    spec: Spec
    wrong: Dict[str, List[Any]]
    applies: Callable[[Spec, Tuple[str, Any], Sequence[Dict[str, Any]], Dict[str, Any]], bool]
    why: str


KNOWN: Dict[str, Kind] = {
}


class Fixed(NamedTuple):
    """A kind the generator found and gblint no longer gets wrong: ``spec`` its minimal program (that of its
    :class:`Kind` when it was known), ``missed`` what gblint still misses on it (:func:`tests.soundness.runner.judge`'s
    ``missed``; its ``wrong`` must stay empty), ``why`` the kind and the fix in words."""

    spec: Spec
    missed: Dict[str, List[Any]]
    why: str


#: the kinds fixed since they were found: ``tests/test_soundness.py`` runs each minimal program and fails when a
#: wrong definite diagnostic comes back on it or what gblint misses there changes.
FIXED: Dict[str, Fixed] = {
    "memo_after_cut_cycle": Fixed(
        Spec(kind="float", truthy=False, arrival="tuple_unpack", form="rebind", body="graph_break", else_body="item",
             places=("loop",), fullgraph=True),
        {"missed break sites": [16]},
        "found by the `rebind` form (2026-12-05; the 10,000-program run at f57da71 had 2 programs of it): `x, v = "
        "split(x)` then `w = x.sum()` and, in the loop, `x = x - x.sum().item()`. The interpreter cut the cycle (`x` "
        "read while `x.sum()` was being evaluated) with the empty value and memoised what it computed meanwhile; a "
        "later read of `w` found `x.sum()` empty, so `w` was only `3`, `if w > 1:` decided true, the break under it "
        "definite and the `else` arm's `.item()` dropped. Fixed (gblint.core.fixpoint.Fixpoint): a value resting on an "
        "evaluation still in progress is kept only while that evaluation runs, and the evaluation a cycle closes on "
        "runs again from its last value until it settles (else it is widened with `not known`); the consequence "
        "walk's inner breaks are memoised the same way (gblint.core.fixpoint.CutMemo)."),
    "while_body_not_entered": Fixed(
        Spec(truthy=False, form="while_loop", body="graph_break"),
        {},
        "a break source in the body of `while v:` was reported as definite (a definite break, loop skip GB7000 or "
        "fullgraph compile error, with the frame's 'gets no compiled graph') although nothing proved that the body "
        "runs: with `v` a false Python value the body never runs and Dynamo compiles one graph. Fixed: the body is "
        "a branch on the test as the values give it before the loop, as `if v:` (gblint.syntax.blocks.push_while_guard): "
        "left out when the test is known false, conditional ('when `v`') when it is not known true. Measured: "
        "tests/cases/harness/h09_while_body_not_entered.py (a `while` on a false default: one graph; `while n < 2` "
        "from n = 0: the loop skip stays definite)."),
    "while_body_after_tensor_test": Fixed(
        Spec(kind="tensor0d", form="while_loop", body="graph_break", fullgraph=True),
        {},
        "the same, `v` a tensor or NumPy array: under fullgraph=True Dynamo stops at the `while` test itself (GB0170 "
        "Data-dependent branching, the compile error there), so the body is never traced; gblint reported the "
        "body's break as a definite compile error. Fixed by the same branch block: the body's break is conditional "
        "on `v`. The test itself, on a parameter the driver passes a tensor to, is found since the driver's calls "
        "in the function that compiles (`main()`) bind the entry's parameters (gblint.dynamo.calls._site_calls). A test known to be a tensor is reported at the test (tests/cases/harness/"
        "h10_while_tensor_test.py: the fullgraph error at 7; without fullgraph, on Python 3.11, the first test "
        "breaks and resumes (15) and the body's break then skips the resumed loop (16, GB7000))."),
    "while_break_no_backedge": Fixed(
        Spec(form="while", body="item"),
        {},
        "`while v:` whose body always ends with `break` has no backward jump, so Dynamo does not count a break in "
        "its body as a break in a loop (symbolic_convert's maybe_has_backedge finds no backedge): it resumes after "
        "the break (2 graphs). gblint predicted the loop skip of the frame (GB7000). Fixed: such a `while` (its "
        "body ends with `break` or `return`, no `continue` of it) is no loop block (gblint.syntax.suites.no_backedge); a "
        "loop around it still is. Measured: tests/cases/harness/h11_while_break_no_backedge.py."),
    "wrapper_frame_named_as_wrapped": Fixed(
        Spec(arrival="kwarg_wrapper", form="while_loop", body="graph_break", fullgraph=True),
        {},
        "`@torch.compile(fullgraph=True)` over a decorator whose `functools.wraps` wrapper calls the function: "
        "Dynamo compiles the wrapper's frame and inlines `f`, so the compile error's frame is `wrapper`. gblint "
        "named `f` (definite skip at `def f`). Fixed: `@torch.compile` with decorators below it (and none above) "
        "compiles the module-level name's value, the decorators applied by the interpreter (gblint.syntax.regions), as "
        "`torch.compile(f)` already did; each wrapper closure is its own region (gblint.dynamo.entries, the entry's "
        "values per closure in gblint.dynamo.calls). Measured: tests/cases/harness/h12_compiled_wraps_decorator.py."),
    "error_after_covering_tensor_test": Fixed(
        Spec(truthy=False, form="arm_rebind", body="helper_break", else_body="helper_break", fullgraph=True),
        {},
        "found by the `helper_break` body the day it was added (2026-12-06): a call of the same breaking helper in "
        "both arms of `if w > 1:` (`w` a tensor) under fullgraph=True. A break met on ways that cover both arms of "
        "a test is met whichever arm runs (gblint.dynamo.sink, kb51), so the helper's break became a definite compile "
        "error; but the tensor test is itself the first compile error, and no arm is ever traced. Fixed: a "
        "compile error is never made surer by covering arms (the first error met ends the compile); breaks and "
        "skips are, since Dynamo resumes after a tensor test and traces the arm taken."),
}


def behind(item: Tuple[str, Any], diags: Sequence[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """The definite break/skip/error diagnostics of ``diags`` that make the wrong ``item``: at its line (a break
    site), of its frame (a skipped frame), the errors (a compile error)."""
    from .runner import EFFECTS
    label, value = item
    sure = [d for d in diags if d.get("certainty") == "definite" and d.get("effect") in EFFECTS]
    if label == "false break sites":
        return [d for d in sure if d["line"] == value or any(t.get("line") == value for t in d.get("trace") or ())]
    if label == "false skipped frames":
        return [d for d in sure if d["effect"] in ("skip", "error") and (d.get("frame") or "").split(".")[-1] == value]
    return [d for d in sure if d["effect"] == "error"]


def classify(spec: Spec, result: Dict[str, Any]) -> Tuple[List[str], bool]:
    """``(kinds, new)``: the KNOWN kinds that explain the wrong items of ``result`` (a
    :func:`tests.soundness.runner.check_program` record of ``spec``'s program), and whether some wrong item is
    explained by none."""
    kinds, new = set(), False
    for label, values in result["wrong"].items():
        for value in values:
            item = (label, value)
            diags = behind(item, result["diagnostics"])
            hit = [name for name, k in KNOWN.items() if k.applies(spec.normal(), item, diags, result["observation"])]
            kinds.update(hit)
            new = new or not hit
    return sorted(kinds), new
