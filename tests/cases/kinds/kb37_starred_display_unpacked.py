# A factory returns a tuple display with a starred item (`return (init_fn, *expand_reduce_fns)`, hyper-connections'
# get_init_and_expand_reduce_stream_functions) and the caller unpacks it into three names: the starred tuple's items
# are spliced in where it is a tuple of known length, so `self.reduce` is the `Noisy` module and its print breaks,
# definite. Before, a display with a starred item was an unknown value: the three calls were not followed.
import torch
from torch import nn


class Noisy(nn.Module):
    def forward(self, x):
        print("reduce")
        return x.sum(0)


def make_pair(disable):
    if disable:
        return nn.Identity(), Noisy()
    return nn.Identity(), nn.Identity()


def make_all(disable=True):
    init = nn.Linear
    pair = make_pair(disable)
    return (init, *pair)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        init, self.expand, self.reduce = make_all()
        self.lin = init(4, 4)

    def forward(self, x):
        return self.reduce(self.lin(self.expand(x)))


def main():
    torch.compile(Net(), backend="eager")(torch.randn(2, 4))


if __name__ == "__main__":
    main()
