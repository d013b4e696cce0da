"""``.nonzero()`` on a receiver whose kind the syntax does not know: a module-level object of a class of its own
(``Box.nonzero`` returns an int: no break; a definite GBL106 before), a tensor stored on ``self`` by ``__init__`` and a
tensor passed in (both break, GB0036). The walk decides it from the value (a gate), never from the method's name.
Measured on torch 2.13."""
import torch


class Box:
    def nonzero(self):
        return 3


BOX = Box()


def on_object(x):
    return x + BOX.nonzero()


class Net(torch.nn.Module):
    def __init__(self, mask):
        super().__init__()
        self.mask = mask

    def forward(self, x):
        return x[self.mask.nonzero()]


def on_argument(m):
    return m.nonzero()


def main():
    torch.compile(on_object, backend="eager")(torch.randn(4))
    torch.compile(Net(torch.tensor([True, False])), backend="eager")(torch.randn(2))
    torch.compile(on_argument, backend="eager")(torch.tensor([1, 0]))


if __name__ == "__main__":
    main()
