"""Known values the program changes after it builds them (issue 15): a config attribute or a
module's attribute assigned from outside its class (``cfg.use_cache = True``, in a helper
``enable(cfg)``, ``setattr(cfg, "use_cache", True)``, ``model.flag = True``), a method that sets
it called on the built module (``model.enable()``), a module global rebound in a function
(``global DEBUG``) and a function's defaults replaced (``f.__defaults__``). Each such branch is
conditional; with the change left out (the lines marked ``# change: CONDITION``) the class's own value
decides it and nothing is reported. Under Dynamo (``backend="eager"``, torch 2.13) the program
breaks at every one of those lines: a branch decided from the value the class sets would have
dropped a break the run really hits."""
import json
import sys
import textwrap

import pytest

from .conftest import run_cli

PROGRAM = '''
import torch
import torch.nn as nn

DEBUG = False


class Config:
    def __init__(self, use_cache=False, verbose=False, tag=False):
        self.use_cache = use_cache
        self.verbose = verbose
        self.tag = tag


class Net(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.flag = False
        self.debug = False

    def enable(self):
        self.debug = True

    def forward(self, x):
        if self.config.use_cache:
            print("use_cache")  # when `self.config.use_cache`
        if self.config.verbose:
            print("verbose")  # when `self.config.verbose`
        if self.config.tag:
            print("tag")  # when `self.config.tag`
        if self.flag:
            print("flag")  # when `self.flag`
        if self.debug:
            print("debug")  # when `self.debug`
        if DEBUG:
            print("DEBUG")  # when `DEBUG`
        return x + 1


def scaled(x, loud=False):
    if loud:
        print("loud")  # when `loud`
    return x * 2


def enable(config):
    config.verbose = True  # change: when `self.config.verbose`
    return config


def setup():
    global DEBUG
    DEBUG = True  # change: when `DEBUG`


cfg = Config()
cfg.use_cache = True  # change: when `self.config.use_cache`
enable(cfg)  # change: when `self.config.verbose`
setattr(cfg, "tag", True)  # change: when `self.config.tag`
model = Net(cfg)
model.flag = True  # change: when `self.flag`
model.enable()  # change: when `self.debug`
setup()  # change: when `DEBUG`
scaled.__defaults__ = (True,)  # change: when `loud`
compiled = torch.compile(model)
compiled(torch.randn(2))
opt = torch.compile(scaled)
opt(torch.randn(2))
'''

LINES = PROGRAM.strip("\n").split("\n")
EXPECTED = sorted((i + 1, "GBL107", "conditional", line.split("# ", 1)[1])
                  for i, line in enumerate(LINES) if "# when" in line)


def check(tmp_path, source):
    (tmp_path / "m.py").write_text(source)
    proc = run_cli("check", "--isolated", "--no-cache", "--format", "json", "--exit-zero", "m.py", cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    return sorted((d["line"], d["code"], d["certainty"], d["condition"]) for d in json.loads(proc.stdout)["diagnostics"])


def test_every_value_changed_after_it_is_built_leaves_its_branch_conditional(tmp_path):
    assert len(EXPECTED) == 7
    assert check(tmp_path, PROGRAM.strip("\n") + "\n") == EXPECTED


def _changed(text):
    return text.split("# change: ", 1)[1] if "# change: " in text else None


@pytest.mark.parametrize("condition", sorted({c for c in map(_changed, LINES) if c}))
def test_each_change_alone_makes_only_its_branch_conditional(tmp_path, condition):
    kept = [text for text in LINES if _changed(text) in (None, condition)]
    assert [d for d in check(tmp_path, "\n".join(kept) + "\n")] == [e for e in EXPECTED if e[3] == condition]


def test_without_the_changes_the_class_s_own_values_decide(tmp_path):
    kept = [text for text in LINES if _changed(text) is None]
    assert check(tmp_path, "\n".join(kept) + "\n") == []


def test_runtime_breaks_at_every_changed_branch(tmp_path):
    """Dynamo hits each break the class's own values would have ruled out."""
    pytest.importorskip("torch")
    (tmp_path / "m.py").write_text(PROGRAM.strip("\n") + "\n")
    proc = run_cli("confirm", "--isolated", "--backend", "eager", "--format", "json", "--run", "--", sys.executable,
                   "m.py", cwd=str(tmp_path))
    assert proc.returncode in (0, 1), proc.stderr
    runs = json.loads(proc.stdout)["runs"]
    observed = {b["stack"][-1]["line"] for run in runs for b in run["breaks"] if b["stack"]}
    assert observed == {line for line, _, _, _ in EXPECTED}


def test_a_store_in_code_nothing_calls_changes_nothing(tmp_path):
    """A helper that would change the config, or a method that would change the module, is
    defined but never called (a library's ``enable_gradient_checkpointing``): the class's own
    values still decide. Called, each one leaves its branch conditional."""
    never = [text for text in LINES if _changed(text) is None or not text.startswith(("enable(", "model.enable(",
                                                                                         "setup("))]
    never = [text for text in never if not text.startswith(("cfg.use_cache", "setattr(", "model.flag",
                                                            "scaled.__defaults__"))]
    assert check(tmp_path, "\n".join(never) + "\n") == []


HANDED = '''
import functools

import torch


class Cfg:
    def __init__(self):
        self.debug = False


CFG = Cfg()
HOOKS = []


def f(x):
    if CFG.debug:
        print("debug")
    return x + 1


def enable():
    CFG.debug = True


def register(fn):
    HOOKS.append(fn)
    return fn


@register
def enable_hooked():
    CFG.debug = True


def run_all(*fns):
    for fn in fns:
        fn()


def main():
    {call}
    torch.compile(f, backend="eager")(torch.ones(2))


main()
'''


@pytest.mark.parametrize("call", ["run_all(enable)", "functools.partial(enable)()", "[h() for h in HOOKS]",
                                  "table = {'on': enable}\n    table['on']()"])
def test_a_store_in_a_function_used_as_a_value_may_run(tmp_path, call):
    """A function handed to a call, wrapped in a ``partial``, registered by a decorator or kept in
    a table is called by code gblint does not name: its store may run, so the branch on it stays
    conditional (each of these breaks under Dynamo: the runtime test below)."""
    found = check(tmp_path, HANDED.replace("{call}", call))
    assert [(code, certainty, condition) for _, code, certainty, condition in found] == [
        ("GBL107", "conditional", "when `CFG.debug`")]


def test_runtime_breaks_when_a_handed_function_stores(tmp_path):
    pytest.importorskip("torch")
    (tmp_path / "m.py").write_text(HANDED.replace("{call}", "run_all(enable)"))
    proc = run_cli("confirm", "--isolated", "--backend", "eager", "--format", "json", "--run", "--", sys.executable,
                   "m.py", cwd=str(tmp_path))
    assert proc.returncode in (0, 1), proc.stderr
    runs = json.loads(proc.stdout)["runs"]
    assert [b["stack"][-1]["line"] for run in runs for b in run["breaks"]] == [
        HANDED.split("\n").index('        print("debug")') + 1]
