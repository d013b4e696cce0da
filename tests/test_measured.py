"""Programs written beyond the public cases and run under torch 2.13 (eager backend) with
`gblint confirm`; their observed breaks and skips were checked by hand against these
predictions (tests/fixtures/measured/expected.json). Notable measurements encoded here:
`.item()`/`int(t)` under fullgraph=True are captured symbolically (no error) while a branch
on them fails; `@error_on_graph_break(True)` on the compiled function itself raises; a
`print` inside a generator consumed by a `for` loop skips the consumer; a callee's `try` after
two ops compiles a prefix."""
import json
import os

import pytest

from gblint.config import Settings
from gblint.engine import check_paths

from .conftest import ROOT

MEASURED = os.path.join(ROOT, "tests", "fixtures", "measured")
with open(os.path.join(MEASURED, "expected.json")) as fh:
    EXPECTED = json.load(fh)


@pytest.fixture(scope="module")
def predicted():
    report = check_paths([MEASURED], Settings(python_version=(3, 11)))
    out = {name: [] for name in EXPECTED}
    for d in report.diagnostics:
        out[os.path.basename(d.path)].append([d.code, d.line, d.effect, d.frame])
    return {k: sorted(v) for k, v in out.items()}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_measured_program(name, predicted):
    assert predicted[name] == EXPECTED[name]
