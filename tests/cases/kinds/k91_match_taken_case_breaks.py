# The driver's literal picks the case whose body calls `.item()`: that case is traced and breaks (GB0124 family);
# the earlier case with a print is not taken.
import torch


def scale(x: torch.Tensor, norm: str):
    match norm:
        case "none":
            print("no norm")
            return x
        case "max":
            top = x.abs().max().item()
            return x / top
    return x


class Scaler(torch.nn.Module):
    def __init__(self, norm: str):
        super().__init__()
        self.norm = norm

    def forward(self, x):
        return scale(x * 3, self.norm) + 1


def main():
    model = torch.compile(Scaler("max"), backend="eager")
    model(torch.randn(5))
