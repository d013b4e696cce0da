"""Stores by a run-time name drawn from a dict of state names (issue 38: torchmetrics' ``Metric`` keeps every state's
name in ``self._defaults`` and restores states by looping over it, which leaves every setting of every metric unknown).

A setting's test may be decided only where each name such a store may give is proven another. gblint does not prove
it yet: a first bounding of such a dict's keys (by its changes through ``self`` and the escapes it could see) was
broken by a helper session in 25 ways the dict or the storing method is reached that it did not see (reflective
reads and calls, aliases through containers, lambdas, defaults, ``yield``, ``dict.__init__``, a subclass override of
the storing method, ``__setstate__`` run by an alias, ``getattr`` or ``copy`` on the same object). Those programs are
``tests/fixtures/state_keys`` with what torch 2.13 did (no break: the setting was changed); no diagnostic there may be
definite. The cases below must stay conditional whatever a later bounding proves; kb58/kb59 in
``tests/cases/kinds`` are the measured programs of the kind (kb58's keys are in fact proven).
"""
import json
import os
import textwrap

import pytest

from .conftest import ROOT, lint
from .folder_programs import predictions

HEAD = '''
import torch
from torch import nn


class Metric(nn.Module):
    def __init__(self):
        super().__init__()
        self.strategy = "warn"
        self._defaults = {}
        self.add_state("total", torch.zeros(()))

    def add_state(self, name, default):
        setattr(self, name, default)
        self._defaults[name] = default.clone()

    def reset(self):
        for name, default in self._defaults.items():
            setattr(self, name, default.clone())

    def forward(self, x):
        if self.strategy != "disable":
            if (x > 0).any():
                x = x + 1
        return x * 2
'''

DRIVER = '''

def main():
    m = {cls}()
    m.reset()
    torch.compile(m)(torch.randn(4))
'''


def certainties(extra_class: str = "", extra_driver: str = "") -> list:
    """The certainty and condition of each diagnostic of the program made of the registry class, ``extra_class``
    (code after it: the driver compiles the last class it defines, else the registry's) and the driver with
    ``extra_driver`` (statements after the ``reset`` call)."""
    classes = [line.split()[1].split("(")[0] for line in textwrap.dedent(extra_class).splitlines()
               if line.startswith("class ")]
    driver = DRIVER.format(cls=classes[-1] if classes else "Metric")
    text = HEAD + textwrap.dedent(extra_class) + driver + textwrap.indent(textwrap.dedent(extra_driver), "    ")
    return [(d.line, d.certainty, d.condition) for d in lint(text, path="m.py")
            if d.effect in ("break", "skip", "error")]


UNPROVEN = {
    "returned": ("""
        class Handed(Metric):
            def defaults(self):
                return self._defaults
        """, "m.defaults()\n"),
    "bound to a local and changed through it": ("""
        def grow(m):
            table = m._defaults
            table["extra"] = torch.ones(())
        """, "grow(m)\n"),
    "stored through another object by a key not its own": ("""
        def register(m, name):
            m._defaults[name] = torch.ones(())
        """, 'register(m, "extra")\n'),
    "read by a computed name": ("""
        def grow(m, key):
            getattr(m, "_defaults")[key] = torch.ones(())
        """, 'grow(m, "extra")\n'),
    "updated from another dict": ("""
        class Updated(Metric):
            def merge(self, other):
                self._defaults.update(other)
        """, "m.merge({})\n"),
    "the storing method called by name on the object": ("", 'm.add_state(input(), torch.ones(()))\n'),
    "a later method registering a name it is given": ("""
        class Extended(Metric):
            def extend(self, name):
                self.add_state(name, torch.ones(()))
        """, 'm.extend(input())\n'),
    "__setstate__ called on another object": ("""
        class Restored(Metric):
            def __setstate__(self, state):
                self.__dict__.update(state)

        def restore(m, state):
            m.__setstate__(state)
        """, 'restore(m, {})\n'),
}


@pytest.mark.parametrize("case", sorted(UNPROVEN))
def test_a_key_not_proven_leaves_the_setting_undecided(case):
    extra_class, extra_driver = UNPROVEN[case]
    assert certainties(extra_class, extra_driver) == [(23, "conditional", 'when `self.strategy != "disable"`')]


FOLDER = os.path.join(ROOT, "tests", "fixtures", "state_keys")
with open(os.path.join(FOLDER, "observed.json"), encoding="utf-8") as _fh:
    OBSERVED = json.load(_fh)


def test_every_program_is_measured():
    files = sorted(n for n in os.listdir(FOLDER) if n.endswith(".py"))
    assert sorted(OBSERVED["programs"]) == files, "re-run scripts/measure_fixtures.py --folder tests/fixtures/state_keys"
    assert OBSERVED["meta"]["torch"].startswith("2.13.") and OBSERVED["meta"]["backend"] == "eager"
    assert all(p["exception"] is None and p["breaks"] == [] for p in OBSERVED["programs"].values())


def test_no_definite_where_a_store_by_name_changed_the_setting():
    """Dynamo made no break in any of these programs (each changes the setting through the registry or runs a
    ``__setstate__`` on the compiled object); the setting's test is reported, conditional on it."""
    for name, diags in predictions(FOLDER).items():
        assert [d for d in diags if d.get("certainty") == "definite"] == [], name
        assert any(d.get("certainty") == "conditional" and d["condition"] == 'when `self.strategy != "disable"`'
                   for d in diags), (name, diags)
