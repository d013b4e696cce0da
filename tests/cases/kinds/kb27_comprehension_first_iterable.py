# A comprehension's first iterable is evaluated in the enclosing frame (Python hands the comprehension's function
# its iterator): `.tolist()` there breaks `f`, which resumes after it; no comprehension frame is skipped. Before,
# gblint put it in the comprehension's frame and reported `<listcomp>` skipped (definite, wrong).
import torch


def f(x):
    counts = torch.tensor([3, 7])
    return torch.cat([torch.abs(p) for p in x.split(counts.long().tolist())])


def main():
    torch.compile(f, backend="eager")(torch.randn(10))
