"""Stores by a run-time name drawn from a dict of state names (issue 38: torchmetrics' ``Metric`` keeps every state's
name in ``self._defaults`` and restores states by looping over it, which left every setting of every metric unknown).

The setting's test is decided only where each name such a store may give is proven: a key ``__init__`` passes to
the method that stores it, a key of that dict again, or one of a dict a method builds from it. Each other way a key
may get into the dict leaves the setting's test undecided (conditional), never guessed; kb58/kb59 in
``tests/cases/kinds`` are the measured programs of these kinds.
"""
import textwrap

import pytest

from .conftest import lint

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


def test_names_init_passes_decide_the_setting():
    assert certainties() == [(23, "definite", "")]


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


PROVEN = {
    "a loop over the dict's own keys, through another name": ("""
        class Rescaled(Metric):
            def rescale(self, factor):
                this = self
                for name, default in this._defaults.items():
                    this._defaults[name] = default * factor
        """, "m.rescale(2.0)\n"),
    "a removal": ("""
        class Dropped(Metric):
            def drop(self, name):
                self._defaults.pop(name, None)
                del self._defaults["total"]
        """, 'm.drop("total")\n'),
    "a __setstate__ that only copy and pickle call, delegating to super()": ("""
        class Pickled(Metric):
            def __setstate__(self, state):
                super().__setstate__(state)
                self.__dict__.update(state)
        """, ""),
    "a snapshot built by a loop over the dict, restored by name": ("""
        class Snapshot(Metric):
            def _copy(self):
                cache = {}
                for name in self._defaults:
                    cache[name] = getattr(self, name).clone()
                return cache

            def snapshot(self):
                self._cache = self._copy()

            def restore(self):
                for name, value in self._cache.items():
                    setattr(self, name, value)
        """, "m.snapshot()\nm.restore()\n"),
}


@pytest.mark.parametrize("case", sorted(PROVEN))
def test_keys_proven_keep_the_setting_decided(case):
    extra_class, extra_driver = PROVEN[case]
    assert certainties(extra_class, extra_driver) == [(23, "definite", "")]
