import math

import torch


class Interval:
    def __init__(self, t0, t1, shape):
        t0 = float(t0)
        t1 = float(t1)
        self._start = t0
        self._end = t1
        self._shape = shape

    def __call__(self, ta, tb):
        ta = float(ta)
        tb = float(tb)
        if ta < self._start:
            ta = self._start
        if tb > self._end:
            tb = self._end
        return torch.full(self._shape, math.sqrt(tb - ta))


@torch.compile(backend="eager")
def integrate(y, ts):
    noise = Interval(ts[0], ts[-1], y.shape)
    for i in range(len(ts) - 1):
        y = y + (ts[i + 1] - ts[i]) * y + noise(ts[i], ts[i + 1])
    return y


def main():
    integrate(torch.randn(3), torch.linspace(0, 1, 4))
