# A solver object built inside the compiled function, whose method breaks: Dynamo cannot rebuild the
# bound method at the break (GB0092) and skips the frame; gblint calls the method through the object's
# class, `type(solver).advance(solver, ...)`, which it can rebuild: the frame resumes (measured:
# tests/test_fix_runtime.py).
import torch


class Euler:
    def __init__(self, y0, dt):
        self.y0 = y0
        self.dt = dt

    def advance(self, t):
        drift = t.sum().item()  # a Python float: a graph break
        return self.y0 + self.dt * torch.sin(t) * drift


SOLVERS = {"euler": Euler}


@torch.compile(backend="eager")
def integrate(y0, t, method="euler"):
    solver = SOLVERS[method](y0, 0.1)
    return solver.advance(t) * 2


def main():
    integrate(torch.randn(4), torch.linspace(0, 1, 4))
