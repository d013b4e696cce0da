"""A metaclass's `__call__` that calls `super().__call__(...)` (it ends at `type.__call__`, a slot wrapper, not a
function): Dynamo breaks there (GB0006) when it compiles that `__call__` as a frame of its own, which it does when
the class is called from code that runs eagerly (a frame it skipped). Called from compiled code, the class is built
without tracing the metaclass's `__call__`: no break. A metaclass without `__call__`, or one whose `__call__`
calls `type.__call__(cls, ...)`, does not break either way."""
import abc

import torch


class Meta(abc.ABCMeta):
    def __call__(cls, *args, **kwargs):
        inst = super().__call__(*args, **kwargs)
        return inst


class Named(type):
    def __call__(cls, *args, **kwargs):
        return super(Named, cls).__call__(*args, **kwargs)


class Plain(abc.ABCMeta):
    pass


class Dist(metaclass=Meta):
    def __init__(self, loc):
        self.loc = loc * 2


class Box(metaclass=Named):
    def __init__(self, v):
        self.v = v + 1


class Bare(metaclass=Plain):
    def __init__(self, v):
        self.v = v - 1


@torch.compile(backend="eager")
def from_skipped(x):
    for i in range(2):
        print("step", i)
        x = x + 1
    d = Dist(x)
    b = Box(x)
    c = Bare(x)
    return d.loc + b.v + c.v


@torch.compile(backend="eager")
def from_compiled(x):
    y = x + 1
    d = Dist(y)
    b = Box(y)
    return d.loc * b.v


def main():
    x = torch.ones(3)
    from_skipped(x)
    from_compiled(x)
