import functools

import torch
import torch.nn as nn


class RunningSum(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("total", torch.zeros(()))
        self._update_count = 0
        self.update = self._wrap_update(self.update)

    def _wrap_update(self, update):
        @functools.wraps(update)
        def wrapped_func(*args, **kwargs):
            self._update_count += 1
            with torch.set_grad_enabled(False):
                try:
                    update(*args, **kwargs)
                except RuntimeError as err:
                    raise RuntimeError("update failed") from err

        return wrapped_func

    def update(self, x):
        if x.sum() > 0:
            self.total += x.sum()
        else:
            self.total -= x.sum()

    def forward(self, x):
        self.update(x)
        return self.total * 1


def main():
    metric = torch.compile(RunningSum(), backend="eager")
    metric(torch.randn(4))
