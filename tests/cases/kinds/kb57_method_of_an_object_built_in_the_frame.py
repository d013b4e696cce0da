"""A break inside a method of an object the compiled frame builds itself cannot resume: at the break Dynamo must
rebuild the bound method on the stack, and a method bound to an object with no source has no reconstruction
(GB0092 Reconstruction failure). With no checkpoint before the call the frame is skipped (``built_here``, a
dataclass's method ``dataclass_method``, a solver class picked from a dict of subclasses of an abstract base
``picked_solver``, the object a helper returns ``helper_built``, a staticmethod read from the object
``static_of_built``); after a checkpoint of two ops the rest of the frame runs eagerly (``ops_first``); after an
earlier resumed break the resume function is skipped (``resumed_first``). A classmethod (``class_method``), the
method called through its class (``through_class``), ``__call__`` (``called_object``), an object passed in
(``passed_in``) and a built object handed to a helper that calls the method (``handed_on``) resume. Inside a
``with`` the checkpoint is before the block: 2 ops there keep their graph (``ops_before_no_grad``), none skip the
frame (``in_no_grad``). The object is an argument of the resume function, which has a source, where a break resumes
between its construction and the call (``break_between``), where its constructor breaks (``ctor_breaks``): both
resume."""
import abc
import dataclasses

import torch


class Stepper:
    def __init__(self, y):
        self.y = y

    def step(self, x):
        print("stepping")
        return x + self.y

    @staticmethod
    def plain(x):
        print("plain")
        return x + 1

    @classmethod
    def make(cls, x):
        print("making")
        return x + 2

    def __call__(self, x):
        print("called")
        return x - 1


@dataclasses.dataclass
class Shift:
    y: torch.Tensor

    def apply(self, x):
        print("shifting")
        return x + self.y


class Solver(metaclass=abc.ABCMeta):
    def __init__(self, y0, rtol=1e-3):
        self.y0 = y0
        self.rtol = rtol

    def integrate(self, t):
        return self.advance(t) * self.rtol

    @abc.abstractmethod
    def advance(self, t):
        ...


class Euler(Solver):
    def advance(self, t):
        print("advancing")
        return t + self.y0


SOLVERS = {"euler": Euler}


class Grad:
    def __init__(self, y):
        self.y = y

    def step(self, x):
        print("grad step")
        return x + self.y


class NoGrad:
    def __init__(self, y):
        self.y = y

    def step(self, x):
        print("no-grad step")
        return x + self.y


class Between:
    def __init__(self, y):
        self.y = y

    def step(self, x):
        print("between step")
        return x + self.y


class Noisy:
    def __init__(self, y):
        print("building")
        self.y = y

    def run(self, x):
        print("running")
        return x + self.y




def make_stepper(x):
    return Stepper(x)


def call_step(s, x):
    return s.step(x)


@torch.compile(backend="eager")
def built_here(x):
    s = Stepper(x)
    return s.step(x) * 2


@torch.compile(backend="eager")
def dataclass_method(x):
    return Shift(x).apply(x) * 2


@torch.compile(backend="eager")
def picked_solver(x):
    solver = SOLVERS["euler"](x, rtol=1e-2)
    return solver.integrate(x) * 2


@torch.compile(backend="eager")
def helper_built(x):
    s = make_stepper(x)
    return s.step(x) * 2


@torch.compile(backend="eager")
def static_of_built(x):
    s = Stepper(x)
    return s.plain(x) * 2


@torch.compile(backend="eager")
def ops_first(x):
    y = x * 2
    y = y + 1
    s = Stepper(y)
    return s.step(y) * 3


@torch.compile(backend="eager")
def resumed_first(x):
    y = x * 2
    print("first")
    s = Stepper(y)
    return s.step(y) * 3


@torch.compile(backend="eager")
def class_method(x):
    s = Stepper(x)
    return s.make(x) * 2


@torch.compile(backend="eager")
def through_class(x):
    s = Stepper(x)
    return Stepper.step(s, x) * 2


@torch.compile(backend="eager")
def called_object(x):
    s = Stepper(x)
    return s(x) * 2


@torch.compile(backend="eager")
def passed_in(x, s):
    return s.step(x) * 2


@torch.compile(backend="eager")
def handed_on(x):
    s = Stepper(x)
    return call_step(s, x) * 2


@torch.compile(backend="eager")
def ops_before_no_grad(x):
    y = x * 2
    y = y + 1
    s = Grad(y)
    with torch.no_grad():
        z = s.step(y)
    return z * 3


@torch.compile(backend="eager")
def in_no_grad(x):
    s = NoGrad(x)
    with torch.no_grad():
        z = s.step(x)
    return z * 3


@torch.compile(backend="eager")
def break_between(x):
    s = Between(x)
    print("between")
    return s.step(x) * 2


@torch.compile(backend="eager")
def ctor_breaks(x):
    s = Noisy(x)
    return s.run(x) * 2


def main():
    x = torch.ones(3)
    built_here(x)
    dataclass_method(x)
    picked_solver(x)
    helper_built(x)
    static_of_built(x)
    ops_first(x)
    resumed_first(x)
    class_method(x)
    through_class(x)
    called_object(x)
    passed_in(x, Stepper(x))
    handed_on(x)
    ops_before_no_grad(x)
    in_no_grad(x)
    break_between(x)
    ctor_breaks(x)


if __name__ == "__main__":
    main()
