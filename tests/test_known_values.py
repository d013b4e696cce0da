"""Values known before the run that come from outside the compiled function (issue 15): the
mode the code sets on the compiled module (``self.training``), the dtype of tensors made without
one (float32, torch's default), the defaults a config class sets, and the arguments a
``model.compile()``'d module is called with. Each kind has a must-report and a must-not-report
program, and the condition text of what stays undecided. What each program does under Dynamo
was run with ``backend="eager"`` on torch 2.13 (``test_runtime_agrees`` repeats it when torch is
installed)."""
import json
import sys
import textwrap

import pytest

from .conftest import run_cli

MODES = """
import torch
import torch.nn as nn


class Block(nn.Module):
    def forward(self, x):
        if not self.training:
            print("eval")
        return x


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x):
        if self.training:
            print("train")
        return self.block(x)


{driver}
compiled(torch.randn(2))
"""
TRAIN = (20, "GBL107", "definite", None)
# a mode the code does not set: each branch is a break in that mode (a model runs in both)
BOTH = [(9, "GBL301", "conditional", "in eval mode"), (20, "GBL107", "conditional", "in training mode")]
EVAL = (9, "GBL301", "definite", None)


def check(tmp_path, source, *options):
    (tmp_path / "m.py").write_text(textwrap.dedent(source))
    proc = run_cli("check", "--isolated", "--no-cache", "--format", "json", "--exit-zero", *options, "m.py",
                   cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    return sorted((d["line"], d["code"], d["certainty"], d["condition"]) for d in json.loads(proc.stdout)["diagnostics"])


MODE_CASES = [
    ("model = Net()\nmodel.eval()\ncompiled = torch.compile(model)", [EVAL]),
    ("compiled = torch.compile(Net().eval())", [EVAL]),
    ("compiled = torch.compile(Net().to('cpu').eval())", [EVAL]),
    ("model = Net().train()\ncompiled = torch.compile(model)", [TRAIN]),
    ("model = Net()\nmodel.train(False)\ncompiled = torch.compile(model)", [EVAL]),
    # the compiled object hands .eval() to the module it wraps
    ("compiled = torch.compile(Net())\ncompiled.eval()", [EVAL]),
    ("model = Net()\nmodel.compile()\nmodel.eval()\nmodel(torch.randn(2))\ncompiled = torch.compile(Net().eval())",
     [EVAL]),
    # both modes set (a training loop and an evaluation), or none: each branch stays conditional
    ("model = Net()\ncompiled = torch.compile(model)\nmodel.train()\ncompiled.eval()",
     BOTH),
    ("compiled = torch.compile(Net())",
     BOTH),
    # the mode may be set where gblint does not follow it: in a function the module is handed to,
    # through another name, by assigning `training`, on a submodule alone, or on an earlier object
    # of the same name; each stays conditional (measured: each breaks where the mode says)
    ("def set_mode(m, on):\n    m.train(on)\nmodel = Net()\nmodel.eval()\nset_mode(model, True)\n"
     "compiled = torch.compile(model)", BOTH),
    ("model = Net()\nmodel.eval()\nm = model\nm.train()\ncompiled = torch.compile(model)", BOTH),
    ("model = Net()\nmodel.eval()\nmodel.training = True\ncompiled = torch.compile(model)", BOTH),
    ("model = Net()\nmodel.eval()\nmodel.block.train()\ncompiled = torch.compile(model)", BOTH),
    ("model = Net()\nmodel.eval()\nmodel = Net()\ncompiled = torch.compile(model)", BOTH),
    # a mode not known before the run
    ("import sys\nmodel = Net()\nmodel.train(len(sys.argv) > 1)\ncompiled = torch.compile(model)",
     BOTH),
]


@pytest.mark.parametrize("driver, expected", MODE_CASES)
def test_the_mode_the_code_sets_decides_self_training(tmp_path, driver, expected):
    assert check(tmp_path, MODES.format(driver=driver)) == expected


HELPER_MODE = """
import torch
import torch.nn as nn


class Helper:
    def __init__(self):
        self.training = True

    def __call__(self, h):
        if self.training:
            print("helper")
        return h


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.helper = Helper()

    def forward(self, x):
        return self.helper(x)


model = Net()
model.eval()
torch.compile(model)(torch.randn(2))
"""


def test_a_plain_class_s_training_attribute_is_not_the_module_s_mode(tmp_path):
    assert check(tmp_path, HELPER_MODE) == [(12, "GBL301", "conditional", "when `self.training`")]


DTYPES = """
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        h = self.proj(x)
        if h.dtype == torch.float16 and not torch.isfinite(h).all():
            print("overflow")
        if x.dtype is torch.half:
            print("half input")
        return h


{setup}compiled = torch.compile(Net())
compiled({input})
"""


DTYPE_CASES = [
    # made without a dtype: float32, so neither float16 test holds (and torch.isfinite(h).all() is never evaluated)
    ("", "torch.randn(2, 4)", []),
    ("", "torch.zeros(2, 4, dtype=torch.float32)", []),
    # a float16 input: the layer's output is float16 too
    ("", "torch.randn(2, 4, dtype=torch.float16)",
     [(13, "GBL105", "definite", None), (14, "GBL107", "conditional",
                                         "when `h.dtype == torch.float16 and not torch.isfinite(h).all()`"),
      (16, "GBL107", "definite", None)]),
    # a dtype not known before the run
    ("import sys\nd = getattr(torch, sys.argv[1])\n", "torch.randn(2, 4, dtype=d)",
     [(13, "GBL105", "conditional", "when `h.dtype == torch.float16`"),
      (14, "GBL107", "conditional", "when `h.dtype == torch.float16 and not torch.isfinite(h).all()`"),
      (16, "GBL107", "conditional", "when `x.dtype is torch.half`")]),
    # the program changes the default dtype: a factory's dtype is not known
    ("torch.set_default_dtype(torch.float16)\n", "torch.randn(2, 4)",
     [(13, "GBL105", "conditional", "when `h.dtype == torch.float16`"),
      (14, "GBL107", "conditional", "when `h.dtype == torch.float16 and not torch.isfinite(h).all()`"),
      (16, "GBL107", "conditional", "when `x.dtype is torch.half`")]),
]


@pytest.mark.parametrize("setup, input, expected", DTYPE_CASES)
def test_the_default_dtype_decides_dtype_tests(tmp_path, setup, input, expected):
    assert check(tmp_path, DTYPES.format(setup=setup, input=input)) == expected


def test_under_autocast_a_layer_s_output_dtype_is_not_known(tmp_path):
    # autocast makes Linear compute in bfloat16 whatever its input: the dtype test is undecided
    source = DTYPES.format(setup="", input="torch.randn(2, 4)").replace(
        "compiled(torch.randn(2, 4))", "with torch.autocast('cpu', dtype=torch.bfloat16):\n    compiled(torch.randn(2, 4))")
    assert check(tmp_path, source) == [
        (13, "GBL105", "conditional", "when `h.dtype == torch.float16`"),
        (14, "GBL107", "conditional", "when `h.dtype == torch.float16 and not torch.isfinite(h).all()`"),
        (16, "GBL107", "conditional", "when `x.dtype is torch.half`")]


CONFIG = """
import dataclasses
import torch
import torch.nn as nn


class Config:
    def __init__(self, use_cache=False, **kwargs):
        self.use_cache = use_cache


@dataclasses.dataclass
class FieldConfig:
    use_cache: bool = False


class Net(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.cached = config.use_cache

    def forward(self, x):
        if self.config.use_cache:
            print("cache")
        if not self.cached:
            print("no cache")
        return x


compiled = torch.compile({model})
compiled(torch.randn(2))
"""


CONFIG_CASES = [
    ("Net(Config())", [(27, "GBL107", "definite", None)]),
    ("Net(Config(use_cache=True))", [(25, "GBL107", "definite", None)]),
    ("Net(Config(other=1))", [(27, "GBL107", "definite", None)]),
    ("Net(FieldConfig())", [(27, "GBL107", "definite", None)]),
    ("Net(FieldConfig(True))", [(25, "GBL107", "definite", None)]),
    ("Net(Config(use_cache=len(__import__('sys').argv) > 1))",
     [(25, "GBL107", "conditional", "when `self.config.use_cache`"),
      (27, "GBL107", "conditional", "when `not self.cached`")]),
]


@pytest.mark.parametrize("model, expected", CONFIG_CASES)
def test_the_defaults_a_config_class_sets_decide_branches(tmp_path, model, expected):
    assert check(tmp_path, CONFIG.format(model=model)) == expected


COMPILE_METHOD = """
import torch
import torch.nn as nn


class Net(nn.Module):
    def forward(self, x, mask=None, scale=1.0):
        if mask is not None:
            print("mask")
        if scale != 1.0:
            print("scale")
        return x


model = Net()
model.compile()
{call}
"""


COMPILE_METHOD_CASES = [
    ("model(torch.randn(2))", []),
    ("model(torch.randn(2), None, 2.0)", [(11, "GBL107", "definite", None)]),
    ("model(torch.randn(2), torch.ones(2))", [(9, "GBL107", "definite", None)]),
    ("model(torch.randn(2), scale=1.0)", []),
    # the compiled model called in place: torch.compile(model)(x)
    ("torch.compile(Net())(torch.randn(2), torch.ones(2))", [(9, "GBL107", "conditional", "when `mask is not None`"),
                                                          (11, "GBL107", "conditional", "when `scale != 1.0`")]),
]


@pytest.mark.parametrize("call, expected", COMPILE_METHOD_CASES)
def test_a_compiled_module_s_positional_inputs_decide_branches(tmp_path, call, expected):
    assert check(tmp_path, COMPILE_METHOD.format(call=call)) == expected


# Every program above whose expected diagnostics are all definite: run, it breaks at exactly those lines
MEASURED = [(MODES.format(driver=d), e) for d, e in MODE_CASES] + \
    [(DTYPES.format(setup=s, input=i), e) for s, i, e in DTYPE_CASES] + \
    [(CONFIG.format(model=m), e) for m, e in CONFIG_CASES] + \
    [(COMPILE_METHOD.format(call=c), e) for c, e in COMPILE_METHOD_CASES]
MEASURED = [(source, expected) for source, expected in MEASURED
            if all(certainty == "definite" for _, _, certainty, _ in expected)]


@pytest.mark.parametrize("source, expected", MEASURED)
def test_runtime_breaks_where_predicted(tmp_path, source, expected):
    """Dynamo (``backend="eager"``) breaks graphs at exactly the predicted lines: a branch
    decided false is never traced, one decided true always is."""
    pytest.importorskip("torch")
    (tmp_path / "m.py").write_text(textwrap.dedent(source))
    proc = run_cli("confirm", "--isolated", "--backend", "eager", "--format", "json", "--run", "--", sys.executable,
                   "m.py", cwd=str(tmp_path))
    assert proc.returncode in (0, 1), proc.stderr
    runs = json.loads(proc.stdout)["runs"]
    observed = {b["stack"][-1]["line"] for run in runs for b in run["breaks"] if b["stack"]}
    assert observed == {line for line, _, _, _ in expected}
