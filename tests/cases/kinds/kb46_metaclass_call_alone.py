"""A metaclass's `__call__` that calls `super().__call__(...)` (it ends at `type.__call__`, a slot wrapper, not a
function: GB0006) or `type.__call__(cls, ...)` (a method of `type` Dynamo does not trace: GB0156) breaks there when
Dynamo compiles that `__call__` as a frame of its own, which it does when the class is called from code that runs
eagerly (a frame it skipped) with a tensor among the arguments (has_tensor_in_frame: `cls` is a class; an int, no
argument, or an object that holds a tensor leave the frame uncompiled). Called from compiled code, the class is built
without tracing the metaclass's `__call__`: no break. A metaclass without `__call__` does not break either way."""
import abc

import torch


class Meta(abc.ABCMeta):
    def __call__(cls, *args, **kwargs):
        inst = super().__call__(*args, **kwargs)
        return inst


class Named(type):
    def __call__(cls, *args, **kwargs):
        return super(Named, cls).__call__(*args, **kwargs)


class Direct(type):
    def __call__(cls, v):
        return type.__call__(cls, v)


class Counted(type):
    def __call__(cls, n):
        return super().__call__(n)


class Plain(abc.ABCMeta):
    pass


class Dist(metaclass=Meta):
    def __init__(self, loc):
        self.loc = loc * 2


class Box(metaclass=Named):
    def __init__(self, v):
        self.v = v + 1


class Cell(metaclass=Direct):
    def __init__(self, v):
        self.v = v * 3


class Steps(metaclass=Counted):
    def __init__(self, n):
        self.n = n + 1


class Bare(metaclass=Plain):
    def __init__(self, v):
        self.v = v - 1


class Holder:
    def __init__(self, t):
        self.t = t


class Wrapped(metaclass=Counted):
    def __init__(self, n):
        self.n = n


@torch.compile(backend="eager")
def from_skipped(x):
    for i in range(2):
        print("step", i)
        x = x + 1
    d = Dist(x)
    b = Box(x)
    c = Cell(x)
    s = Steps(3)
    w = Wrapped(Holder(x))
    e = Bare(x)
    return d.loc + b.v + c.v + e.v + s.n + w.n.t


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
