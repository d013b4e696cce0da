# Guards: comprehensions in frames that compile (no break, and after a break that resumes) are traced
# inline; `if not parts:` on a star-args tuple and `assert len(parts) > 0` do not break.
import torch
import torch.nn as nn


def combine(*parts):
    if not parts:
        raise ValueError("empty")
    assert len(parts) > 0
    return torch.stack(parts).mean(0)


class Heads(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleList([nn.Linear(3, 3) for _ in range(2)])

    def forward(self, x):
        outs = [h(x) for h in self.heads]
        y = combine(*outs)
        print("after")
        scaled = [o * y for o in outs]
        return combine(*(s + 1 for s in scaled))


def main():
    torch.compile(Heads(), backend="eager")(torch.randn(2, 3))
