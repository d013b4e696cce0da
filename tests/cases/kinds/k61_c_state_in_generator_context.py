# A contextmanager that tests torch._C's tracing state and grad mode (Python values by their stubs) wraps a block;
# the block's own test of a tensor is the only break.
from contextlib import contextmanager

import torch


@contextmanager
def quiet_tracer():
    if not torch._C._get_tracing_state():
        yield
        return
    yield


def clip(h, bound):
    with quiet_tracer():
        if torch._C.is_grad_enabled():
            h = h * 1.0
    if (h.abs() > bound).any():
        h = h.clamp(-bound, bound)
    return h


class Clip(torch.nn.Module):
    def forward(self, x):
        return clip(x * 2, 1.5) + 1


def main():
    model = torch.compile(Clip(), backend="eager")
    model(torch.randn(5))
