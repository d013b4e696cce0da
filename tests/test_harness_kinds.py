"""gblint's predictions against what PyTorch did with the programs of tests/cases/harness.

Each program there reduces one fault kind the ecosystem harness (bench/ecosystem) found on a real
package (torchsde, torchmetrics, gpytorch) to a small program of torch and the standard library with
a ``main()``; tests/cases/harness/README.md says where each was found. ``observed.json`` is what torch
2.13.0 on Python 3.11 (eager backend, CPU) did with them, written by
``python3 scripts/measure_fixtures.py --folder tests/cases/harness``.

Each program is compared exactly as tests/test_measured.py compares its programs (its
:func:`~tests.test_measured.differences`: break sites, skipped frames, compile errors and GB ids).
``KNOWN`` holds today's difference of each program and its fault kind; the test fails when a difference
appears, changes or goes away, so that a fix updates the table (and removes the entry once gblint
agrees).
"""
import json
import os

import pytest

from .conftest import ROOT
from .folder_programs import predictions
from .test_measured import differences

HARNESS = os.path.join(ROOT, "tests", "cases", "harness")
OBSERVED = os.path.join(HARNESS, "observed.json")
with open(OBSERVED, encoding="utf-8") as _fh:
    DOC = json.load(_fh)
FILES = sorted(n for n in os.listdir(HARNESS) if n.endswith(".py"))

#: program -> (its difference today, as :func:`differences` reports it; the fault kind and where it was found)
KNOWN = {
    "h03_tensor_arg_compared_in_helper.py": (
        {"missed break sites": [6]},
        "a constructor/helper compares two 0-d tensors it receives as arguments (`if start > end: raise`, GB0170) "
        "but never uses them in a tensor op, and gblint does not carry the arguments' tensor kind into the "
        "comparison (torchsde: _brownian/brownian_interval.py:470)."),
    "h06_all_genexpr_equal.py": (
        {"missed break sites": [17]},
        "`all(torch.equal(a, b) for a, b in zip(...))` breaks inside the generator (GB0033) and Dynamo then "
        "cannot reconstruct the generator (GB8335 Generator reconstruction with mutations): `forward` is skipped; "
        "gblint reports the skip at the generator's line, not Dynamo's GB8335 at the line of the call that "
        "consumes it (gpytorch: models/exact_gp.py:277-278)."),
    "h07_module_built_in_region.py": (
        {"missed break sites": [26], "missed skipped frames": ["__init__"]},
        "a module class whose own `__init__` makes an `nn.Parameter`, built in the region: the break in `__init__` "
        "(GB0264) is predicted, but `__init__`, compiled alone after it, is skipped at `super().__init__()` "
        "(GB0119, Uninitialized nn.Module), which gblint does not model (torchdiffeq/torchsde build parameterless "
        "modules in the region, which gblint no longer reports)."),
}


def predicted():
    """gblint's JSON diagnostics for the programs of the folder, by file name (torch 2.13.0, Python 3.11)."""
    return predictions(HARNESS)


def test_every_program_is_measured():
    """observed.json holds exactly the programs of the folder, each run to the end of main(), measured on torch
    2.13 and Python 3.11 with the eager backend; every program has a KNOWN entry or agrees with gblint."""
    assert FILES, "no programs in tests/cases/harness"
    assert sorted(DOC["programs"]) == FILES, "re-run scripts/measure_fixtures.py --folder tests/cases/harness"
    assert DOC["meta"]["torch"].startswith("2.13.") and DOC["meta"]["python"].startswith("3.11.")
    assert DOC["meta"]["backend"] == "eager"
    assert [n for n, obs in DOC["programs"].items() if obs["exception"] is not None] == []
    assert set(KNOWN) <= set(FILES)
    for name in FILES:
        got = differences(name, predicted()[name], DOC["programs"][name])
        assert name in KNOWN or got == {}, f"{name} differs from the runtime and has no KNOWN entry: {got}"
        assert name not in KNOWN or KNOWN[name][1], name


@pytest.mark.parametrize("name", FILES)
def test_difference_is_known(name):
    """The difference between gblint and the runtime is exactly KNOWN's, or none for a program not in KNOWN."""
    assert name in DOC["programs"], f"{name} has no observation: re-run scripts/measure_fixtures.py"
    got = differences(name, predicted()[name], DOC["programs"][name])
    if name in KNOWN:
        want, kind = KNOWN[name]
        assert got == want, f"the known difference of {name} changed ({kind}); update KNOWN: {got}"
    else:
        assert got == {}, f"gblint and the runtime differ on {name}: {got}"
