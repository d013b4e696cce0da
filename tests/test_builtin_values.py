"""What a builtin hands back, as far as a break depends on it: the count ``enumerate`` yields is an
int, never a tensor, so a helper that branches on it (``if i == 0``, einx's ``to_ord_str`` called
for every argument of an einx operation) does not break, while the same helper given the item
``enumerate`` yields (a tensor) does. Found in x-transformers' drivers, where einx was followed.
Each program's break lines are checked against Dynamo too (``backend="eager"``, torch 2.13)."""
import json
import subprocess
import sys
import textwrap

import pytest

from .conftest import run_cli

PROGRAM = textwrap.dedent('''\
    import inspect

    import torch


    def ordinal(n):
        if n == 0:
            return "1st"
        return f"{{n + 1}}th"


    def label_all(*args):
        bound = inspect.signature(label_all).bind(*args)
        args = list(bound.args)  # a list gblint cannot see into
        return [ordinal({passed}) for i, x in enumerate(args) for p in [(i, x)]]


    def f(a, b):
        return a + b, label_all(a, b)
    ''')

CASES = {
    # (what the helper gets, break lines gblint reports with their certainty, lines Dynamo breaks at)
    "the count": ("i", [], []),
    # `f`'s arguments are not known to be tensors (no call of it is seen): the break holds when they are
    "the item": ("x", [(7, "conditional"), (15, "conditional")], [7]),
    # a slice keeps no bounds here: the pair's item may be anywhere in it (here it is)
    "the item of a sliced pair": ("p[1:][0]", [(7, "conditional"), (15, "conditional")], [7]),
}


def _static(tmp_path, passed):
    (tmp_path / "m.py").write_text(PROGRAM.format(passed=passed) + '\n\nf = torch.compile(f, backend="eager")\n')
    proc = run_cli("check", "--isolated", "--no-cache", "--format", "json", "--exit-zero", "m.py", cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    return sorted((d["line"], d["certainty"]) for d in json.loads(proc.stdout)["diagnostics"] if d["effect"] != "info")


@pytest.mark.parametrize("case", sorted(CASES))
def test_enumerate_count_is_no_tensor(tmp_path, case):
    passed, want, _ = CASES[case]
    assert _static(tmp_path, passed) == want


RUN = textwrap.dedent('''\
    import json, sys, torch
    sys.path.insert(0, sys.argv[1])
    import m
    out = torch._dynamo.explain(m.f)(torch.ones(1), torch.ones(1))
    lines = sorted({s.lineno for r in out.break_reasons for s in r.user_stack[-1:] if s.filename.endswith("m.py")})
    print(json.dumps(lines))
    ''')


@pytest.mark.parametrize("case", sorted(CASES))
def test_runtime_agrees(tmp_path, case):
    pytest.importorskip("torch")
    passed, want, breaks = CASES[case]
    (tmp_path / "m.py").write_text(PROGRAM.format(passed=passed))
    proc = subprocess.run([sys.executable, "-c", RUN, str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == breaks
    assert {line for line, _ in want} >= set(breaks)
