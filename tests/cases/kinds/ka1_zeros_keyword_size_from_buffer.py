# A histogram sized by the largest label of a buffer, the size handed by keyword: torch.zeros needs ints (GB0033).
import torch


class Counter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("labels", torch.tensor([0, 3, 1, 3]))

    def forward(self, x):
        counts = torch.zeros(size=(int(x.shape[0]), self.labels.max() + 1))
        return counts + x.unsqueeze(-1)


def main():
    model = torch.compile(Counter(), backend="eager")
    model(torch.randn(2))
