"""What a plain run prints of the conditional diagnostics (``--conditional``, ``report-conditional``):
by default those whose break lies in the checked files, not those in a package followed with
``--follow-imports`` (a test on the library's own configuration the user cannot decide there); the
summary says how many were left out, and ``--conditional all`` lists them. Definite diagnostics are
always shown. The programs' breaks are the ones measured for the same kinds in
``tests/fixtures/measured`` (``print`` in the region: GB0025, resumed; a module that makes an
``nn.Parameter``: GB0264)."""
import json
import os
import subprocess
import sys

import pytest

LIBRARY = '''\
import torch


class Block(torch.nn.Module):
    def __init__(self, debug=None):
        super().__init__()
        self.debug = debug

    def forward(self, x):
        if x.dim() > 3:
            print("tracing", x.shape)
        torch._dynamo.graph_break()
        return x * 2
'''

DRIVER = '''\
import torch
from tinylib import Block


def run(x):
    if x.dim() > 3:
        print(x.shape)
    return x


model = torch.compile(Block())
out = model(torch.ones(2))
helper = torch.compile(run)
helper(torch.ones(2))
'''


@pytest.fixture
def project(tmp_path):
    site = tmp_path / "site"
    (site / "tinylib").mkdir(parents=True)
    (site / "tinylib" / "__init__.py").write_text(LIBRARY)
    work = tmp_path / "work"
    work.mkdir()
    (work / "main.py").write_text(DRIVER)
    return str(work), dict(os.environ, PYTHONPATH=str(site))


def _check(project, *args, fmt="json"):
    cwd, env = project
    proc = subprocess.run([sys.executable, "-m", "gblint", "check", "--isolated", "--no-cache", "--format", fmt,
                           "--exit-zero", "--follow-imports", "tinylib", *args, "main.py"],
                          cwd=cwd, capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout) if fmt == "json" else proc.stdout


def _shown(doc):
    return sorted((os.path.basename(d["path"]), d["line"], d["code"], d["certainty"]) for d in doc["diagnostics"]
                  if d["effect"] != "info")


def test_default_hides_conditional_breaks_of_followed_packages(project):
    doc = _check(project)
    shown = _shown(doc)
    assert not any(s[:2] == ("__init__.py", 11) for s in shown)  # `print` under an undecided test in tinylib
    assert ("__init__.py", 12, "GBL101", "definite") in shown  # the graph break every call meets
    assert any(s[:2] == ("main.py", 7) and s[3] == "conditional" for s in shown)  # the checked file's own test
    assert doc["conditional_hidden"] >= 1


def test_all_lists_them_and_none_keeps_only_definite(project):
    every = _shown(_check(project, "--conditional", "all"))
    assert any(s[:2] == ("__init__.py", 11) and s[3] == "conditional" for s in every)
    none = _check(project, "--conditional", "none")
    assert none["diagnostics"] and all(d["certainty"] != "conditional" for d in none["diagnostics"])
    assert ("__init__.py", 12, "GBL101", "definite") in _shown(none)
    assert not any(s[0] == "main.py" for s in _shown(none))
    assert "conditional_hidden" not in _check(project, "--conditional", "all")


def test_text_summary_says_what_was_left_out(project):
    out = _check(project, fmt="text")
    assert "conditional diagnostic" in out and "in followed packages not shown" in out
    assert "`--conditional all` lists them" in out


def test_the_setting_comes_from_pyproject_and_is_validated(project):
    cwd, env = project
    with open(os.path.join(cwd, "pyproject.toml"), "w") as fh:
        fh.write('[tool.gblint]\nreport-conditional = "all"\nfollow-imports = ["tinylib"]\n')
    proc = subprocess.run([sys.executable, "-m", "gblint", "check", "--no-cache", "--format", "json", "--exit-zero",
                           "main.py"], cwd=cwd, capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert any(s[:2] == ("__init__.py", 11) for s in _shown(json.loads(proc.stdout)))
    with open(os.path.join(cwd, "pyproject.toml"), "w") as fh:
        fh.write('[tool.gblint]\nreport-conditional = "some"\n')
    proc = subprocess.run([sys.executable, "-m", "gblint", "check", "--no-cache", "main.py"],
                          cwd=cwd, capture_output=True, text=True, env=env)
    assert proc.returncode == 2 and "report-conditional" in proc.stderr + proc.stdout
    assert "Traceback" not in proc.stderr


MODE_LIBRARY = '''\
import torch


class Head(torch.nn.Module):
    def forward(self, x):
        if self.training:
            print("train step", x.shape)
        if not self.training:
            print("eval step", x.shape)
        return x * 2
'''


@pytest.mark.parametrize("driver, expected", [
    # the driver never sets the mode: each branch breaks in one of the two modes a model runs in
    ("model = torch.compile(Head())", {(7, "in training mode"), (9, "in eval mode")}),
    # the mode the driver sets is a fact: only that branch, definite
    ("model = Head().eval()\nmodel = torch.compile(model)", {(9, None)}),
])
def test_a_break_that_depends_only_on_the_mode_is_shown_in_a_followed_package(tmp_path, driver, expected):
    """A test on ``self.training`` alone is no library configuration: a model runs in training and
    in eval mode, so the break is shown by default with the mode as its condition (GB0025 ``print``,
    measured with the mode in tests/test_known_values.py)."""
    site = tmp_path / "site"
    (site / "modelib").mkdir(parents=True)
    (site / "modelib" / "__init__.py").write_text(MODE_LIBRARY)
    work = tmp_path / "work"
    work.mkdir()
    (work / "main.py").write_text(f"import torch\nfrom modelib import Head\n\n{driver}\nmodel(torch.ones(2))\n")
    proc = subprocess.run([sys.executable, "-m", "gblint", "check", "--isolated", "--no-cache", "--format", "json",
                           "--exit-zero", "--follow-imports", "modelib", "main.py"],
                          cwd=str(work), capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(site)))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    got = {(d["line"], d["condition"]) for d in doc["diagnostics"] if d["effect"] != "info"}
    assert got == expected
    assert all(d["certainty"] == ("conditional" if d["condition"] else "definite") for d in doc["diagnostics"])


EMPTY_LIBRARY = '''\
import torch


def count(index):
    n = int(index.max()) + 1 if index.numel() > 0 else 0
    return n


def deep(x):
    if x.dim() > 3:
        print("4-d input", x.shape)
    return x
'''


def test_a_break_behind_a_test_that_inputs_are_not_empty_is_shown_in_a_followed_package(tmp_path):
    """``index.numel() > 0`` holds for every input but an empty one (Dynamo specializes on the input's shape): the
    break behind it (``int(index.max())``: GB0124, as torch_geometric's ``scatter`` makes on torch 2.13, measured by the
    harness) is shown by default, conditional; a test of another size (``x.dim() > 3``) stays hidden as before."""
    site = tmp_path / "site"
    (site / "emptylib").mkdir(parents=True)
    (site / "emptylib" / "__init__.py").write_text(EMPTY_LIBRARY)
    work = tmp_path / "work"
    work.mkdir()
    (work / "main.py").write_text("import torch\nfrom emptylib import count, deep\n\n\n@torch.compile\n"
                                  "def f(x, index):\n    return deep(x) * count(index)\n\n\n"
                                  "f(torch.randn(2, 3), torch.tensor([0, 1]))\n")
    proc = subprocess.run([sys.executable, "-m", "gblint", "check", "--isolated", "--no-cache", "--format", "json",
                           "--exit-zero", "--follow-imports", "emptylib", "main.py"],
                          cwd=str(work), capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(site)))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    got = [(d["line"], d["certainty"], d["condition"]) for d in doc["diagnostics"] if d["effect"] != "info"]
    assert got == [(5, "conditional", "when `index.numel() > 0` (true for inputs that are not empty)")], got
