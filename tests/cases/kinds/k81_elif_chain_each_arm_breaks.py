# An if/elif/else on a reduction name read at run time: every arm builds a slice object from a tensor's
# elements inside the loop (GB0124), so the frame is skipped whichever arm runs; the mask test after is not met.
import os

import torch

MODE = os.environ.get("GBLINT_K81_MODE", "mean")


def segment(values: torch.Tensor, bounds: torch.Tensor):
    out = []
    for k in range(bounds.numel() - 1):
        if MODE == "sum":
            part = values[slice(bounds[k], bounds[k + 1])].sum()
        elif MODE == "max":
            part = values[slice(bounds[k], bounds[k + 1])].max()
        else:
            part = values[slice(bounds[k], bounds[k + 1])].mean()
        if (part > 0).any():
            part = part * 2
        out.append(part)
    return torch.stack(out)


class Segments(torch.nn.Module):
    def forward(self, v, b):
        return segment(v - 1, b)


def main():
    model = torch.compile(Segments(), backend="eager")
    model(torch.randn(7), torch.tensor([0, 3, 7]))
