# autograd.Function.apply given one tensor twice: with grad on and an input that requires grad (a Linear's output)
# Dynamo breaks at the apply call (GB6297), and in a loop skips the frame; given a view the second time, or with no
# input requiring grad, forward is inlined (no break).
import torch


class Mix(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b, x):
        return x * a + b

    @staticmethod
    def backward(ctx, g):
        return None, None, g


class Layer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, mask, x):
        return Mix.apply(mask, mask, self.lin(x))


class Stack(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([Layer(), Layer()])

    def forward(self, mask, x):
        for layer in self.layers:
            x = layer(mask, x)
        return x


def plain(mask, x):
    return Mix.apply(mask, mask, x * 2)


def viewed(mask, w):
    return Mix.apply(mask, mask.view_as(mask), w * 2)


def main():
    mask, x = torch.ones(4), torch.ones(2, 4)
    torch.compile(Stack(), backend="eager")(mask, x)
    torch.compile(plain, backend="eager")(mask, x)
    torch.compile(viewed, backend="eager")(mask, torch.ones(4, requires_grad=True))
