# A generator expression star-unpacked into a helper that prints (a plain break), and one without a
# closure variable (`*(t.relu() for t in ts)`).
import torch


def report(*vals):
    print("count", len(vals))
    return torch.stack(vals).sum(0)


def step(x, w):
    a = report(*(x * k for k in (1, 2)))
    b = report(*(t.relu() for t in (a, w)))
    return a + b


def main():
    torch.compile(step, backend="eager")(torch.randn(3), torch.randn(3))
