"""An honest all-clear: "All checks passed" only when something was checked, completely.

``gblint check`` says "All checks passed" only when at least one compiled region was found and
every call in it was followed (JSON ``coverage.complete``); otherwise its summary says what was
not checked: no compiled region (with ``--entry`` to name one), or the calls not followed, those
whose target is known only at run time first. flake8 and the editor say the same as the notes
``GBL005`` (a torch file no region reaches) and ``GBL006`` (a call not followed). A method of a
tensor or of a builtin value is torch's or Python's own call, never one "not followed"."""
import json
import subprocess
import sys
import textwrap

import pytest

from gblint.settings.config import Settings
from gblint.project.engine import SourceFile, check_sources

from .conftest import run_cli

# a model file: torch, an nn.Module, but nothing compiled
NO_REGION = textwrap.dedent("""\
    import torch
    import torch.nn as nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 8)

        def forward(self, x):
            return self.fc(x).relu()
    """)

# a region whose layer is handed in from outside: what `self.act(...)` runs is known only at run time
UNDECIDED = textwrap.dedent("""\
    import torch
    import torch.nn as nn
    from somepkg import helper


    class Net(nn.Module):
        def __init__(self, act):
            super().__init__()
            self.fc = nn.Linear(8, 8)
            self.act = act

        def forward(self, x):
            y = helper(self.fc(x))
            return self.act(y)


    def build(act):
        return torch.compile(Net(act))
    """)
UNDECIDED_LINE, UNDECIDED_COLUMN = 14, 16  # `self.act(y)`

# regions whose every call is followed, or is a method of a tensor or of a builtin value: a layer of
# a decorated method, a registered buffer and what its methods make, tensors in a list, a string
CLEAN = textwrap.dedent("""\
    import torch
    import torch.nn as nn


    class Attention(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.qkv = nn.Linear(dim, 3 * dim)
            self.register_buffer("mask", torch.tril(torch.ones(8, 8)))

        @torch.compile
        def forward(self, x):
            b, t, c = x.size()
            q, k, v = self.qkv(x).chunk(3, dim=-1)
            q = q.view(b, t, c)
            k = k.transpose(1, 2)
            m = self.mask[:t, :t].bool()
            w = (q @ k).masked_fill(~m, 0.0).softmax(-1)
            return w.sum() + m.sum()


    def framework(x):
        return str(type(x)).startswith("<class 'torch.")


    @torch.compile
    def pool(feats):
        out = torch.zeros_like(feats[0])
        for f in feats:
            out = out + f.abs()
        if framework(out):
            out = out * 2
        return out


    def main():
        Attention(8)(torch.randn(2, 8, 8))
        pool([torch.randn(3) for _ in range(3)])
    """)

PLAIN = "def add(a, b):\n    return a + b\n"


def check(tmp_path, *args, files=None, name="m.py", text=None):
    if text is not None:
        (tmp_path / name).write_text(text)
    for other, body in (files or {}).items():
        (tmp_path / other).write_text(body)
    return run_cli("check", "--no-cache", "--isolated", *args, cwd=str(tmp_path))


def coverage(tmp_path, *paths):
    proc = check(tmp_path, "--format", "json", *paths)
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)["coverage"]


# ------------------------------------------------------------------ gblint check: text and JSON

@pytest.mark.parametrize("text", [NO_REGION, PLAIN], ids=["model-file", "plain-file"])
def test_no_compiled_region_is_never_all_checks_passed(tmp_path, text):
    proc = check(tmp_path, "m.py", text=text)
    assert proc.returncode == 0, proc.stderr  # nothing reported
    assert "All checks passed" not in proc.stdout and "no graph breaks predicted" not in proc.stdout
    assert proc.stdout == ("No compiled region found in 1 file, so nothing was checked for graph breaks: "
                           "name one with --entry module:function.\n")
    cov = coverage(tmp_path, "m.py")
    assert cov["regions"] == [] and cov["complete"] is False


def test_a_file_that_switches_dynamo_off_at_its_top_says_so(tmp_path):
    """Measured (kinds kd8): ``set_stance("force_eager")`` at a file's top makes what it compiles run eagerly; the
    summary says Dynamo is switched off, not that no region was found, and JSON lists the file."""
    text = ("import torch\ntorch.compiler.set_stance(\"force_eager\")\n\n\n@torch.compile\ndef f(x):\n"
            "    print(x)\n    return x + 1\n\n\nf(torch.ones(2))\n")
    proc = check(tmp_path, "m.py", text=text)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Dynamo is switched off at the top of 1 file"), proc.stdout
    assert "All checks passed" not in proc.stdout and "--entry" not in proc.stdout
    cov = coverage(tmp_path, "m.py")
    assert cov["switched_off"] == ["m.py"] and cov["complete"] is False, cov


def test_naming_the_entry_as_the_summary_says_checks_it(tmp_path):
    """The way out the summary names works: `--entry module:Class` makes the file checked, and passed."""
    proc = check(tmp_path, "--entry", "m:Net", "m.py", text=NO_REGION)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "All checks passed: 1 file, no graph breaks predicted.\n", proc.stdout
    assert coverage(tmp_path, "--entry", "m:Net", "m.py")["complete"] is True


def test_an_undecided_call_target_is_never_all_checks_passed(tmp_path):
    proc = check(tmp_path, "m.py", text=UNDECIDED)
    assert proc.returncode == 0, proc.stderr
    assert "All checks passed" not in proc.stdout
    lines = proc.stdout.splitlines()
    assert lines[0] == "No graph breaks predicted in 1 file, but the analysis is incomplete."
    assert lines[1].startswith("2 calls not followed, 1 of them to a target known only at run time (")
    assert "pass --follow-imports somepkg" in lines[1]
    # the call whose target cannot be decided first, though the package's call comes first in the code
    assert lines[2].startswith(f"  m.py:{UNDECIDED_LINE}: `self.act(...)` in `Net.forward`: ")
    assert "known only when the code runs" in lines[2]
    assert lines[3].startswith("  m.py:13: `helper(...)` in `Net.forward`: package `somepkg` is not followed")
    assert len(lines) == 4
    cov = coverage(tmp_path, "m.py")
    assert cov["complete"] is False
    assert [(u["call"], u["undecided"]) for u in cov["unfollowed"]] == [("helper", False), ("self.act", True)]


NAMED_LIKE_BUILTINS = """import torch


@torch.compile
def f(x, names, act, grid):
    parts = names.split(",")
    rows = grid.hardshrink()
    y = act(x + rows)
    return y * len(parts)
"""


def test_calls_by_the_name_of_a_tensor_or_builtin_method_are_listed_after_the_others(tmp_path):
    """Both receivers' kinds are unknown, so all three calls are listed; `names.split` and `grid.hardshrink` carry the
    type whose method has their name (Python's own `str`, torch's stubbed `Tensor`) and come after `act(...)`,
    the call that may hide a break, though they come first in the code."""
    proc = check(tmp_path, "m.py", text=NAMED_LIKE_BUILTINS)
    assert proc.returncode == 0, proc.stderr
    assert "All checks passed" not in proc.stdout
    lines = proc.stdout.splitlines()
    assert lines[1].startswith("3 calls not followed, 3 of them to a target known only at run time (")
    assert lines[2].startswith("  m.py:8: `act(...)` in `f`: what `act` is depends on values known only")
    assert lines[3].startswith("  m.py:6: `names.split(...)` in `f`: ")
    assert lines[3].endswith("(`split` is also a str method)")
    assert lines[4].startswith("  m.py:7: `grid.hardshrink(...)` in `f`: ")
    assert lines[4].endswith("(`hardshrink` is also a Tensor method)")
    cov = coverage(tmp_path, "m.py")
    assert cov["complete"] is False
    assert [(u["call"], u["undecided"], u["method_of"]) for u in cov["unfollowed"]] == [
        ("names.split", True, "str"), ("grid.hardshrink", True, "Tensor"), ("act", True, "")]


def test_after_diagnostics_the_summary_still_says_incomplete(tmp_path):
    text = UNDECIDED.replace("        return self.act(y)", "        print(y)\n        return self.act(y)")
    proc = check(tmp_path, "m.py", text=text)
    assert proc.returncode == 1
    assert "Found 1 diagnostic" in proc.stdout and "All checks passed" not in proc.stdout
    assert "The analysis is incomplete: 2 calls not followed, 1 of them to a target known only at run time" \
        in proc.stdout


def test_a_region_whose_calls_are_all_followed_passes(tmp_path):
    proc = check(tmp_path, "m.py", text=CLEAN)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "All checks passed: 1 file, no graph breaks predicted.\n", proc.stdout
    cov = coverage(tmp_path, "m.py")
    assert cov["complete"] is True and len(cov["regions"]) == 2


def test_tensor_and_builtin_methods_are_not_calls_not_followed(tmp_path):
    """`q.view`, `k.transpose`, a registered buffer's `.bool()` and what it makes (`m.sum()`), a
    layer of the class of a decorated method, a tensor taken from a list, `str(...).startswith`."""
    (tmp_path / "m.py").write_text(CLEAN)
    cov = coverage(tmp_path, "m.py")
    assert cov["unfollowed"] == []
    functions = {f["function"] for f in cov["functions"]}
    assert {"Attention.forward", "pool", "framework"} <= functions


def test_a_call_on_a_value_of_unknown_kind_is_still_listed(tmp_path):
    """The filter is not a list of names: `.update` of what a caller hands in is a gap, beside the
    tensor methods that are not."""
    (tmp_path / "m.py").write_text(textwrap.dedent("""\
        import torch


        @torch.compile
        def step(x, cache):
            y = x.view(-1).transpose(0, 0)
            cache.update(y)
            return y.sum()
        """))
    cov = coverage(tmp_path, "m.py")
    assert [u["call"] for u in cov["unfollowed"]] == ["cache.update"] and cov["complete"] is False


def test_an_unreadable_file_makes_the_analysis_incomplete(tmp_path):
    (tmp_path / "bad.py").write_text("import torch\ndef f(:\n")
    (tmp_path / "m.py").write_text(CLEAN)
    cov = coverage(tmp_path, "m.py", "bad.py")
    assert cov["unfollowed"] == [] and len(cov["regions"]) == 2 and cov["complete"] is False  # GBL001


# ------------------------------------------------------------------ the notes (engine)

def _notes(text, name="m.py", **settings):
    report = check_sources([SourceFile(name, text)], Settings(cache=False, **settings))
    return [(d.code, d.line, d.column) for d in report.notes], report


def test_the_engine_notes_what_was_not_analysed():
    assert _notes(NO_REGION)[0] == [("GBL005", 1, 1)]
    assert _notes(PLAIN)[0] == []  # no torch: no model file, nothing to say
    assert _notes(CLEAN)[0] == []
    notes, report = _notes(UNDECIDED)
    assert notes == [("GBL006", 13, 13), ("GBL006", UNDECIDED_LINE, UNDECIDED_COLUMN)]
    assert report.diagnostics == [] and not report.complete
    messages = [d.message for d in report.notes]
    assert messages[1] == ("`self.act(...)` not followed: what it runs is known only at run time, so no break "
                           "behind it can be reported")
    assert "pass --follow-imports somepkg" in messages[0]
    assert all(len(m) <= 120 for m in messages)


def test_a_file_reached_from_another_one_gets_no_note():
    caller = "import torch\nfrom model import Net\n\nnet = torch.compile(Net())\n"
    report = check_sources([SourceFile("main.py", caller), SourceFile("model.py", NO_REGION)], Settings(cache=False))
    assert report.notes == [] and report.complete


def test_noqa_silences_a_note_and_is_no_unused_noqa(tmp_path):
    text = UNDECIDED.replace("        return self.act(y)", "        return self.act(y)  # noqa: GBL006")
    notes, report = _notes(text)
    assert notes == [("GBL006", 13, 13)]
    assert [d.code for d in report.diagnostics] == []  # no GBL004: the comment silences something
    notes, _ = _notes(NO_REGION.replace("import torch\n", "import torch  # noqa: GBL005\n", 1))
    assert notes == []


def test_the_notes_are_reported_whatever_the_selection():
    assert _notes(NO_REGION, select=("GBL2",))[0] == [("GBL005", 1, 1)]


# ------------------------------------------------------------------ flake8

def flake8(*args, cwd):
    return subprocess.run([sys.executable, "-m", "flake8", "--select", "GBL", *args], capture_output=True,
                          text=True, cwd=cwd)


def test_flake8_never_shows_an_unchecked_file_as_clean(tmp_path):
    (tmp_path / "model.py").write_text(NO_REGION)
    (tmp_path / "build.py").write_text(UNDECIDED)
    (tmp_path / "clean.py").write_text(CLEAN)
    (tmp_path / "plain.py").write_text(PLAIN)
    proc = flake8("model.py", "build.py", "clean.py", "plain.py", cwd=tmp_path)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 1, proc.stderr
    assert [line.split(" ")[0] + " " + line.split(" ")[1] for line in lines] == [
        "build.py:13:13: GBL006", f"build.py:{UNDECIDED_LINE}:{UNDECIDED_COLUMN}: GBL006", "model.py:1:1: GBL005"]
    assert "no compiled region found" in lines[2] and "--entry module:function" in lines[2]
    assert "known only at run time" in lines[1]


def test_flake8_notes_follow_noqa_and_the_files_given_together(tmp_path):
    caller = "import torch\nfrom model import Net\n\nnet = torch.compile(Net())\n"
    (tmp_path / "main.py").write_text(caller)
    (tmp_path / "model.py").write_text(NO_REGION)
    assert flake8("model.py", cwd=tmp_path).stdout.startswith("model.py:1:1: GBL005 ")  # alone: nothing compiles it
    proc = flake8("main.py", "model.py", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == "", proc.stdout  # checked through main.py's region
    (tmp_path / "model.py").write_text(NO_REGION.replace("import torch\n", "import torch  # noqa: GBL005\n", 1))
    assert flake8("model.py", cwd=tmp_path).returncode == 0
    (tmp_path / "pyproject.toml").write_text('[tool.gblint]\nselect = ["GBL2"]\n')
    (tmp_path / "model.py").write_text(NO_REGION)
    assert "GBL005" in flake8("model.py", cwd=tmp_path).stdout  # reported whatever the table selects


# a layer class picked by a name the caller passes: one of the table's classes, or what `getattr` finds
PICKED = textwrap.dedent("""\
    import torch
    import torch.nn as nn


    class Small(nn.Module):
        def forward(self, x):
            return x * 2


    LAYERS = {"small": Small}


    class Net(nn.Module):
        def __init__(self, kind):
            super().__init__()
            cls = LAYERS.get(kind) or getattr(nn, kind)
            self.layer = cls()

        def forward(self, x):
            return self.layer(x)


    def build(kind):
        return torch.compile(Net(kind))
    """)


def test_a_call_followed_to_only_some_of_its_targets_is_listed(tmp_path):
    """`self.layer(x)` runs `Small.forward` (followed) or a class known only at run time: the
    analysis is incomplete and the call is listed as one whose target is known only at run time."""
    proc = check(tmp_path, "m.py", text=PICKED)
    assert "All checks passed" not in proc.stdout, proc.stdout
    cov = coverage(tmp_path, "m.py")
    assert cov["complete"] is False
    listed = [(u["call"], u["undecided"]) for u in cov["unfollowed"]]
    assert listed == [("self.layer", True)], listed
    assert "in part" in cov["unfollowed"][0]["reason"]
    assert "Small.forward" in {f["function"] for f in cov["functions"]}


# the class builds a torch layer, but the program puts another there before the region runs
REPLACED = textwrap.dedent("""\
    import torch


    class Gate(torch.nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                x = x + 1
            return x


    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = torch.nn.Identity()

        def forward(self, x):
            return self.inner(x) * 2


    def main():
        m = M()
        m.inner = Gate()
        torch.compile(m)(torch.ones(2))
    """)


def test_a_library_layer_the_program_may_replace_is_listed(tmp_path):
    """`self.inner` is the `nn.Identity` the class builds, or what `m.inner = Gate()` stored (a
    break, measured on 2.13): the torch layer the class assigns does not make the call no gap."""
    proc = check(tmp_path, "m.py", text=REPLACED)
    assert "All checks passed" not in proc.stdout, proc.stdout
    cov = coverage(tmp_path, "m.py")
    assert cov["complete"] is False
    assert [(u["call"], u["undecided"]) for u in cov["unfollowed"]] == [("self.inner", True)], cov["unfollowed"]
