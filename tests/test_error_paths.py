"""Error paths: code that runs only when an exception is raised (a branch that raises, an
``except`` body) is not reported by default, because Dynamo traces only the branch the values
take and a normal run takes neither. ``--error-paths`` / ``report-error-paths = true`` report
it. A ``raise`` is reported only where the values gblint knows make it run: a call in the
program whose arguments make the test true (tests/cases/examples/071_uncaught_raise.py)."""
import json

import pytest

from .conftest import run_cli

CALLEE_VALIDATES = '''\
import logging
import torch

logger = logging.getLogger(__name__)


def check(x, mask):
    if mask is not None and mask.dim() != 2:
        logger.warning("bad mask %s", mask.shape)
        print("mask", mask)
        raise ValueError("mask must be 2-D")
    return x


@torch.compile
def f(x, mask=None):
    x = check(x, mask)
    return x * 2
'''

HANDLER = '''\
import torch


@torch.compile
def f(x):
    try:
        y = x.sin()
    except RuntimeError as exc:
        print("failed", exc)
        raise
    return y
'''

ALWAYS = '''\
import torch


@torch.compile
def f(x):
    print(x)
    return x
'''


def codes(tmp_path, source, *options):
    (tmp_path / "m.py").write_text(source)
    proc = run_cli("check", "--isolated", "--no-cache", "--format", "json", "--exit-zero", *options, "m.py",
                   cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    return sorted((d["line"], d["code"]) for d in json.loads(proc.stdout)["diagnostics"])


def test_breaks_in_a_branch_that_raises_are_not_reported_by_default(tmp_path):
    assert codes(tmp_path, CALLEE_VALIDATES) == []
    reported = codes(tmp_path, CALLEE_VALIDATES, "--error-paths")
    assert (10, "GBL301") in reported  # the print, nested under f


def test_an_except_body_is_an_error_path(tmp_path):
    assert codes(tmp_path, HANDLER) == []
    assert any(code in ("GBL202", "GBL301", "GBL107") for _, code in codes(tmp_path, HANDLER, "--error-paths"))


def test_the_configuration_turns_error_paths_on(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.gblint]\nreport-error-paths = true\n")
    (tmp_path / "m.py").write_text(CALLEE_VALIDATES)
    proc = run_cli("check", "--no-cache", "--format", "json", "--exit-zero", "m.py", cwd=str(tmp_path))
    assert any(d["code"] == "GBL301" for d in json.loads(proc.stdout)["diagnostics"])


@pytest.mark.parametrize("source,expected", [(ALWAYS, [(6, "GBL107")])])
def test_breaks_on_the_normal_path_are_still_reported(tmp_path, source, expected):
    assert codes(tmp_path, source) == expected


RAISES_ON_NEGATIVE = ("import torch\n\n\n@torch.compile\ndef f(x, limit):\n    x = x * 2\n    if limit < 0:\n"
                      "        raise ValueError('negative')\n    return x.clamp(max=limit)\n")


def test_the_compiled_function_s_own_validation_raise_is_an_error_path(tmp_path):
    # no call gblint sees tells whether `limit < 0`: a validation path a normal call does not take
    assert codes(tmp_path, RAISES_ON_NEGATIVE) == []
    assert codes(tmp_path, RAISES_ON_NEGATIVE, "--error-paths") == [(8, "GBL124")]


@pytest.mark.parametrize("call, expected", [("f(torch.ones(2), -1.0)", [(8, "GBL124", "definite")]),
                                            ("f(torch.ones(2), 1.0)", []),
                                            ("f(torch.ones(2), limit=-2)", [(8, "GBL124", "definite")])])
def test_a_raise_the_program_s_own_call_makes_happen_is_reported(tmp_path, call, expected):
    # tests/cases/examples/071_uncaught_raise.py: main() calls the compiled function with values that raise
    src = RAISES_ON_NEGATIVE + f"\n\ndef main():\n    try:\n        {call}\n    except ValueError:\n        pass\n"
    (tmp_path / "m.py").write_text(src)
    proc = run_cli("check", "--isolated", "--no-cache", "--format", "json", "m.py", cwd=tmp_path)
    found = [(d["line"], d["code"], d["certainty"]) for d in json.loads(proc.stdout)["diagnostics"]]
    assert found == expected


def test_a_callee_that_raises_is_an_error_path_for_its_caller(tmp_path):
    # torch_geometric's stubs (`def fill_diag(*a): raise ImportError(...)`) and the like: a model
    # that runs does not raise out of the compiled call, so a callee's `raise` is not its cost
    src = ("import torch\n\n\ndef needs_extension(x):\n    raise ImportError('needs torch-sparse')\n\n\n"
           "@torch.compile\ndef f(x, sparse):\n    x = x + 1\n    if sparse:\n        x = needs_extension(x)\n"
           "    return x * 2\n")
    assert codes(tmp_path, src) == []
    found = codes(tmp_path, src, "--error-paths")  # f skipped, and the callee when run as its own frame
    assert found and set(found) == {(5, "GBL124")}
