import torch
import torch.nn as nn


class Stepper:
    def __init__(self, field, dt):
        self.field = field
        self.dt = dt

    def integrate(self, y, steps):
        for _ in range(steps):
            y = self.step(y)
        return y

    def step(self, y):
        raise NotImplementedError  # each method defines its step


class Euler(Stepper):
    def step(self, y):
        return y + self.dt * self.field(y)


class GradientStep(Stepper):
    def step(self, y):
        with torch.enable_grad():
            y = y.detach().requires_grad_(True)
            (g,) = torch.autograd.grad(self.field(y).sum(), y)
        return y - self.dt * g


def select(method):
    if method == "euler":
        return Euler
    elif method == "gradient":
        return GradientStep
    raise ValueError(f"unknown method {method}")


def check_args(method, y):
    if method is None:
        method = "euler"
    return method, y


def solve(field, y, method=None):
    method, y = check_args(method, y)
    stepper = select(method)(field=field, dt=0.1)
    return stepper.integrate(y, 3)


class Flow(nn.Module):
    def __init__(self):
        super().__init__()
        self.field = nn.Linear(4, 4)

    def forward(self, y):
        return solve(self.field, y, method="euler")


def main():
    flow = torch.compile(Flow(), backend="eager")
    flow(torch.randn(2, 4))
