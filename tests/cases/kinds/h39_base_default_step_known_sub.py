# A solver's loop calls `self.step`, which the base class defines with a print and each solver overrides.
# The loop is run as `Base.integrate(solver, x)` on a solver the driver builds (`Heun()`): its clean `step` runs.
import torch


class Base:
    def step(self, x):
        print("base step")
        return x

    def integrate(self, x, n):
        for _ in range(n):
            x = self.step(x)
        return x


class Euler(Base):
    def step(self, x):
        return x + 0.1 * x.sin()


class Heun(Base):
    def step(self, x):
        k = x.sin()
        return x + 0.05 * (k + (x + 0.1 * k).sin())


SOLVERS = [Euler, Heun]


def solve(solver, x):
    return Base.integrate(solver, x, 3) * 2


def main():
    solver = Heun()
    torch.compile(solve, backend="eager")(solver, torch.randn(4))


if __name__ == "__main__":
    main()
