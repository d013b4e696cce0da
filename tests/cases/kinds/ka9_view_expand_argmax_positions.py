# view/expand/new_zeros with a size read out of data passed among Python ints (*size positions), and torch.randn's
# size from an argmax: each needs an int, GB0033.
import torch


class Reshaper(torch.nn.Module):
    def forward(self, x, widths):
        rows = widths.argmax() + 1
        y = x.view(rows, -1)
        z = y.new_zeros(2, widths[0])
        noise = torch.randn(rows, 2)
        return y.sum() + z.sum() + noise.sum()


def main():
    model = torch.compile(Reshaper(), backend="eager")
    model(torch.randn(6), torch.tensor([0, 1, 4]))
