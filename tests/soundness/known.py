"""The kinds of wrong definite diagnostics the soundness generator has found, each with its minimal program.

``KNOWN`` maps a kind's name to a :class:`Kind`: the smallest program of the kind (a :class:`Spec`), the exact
wrong items gblint gives on it today (``tests/test_soundness.py`` runs it and fails when they change or go away,
so that a fix updates the table), and a predicate that says whether the kind explains a wrong item of another
generated program (the CI test fails on a wrong item no kind explains). The analysis itself is not changed
here: the kinds are for whoever fixes them.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, NamedTuple, Sequence, Tuple

from .generator import TENSOR_KINDS, Spec


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


WHILE_FORMS = ("while", "while_loop")
TRACED_ARRAYS = TENSOR_KINDS + ("ndarray",)  # values Dynamo traces as tensors


def while_body_lines(spec: Spec) -> List[int]:
    """The lines (1-based) of the body of the ``while`` statement(s) of ``spec``'s program."""
    from .generator import render
    lines = render(spec).splitlines()
    out = []
    for i, line in enumerate(lines):
        if line.lstrip().startswith("while "):
            depth = len(line) - len(line.lstrip())
            j = i + 1
            while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > depth):
                out.append(j + 1)
                j += 1
    return out


def _lines(diags: Sequence[Dict[str, Any]]) -> List[int]:
    """The lines of ``diags``, of their traces and of the diagnostics they name as the same break (``related``:
    the "gets no compiled graph" skip at a ``def`` line names the compile error it comes from)."""
    return ([d["line"] for d in diags] + [t["line"] for d in diags for t in d.get("trace") or () if "line" in t]
            + [r["line"] for d in diags for r in d.get("related") or () if "line" in r])


def _observed_lines(obs: Dict[str, Any]) -> set:
    return {b["line"] for b in obs.get("breaks", [])} | {ln for e in obs.get("errors", []) for ln in e["lines"]}


def _while_body_unreached(spec: Spec, item, diags, obs) -> bool:
    """A break source in the body of ``while v:`` reported definite, at a line Dynamo never broke at."""
    body = set(while_body_lines(spec))
    hits = [ln for ln in _lines(diags) if ln in body]
    return spec.form in WHILE_FORMS and bool(hits) and not any(ln in _observed_lines(obs) for ln in hits)


def _while_body_not_entered(spec: Spec, item, diags, obs) -> bool:
    """:func:`_while_body_unreached`, the value a Python value (its test cannot break)."""
    return spec.kind not in TRACED_ARRAYS and _while_body_unreached(spec, item, diags, obs)


def _while_body_after_tensor_test(spec: Spec, item, diags, obs) -> bool:
    """:func:`_while_body_unreached`, the value a tensor or NumPy array (Dynamo stops at the test)."""
    return spec.kind in TRACED_ARRAYS and _while_body_unreached(spec, item, diags, obs)


KNOWN: Dict[str, Kind] = {
    "while_body_not_entered": Kind(
        Spec(truthy=False, form="while_loop", body="graph_break"),
        {"false break sites": [9], "false skipped frames": ["f"]},
        _while_body_not_entered,
        "a break source in the body of `while v:` is reported as definite (a definite break, loop skip GB7000 or "
        "fullgraph compile error, with the frame's 'gets no compiled graph') although nothing proves that the "
        "body runs: `v` is a false Python value (False, 0, 0.0, '', None, []) however it arrives, the body never "
        "runs and Dynamo compiles one graph. `if v:` with the same body is conditional ('when `v`')."),
    "while_body_after_tensor_test": Kind(
        Spec(kind="tensor0d", form="while_loop", body="graph_break", fullgraph=True),
        {"false break sites": [9]},
        _while_body_after_tensor_test,
        "the same, `v` a tensor or NumPy array: Dynamo stops at the `while` test itself (GB0170 Data-dependent "
        "branching; under fullgraph=True the compile error is raised there, in a loop the frame is skipped "
        "there), so the body's break source is never traced; gblint reports it as a definite compile error "
        "(or break) at the body's line, and misses the test (a tensor it does not know of)."),
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
    "while_break_no_backedge": Fixed(
        Spec(form="while", body="item"),
        {},
        "`while v:` whose body always ends with `break` has no backward jump, so Dynamo does not count a break in "
        "its body as a break in a loop (symbolic_convert's maybe_has_backedge finds no backedge): it resumes after "
        "the break (2 graphs). gblint predicted the loop skip of the frame (GB7000). Fixed: such a `while` (its "
        "body ends with `break` or `return`, no `continue` of it) is no loop block (gblint.blocks.no_backedge); a "
        "loop around it still is. Measured: tests/cases/harness/h09_while_break_no_backedge.py."),
    "wrapper_frame_named_as_wrapped": Fixed(
        Spec(arrival="kwarg_wrapper", form="while_loop", body="graph_break", fullgraph=True),
        {},
        "`@torch.compile(fullgraph=True)` over a decorator whose `functools.wraps` wrapper calls the function: "
        "Dynamo compiles the wrapper's frame and inlines `f`, so the compile error's frame is `wrapper`. gblint "
        "named `f` (definite skip at `def f`). Fixed: `@torch.compile` with decorators below it (and none above) "
        "compiles the module-level name's value, the decorators applied by the interpreter (gblint.regions), as "
        "`torch.compile(f)` already did; each wrapper closure is its own region (gblint.entries, the entry's "
        "values per closure in gblint.calls). Measured: tests/cases/harness/h10_compiled_wraps_decorator.py."),
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
