# requires_grad copied from an input that does not require grad: no break at run time (gblint may only
# say "when `x.requires_grad`").
import torch


@torch.compile(backend="eager")
def pad(x):
    extra = torch.ones(2, requires_grad=x.requires_grad)
    return torch.cat([x, extra])


def main():
    with torch.no_grad():
        pad(torch.randn(3))
