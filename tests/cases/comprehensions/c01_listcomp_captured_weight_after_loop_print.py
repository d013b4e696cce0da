# A function skipped for a print in its loop; after the loop a list comprehension over a list of tensors
# captures a tensor local.
import torch


def blend(xs, w):
    acc = w.sum()
    for t in xs:
        print("norm", t.norm())
        acc = acc + t.mean()
    scaled = [t * w + acc for t in xs]
    return torch.stack(scaled).sum(0)


def main():
    fn = torch.compile(blend, backend="eager")
    fn([torch.randn(4), torch.randn(4)], torch.randn(4))
