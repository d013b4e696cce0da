# A name bound in both arms of an `if`, a Python int in the body and a tensor in the `else`: after the statement it
# is what the arm the run took bound. The driver passes True, so the later `if` tests a Python int: no break.
# (Before, the `else` arm's binding was taken for every run: a false definite break.)
import torch


def width(x: torch.Tensor, exact: bool):
    if exact:
        w = 3
    else:
        w = x.sum()
    if w > 1:
        x = x * 2
    return x


class Width(torch.nn.Module):
    def __init__(self, exact: bool):
        super().__init__()
        self.exact = exact

    def forward(self, x):
        return width(x + 1, self.exact)


def main():
    model = torch.compile(Width(True), backend="eager")
    model(torch.randn(4))
