"""Fixes judged together (issue 40): a frame with several breaks, each fix of which gains nothing alone.

A new user's forward with ``assert not t``, a ``print`` in a loop and ``try: s = t.item()`` got no fix from
``gblint fix --unsafe-fixes``: each rewrite alone left the frame as eager as before (the print guard alone
leaves the resume function that holds the ``try`` skipped; the second assert fixed alone turns a skipped
resume function into a skipped frame). :func:`gblint.fixing.fix_effects.together` judges the fixes of one frame
that gain nothing alone applied together; where they gain, each of their diagnostics carries that one fix
(every edit), applied in one round, unsafe when any of them is."""
import textwrap

import pytest

from gblint.settings.config import Settings
from gblint.core.diagnostics import Edit, Fix
from gblint.project.engine import SourceFile, check_sources
from gblint.frontends.fix import fix_sources
from gblint.fixing.fix_effects import Effect, together

from .test_fix_logging_guards import _measure, _observe

USER = textwrap.dedent("""\
    import torch
    import torch.nn as nn


    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x, name: str = "x"):
            h = self.fc(x)
            assert not torch.isnan(h).any(), "nan in h"
            assert (h.abs() < 1e4).all(), f"{name} exploded"
            for i in range(3):
                print("step", i)
                h = h + 1
            try:
                s = h.mean().item()
            except RuntimeError:
                s = 0.0
            return h * s


    def main():
        torch.manual_seed(0)
        model = Block()
        compiled = torch.compile(model, backend="eager")
        return compiled(torch.randn(2, 4))


    if __name__ == "__main__":
        main()
    """)


def _fix(text, unsafe=True):
    return fix_sources({"m.py": text}, Settings(python_version=(3, 11)), unsafe=unsafe)


def test_the_fixes_that_gain_only_together_are_applied_together():
    result = _fix(USER)
    new = result.texts["m.py"]
    assert "assert torch.logical_not(torch.isnan(h).any()), \"nan in h\"" in new
    assert "torch._assert_async((h.abs() < 1e4).all(), f\"{name} exploded\")" in new
    assert "if not torch.compiler.is_compiling():\n                print(\"step\", i)" in new
    assert "try:" not in new and "        s = h.mean().item()\n" in new
    joint = [k for k in result.applied if "together, each no gain alone" in k[3]]
    assert len(joint) == 1 and "Guard `print(...)`" in joint[0][3]
    left = check_sources([SourceFile("m.py", new)], Settings(python_version=(3, 11))).diagnostics
    assert [d.code for d in left] == ["GBL102"]  # the `.item()` itself: the capture_scalar_outputs advice


def test_unsafe_fixes_judged_together_are_not_applied_without_the_flag():
    assert _fix(USER, unsafe=False).texts["m.py"] == USER


def _effect(graphs, breaks, skipped=0, tails=0, status="compiled", ops=3):
    return Effect(graphs, breaks, skipped, tails, status, ops)


def _one(line, applicability="safe"):
    return Fix(f"fix {line}", applicability, (Edit(line, 1, line + 1, 1, f"y{line} = {line}\n"),))


TEXT = "".join(f"x{i} = {i}\n" for i in range(1, 9))


def test_together_keeps_the_strictest_applicability_and_only_a_gain():
    worse, better = _effect(1, 2, tails=1, status="tail"), _effect(3, 0)
    predicted = {}

    def predict(path, text, frame):
        predicted[text] = better if "y2" in text and "y5" in text else worse
        return predicted[text]
    joint = together([_one(5, "unsafe"), _one(2)], "m.py", TEXT, "f", predict)
    assert joint is not None and joint.applicability == "unsafe"
    assert [e.line for e in joint.edits] == [2, 5] and joint.effect == (tuple(worse), tuple(better))
    assert "fix 2; fix 5 (the 2 fixes together" in joint.title
    assert together([_one(2), _one(5)], "m.py", TEXT, "f", lambda p, t, f: worse) is None  # no gain together
    assert together([_one(2)], "m.py", TEXT, "f", predict) is None  # one fix: judged alone already
    overlapping = Fix("wide", "safe", (Edit(2, 1, 6, 1, "z = 0\n"),))
    assert together([overlapping, _one(5)], "m.py", TEXT, "f", predict) is None  # one left once overlaps go
    broken = Fix("broken", "safe", (Edit(7, 1, 8, 1, "def (:\n"),))
    assert together([_one(2), broken], "m.py", TEXT, "f", lambda p, t, f: better) is None  # CPython rejects it


def test_the_user_model_measured_under_torch(tmp_path):
    """Before: the forward compiles two graphs and Dynamo skips its resume function (the loop and the
    ``try``); after ``gblint fix --unsafe-fixes``: no skipped frame, one break left (``.item()``, GB0124),
    the same output."""
    pytest.importorskip("torch")
    orig, fixed = tmp_path / "orig", tmp_path / "fixed"
    orig.mkdir()
    fixed.mkdir()
    (orig / "m.py").write_text(USER)
    (fixed / "m.py").write_text(_fix(USER).texts["m.py"])
    before = _measure().measure([str(orig / "m.py")])["programs"]["m.py"]
    after = _measure().measure([str(fixed / "m.py")])["programs"]["m.py"]
    assert [f["function"] for f in before["skipped_frames"]] == ["forward"] and len(before["graphs"]) == 2
    assert after["skipped_frames"] == [] and [b["gb_id"] for b in after["breaks"]] == ["GB0124"]
    assert sum(after["graphs"]) > sum(before["graphs"])  # more of the forward's ops compiled
    (o, _), (f, _) = _observe(str(orig), ["m.py"])["m.py"], _observe(str(fixed), ["m.py"])["m.py"]
    assert o["error"] is None and f["error"] is None and o["outputs"] == f["outputs"] and o["outputs"]


MODULE_WIDE = textwrap.dedent("""\
    import torch


    @torch.compile(backend="eager")
    def logs(x):
        h = x * 2
        print("mid")
        return h + 1


    @torch.compile(backend="eager")
    def start_then_return_in_try(x):
        h = x * 2
        print("start")
        try:
            return h.sum().item()
        except RuntimeError:
            return 0.0
    """)


def test_a_config_line_that_makes_another_region_worse_is_not_offered():
    """Listing ``print`` as reorderable (one line for the whole module) removes the break in ``logs`` but makes
    the ``try`` the first break of the other function, which Dynamo then skips whole (measured by a helper on
    torch 2.13: 1 graph -> 0): judged on every region of the file, the config line is advice only and the
    print in ``logs`` is guarded instead (a change local to its frame)."""
    diags = check_sources([SourceFile("m.py", MODULE_WIDE)], Settings(python_version=(3, 11))).diagnostics
    fixes = {d.line: d.fix for d in diags if d.fix is not None}
    assert fixes[7].applicability == "unsafe" and fixes[7].title.startswith("Guard `print(...)`")
    assert fixes[14].applicability == "display-only"
    new = _fix(MODULE_WIDE).texts["m.py"]
    assert "reorderable_logging_functions" not in new and new.count("is_compiling") == 1
    after = check_sources([SourceFile("m.py", new)], Settings(python_version=(3, 11))).diagnostics
    # the other function is as it was: its print still breaks, and only its resume function is skipped
    assert [(d.code, d.frame) for d in after] == [("GBL107", "start_then_return_in_try"),
                                                   ("GBL202", "start_then_return_in_try")]
    assert "resumed at line" in after[1].message


def test_a_skipped_resume_function_counts_as_a_skipped_frame_in_a_fix_prediction():
    """Unrolling a loop whose break skips the resume function removes that skipped frame (a gain); before, the
    prediction saw a frame with a compiled prefix both ways and withheld the fix (measured by a helper: 1 -> 4
    graphs, 1 -> 0 skipped frames)."""
    text = textwrap.dedent("""\
        import torch


        @torch.compile
        def f(x):
            h = x * 2
            torch._dynamo.graph_break()
            for i in range(3):
                h = h + i
                torch._dynamo.graph_break()
            return h
        """)
    diags = check_sources([SourceFile("m.py", text)], Settings(python_version=(3, 11))).diagnostics
    loop = [d for d in diags if d.code == "GBL201"]
    assert len(loop) == 1 and loop[0].fix is not None and loop[0].fix.applicability == "safe"
    assert "1 -> 0 skipped frames" in loop[0].fix.title


TWO_LOOPS = textwrap.dedent("""\
    import torch


    @torch.compile(backend="eager")
    def f(x, xs):
        for v in xs:
            x = x + v
            print(v)
        for v in xs:
            x = x * v
            print(v)
        return x


    def main():
        return f(torch.ones(3), [torch.ones(3), torch.ones(3)])


    if __name__ == "__main__":
        main()
    """)


def test_every_skip_reason_of_a_frame_is_fixed_together(tmp_path):
    """A ``print`` in each of two loops: Dynamo skips ``f`` at the first; the second is a further reason
    (:mod:`gblint.dynamo.further`), so the two guards are judged together and gain (before, only the first was reported
    and its guard alone, no gain, was not applied). Measured: 0 graphs and the frame skipped before, 1 graph and
    no break after, the same output."""
    diags = check_sources([SourceFile("m.py", TWO_LOOPS)], Settings(python_version=(3, 11))).diagnostics
    assert [(d.line, "another reason" in d.message) for d in diags] == [(8, False), (11, True)]
    assert all(d.fix is not None and d.fix.applicability == "unsafe" and "2 fixes together" in d.fix.title
               for d in diags)
    assert _fix(TWO_LOOPS, unsafe=False).texts["m.py"] == TWO_LOOPS
    new = _fix(TWO_LOOPS).texts["m.py"]
    assert new.count("if not torch.compiler.is_compiling():") == 2
    pytest.importorskip("torch")
    orig, fixed = tmp_path / "orig", tmp_path / "fixed"
    orig.mkdir()
    fixed.mkdir()
    (orig / "m.py").write_text(TWO_LOOPS)
    (fixed / "m.py").write_text(new)
    before = _measure().measure([str(orig / "m.py")])["programs"]["m.py"]
    after = _measure().measure([str(fixed / "m.py")])["programs"]["m.py"]
    assert [f["function"] for f in before["skipped_frames"]] == ["f"] and before["graphs"] == []
    assert after["skipped_frames"] == [] and after["breaks"] == [] and len(after["graphs"]) == 1
    (o, _), (g, _) = _observe(str(orig), ["m.py"])["m.py"], _observe(str(fixed), ["m.py"])["m.py"]
    assert o["error"] is None and g["error"] is None and o["outputs"] == g["outputs"] and o["outputs"]
