# A slice object whose stop is one element of a lengths tensor, outside any loop: the implicit .item() breaks
# where Dynamo cannot resume (the rest of the frame runs eagerly).
import torch


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(4, 4)

    def forward(self, x, lengths):
        h = self.proj(x)
        keep = slice(0, lengths[0])
        return h[keep].sum()


def main():
    model = torch.compile(Head(), backend="eager")
    model(torch.randn(5, 4), torch.tensor([3, 2]))
