"""Which object a name holds where a call reads it (issue 14's reach, issue 15's certainty).

gblint evaluates a function's locals flow-insensitively (a name is any value it is ever bound
to), except where Python's scopes and the order of evaluation decide it: a comprehension's
variable lives in the comprehension's own scope, so it is not the function's local of the same
name; a ``for`` target the loop's body never rebinds holds the element of the step (a second loop
binding the same name does not leak into the first); a local handed to a call is, in that call,
what it held before the call (the callee may change it only afterwards); ``inspect.isclass`` is
decided for classes and instances; a constant string's methods are computed. Each function of
PROGRAM breaks in ``Noisy.forward`` only when the name holds what Python says it holds, and gblint
must call that break definite; each is run under Dynamo to confirm the break.
"""
import json
import sys

import pytest

from .conftest import run_cli

PROGRAM = '''
import inspect

import torch
import torch.nn as nn

QUERY = "NOISY"


class Noisy(nn.Module):
    def forward(self, x):
        print("noisy")  # break
        return x + 1


class Quiet(nn.Module):
    def forward(self, x):
        return x - 1


NOISY = Noisy()
QUIET = Quiet()


def shadowed(x):
    layer = NOISY
    names = [layer for layer in ("a", "b")]

    def run(y):
        return layer(y)

    return run(x) * len(names)


def two_loops(x):
    for name, cls in {"noisy": NOISY}.items():
        chosen = cls() if inspect.isclass(cls) else cls
    for cls in [1, 2]:
        x = x * cls
    return chosen(x)


def pick(table, key):
    for name, layer in table.items():
        if name == key:
            return layer
    raise KeyError(key)


def handed(x):
    table = {"noisy": NOISY}
    layer = pick(table, "noisy")
    return layer(x)


def by_name(x):
    layer = NOISY if QUERY.lower().strip() == "noisy" else QUIET
    return layer(x)


def main():
    for fn in (shadowed, two_loops, handed, by_name):
        torch.compile(fn, backend="eager")(torch.ones(2))


main()
'''

LINES = PROGRAM.strip("\n").split("\n")
BREAK = next(i + 1 for i, text in enumerate(LINES) if text.endswith("# break"))


def _diagnostics(tmp_path, source):
    (tmp_path / "m.py").write_text(source)
    proc = run_cli("check", "--isolated", "--no-cache", "--format", "json", "--exit-zero", "m.py", cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["diagnostics"]


FUNCTIONS = ["shadowed", "two_loops", "handed", "by_name"]


def _only(function):
    """PROGRAM with ``main`` compiling only ``function``."""
    return "\n".join(LINES).replace("(" + ", ".join(FUNCTIONS) + ")", f"({function},)") + "\n"


@pytest.mark.parametrize("function", FUNCTIONS)
def test_the_break_behind_each_name_is_definite(tmp_path, function):
    found = [(d["line"], d["certainty"], d["trace"][0]["function"]) for d in _diagnostics(tmp_path, _only(function))]
    assert found == [(BREAK, "definite", function)]


@pytest.mark.parametrize("function", FUNCTIONS)
def test_runtime_breaks_in_each_function(tmp_path, function):
    """Dynamo breaks at the print, called from the compiled function: the name holds a Noisy layer."""
    pytest.importorskip("torch")
    (tmp_path / "m.py").write_text(_only(function))
    proc = run_cli("confirm", "--isolated", "--backend", "eager", "--format", "json", "--run", "--", sys.executable,
                   "m.py", cwd=str(tmp_path))
    assert proc.returncode in (0, 1), proc.stderr
    runs = json.loads(proc.stdout)["runs"]
    assert [(b["stack"][0]["function"], b["stack"][-1]["line"]) for run in runs for b in run["breaks"]] == [
        (function, BREAK)]


APPENDED = '''
import torch
import torch.nn as nn


class Noisy(nn.Module):
    def forward(self, x):
        print("noisy")
        return x + 1


class Loud(nn.Module):
    def forward(self, x):
        print("loud")
        return x - 1


class Net(nn.Module):
    def __init__(self, use=False, n=0):
        super().__init__()
        self.always = nn.ModuleList()
        self.always.append(Loud())
        self.maybe = nn.ModuleList()
        if use:
            self.maybe.append(Noisy())
        for _ in range(n):
            self.maybe.append(Noisy())
        self.maybe.extend(Noisy() for _ in range(n))

    def forward(self, x):
        for m in self.maybe:
            x = m(x)
        return self.always[0](x)


def main():
    torch.compile(Net(), backend="eager")(torch.ones(2))


main()
'''


def test_an_item_appended_under_a_branch_or_loop_may_not_be_there(tmp_path):
    """``append`` at the top of ``__init__`` always runs; under an ``if``, in a loop or as ``extend`` of an
    iterable it may add nothing: here it adds nothing for sure (``use`` is False, ``range(0)`` is empty), so
    ``Noisy`` is never called and the frame goes on being traced: the call after the loop splits ``Net.forward``
    (measured: 3 frames compiled, none skipped). Before ``range`` of a known int was its ints, the skip a
    ``Noisy`` would cause was reported, conditional on ``m is Noisy``."""
    found = sorted((d["code"], d["certainty"], d.get("condition")) for d in _diagnostics(tmp_path, APPENDED))
    assert found == [("GBL301", "definite", None)]


def test_runtime_calls_only_the_item_appended_at_the_top(tmp_path):
    pytest.importorskip("torch")
    (tmp_path / "m.py").write_text(APPENDED)
    proc = run_cli("confirm", "--isolated", "--backend", "eager", "--format", "json", "--run", "--", sys.executable,
                   "m.py", cwd=str(tmp_path))
    assert proc.returncode in (0, 1), proc.stderr
    runs = json.loads(proc.stdout)["runs"]
    assert [b["stack"][-1]["line"] for run in runs for b in run["breaks"]] == [APPENDED.split(
        "\n").index('        print("loud")') + 1]
