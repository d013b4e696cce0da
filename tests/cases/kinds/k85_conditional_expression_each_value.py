# Both values of a conditional expression build a slice object from a tensor's elements in a loop (GB0124):
# whichever is evaluated breaks, so the frame is skipped (GB7000).
import torch


def window_sums(x: torch.Tensor, starts: torch.Tensor, reverse: bool):
    sums = []
    for t in range(starts.shape[0] - 1):
        win = (
            slice(starts[t + 1], None)
            if reverse
            else slice(starts[t], starts[t + 1])
        )
        sums.append(x[win].sum())
    return torch.stack(sums)


class Windows(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.reverse = bool(torch.rand(()) > 2.0)

    def forward(self, x, starts):
        return window_sums(x.abs(), starts, self.reverse)


def main():
    model = torch.compile(Windows(), backend="eager")
    model(torch.randn(8), torch.tensor([0, 3, 8]))
