# A `match` on a mode the driver passes as a literal: only the matching case runs under Dynamo. The breaks in the
# other cases (a print, `.item()`, the wildcard's `.tolist()`) are never traced: no break.
import torch


def pool(x: torch.Tensor, mode: str):
    match mode:
        case "mean":
            out = x.mean(dim=0)
        case "max" | "amax":
            print("max pooling", x.shape)
            out = x.amax(dim=0)
        case "sum" if x.dim() > 1:
            out = x.sum(dim=0) * x.sum().item()
        case _:
            out = torch.tensor(x.tolist())
    return out * 2


class Pool(torch.nn.Module):
    def __init__(self, mode: str):
        super().__init__()
        self.mode = mode

    def forward(self, x):
        return pool(torch.relu(x), self.mode)


def main():
    model = torch.compile(Pool("mean"), backend="eager")
    model(torch.randn(4, 3))
