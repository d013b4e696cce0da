# A frame skipped by a loop break at its end; before the loop, comprehensions that capture a tensor iterate a
# tuple, zip(...), enumerate(...) and a dict's keys, and a generator expression is traced before the break.
import torch


def mix(xs, w, table):
    pair = (xs[0], xs[1])
    first = torch.stack(tuple(t + 1 for t in xs))
    a = [t * w for t in pair]
    b = [u * v * w for u, v in zip(xs, xs)]
    c = [t * i * w for i, t in enumerate(xs)]
    d = [table[k] * w for k in table]
    out = first.sum() + a[0] + b[0] + c[0] + d[0]
    for t in xs:
        print("t", t)
    return out


def main():
    fn = torch.compile(mix, backend="eager")
    fn([torch.randn(3), torch.randn(3)], torch.randn(3), {"p": torch.randn(3)})
