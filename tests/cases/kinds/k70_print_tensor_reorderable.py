# A print of a tensor and an f-string of one in a compiled forward: two breaks (GB0059). Listing `print` in
# `torch._dynamo.config.reorderable_logging_functions` removes both: Dynamo prints after the graph, the same text.
import torch
import torch.nn as nn


class Scaler(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        h = self.proj(x).relu()
        print("hidden", h.sum())
        out = h * 2 + 1
        print(f"mean {out.mean()}")
        return out


def main():
    torch.manual_seed(0)
    model = Scaler()
    return torch.compile(model, backend="eager")(torch.randn(2, 4))
