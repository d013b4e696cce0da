# Nested tests inside a loop: an outer arm splits again, one inner arm calls a helper that converts a tensor
# element (GB0124), the other breaks directly; the outer else breaks too. Every way meets a break: the frame is
# skipped whichever runs and the count test after them is never reached.
import torch


def width_of(row: torch.Tensor):
    return int(row[1] - row[0])


def gather(feats: torch.Tensor, spans: torch.Tensor, by_width: bool, clamp: bool):
    out = feats.new_zeros(feats.shape[-1])
    for r in range(spans.shape[0]):
        if by_width:
            if clamp:
                w = width_of(spans[r])
            else:
                w = spans[r, 1].item()
        else:
            w = spans[r].max().item()
        out = out + feats[:w].sum(0)
        if spans[r].sum() > 2:
            out = out * 0.5
    return out


class Gather(torch.nn.Module):
    def forward(self, feats, spans):
        return gather(feats + 0, spans, feats.shape[0] > 2, feats.shape[1] > 5)


def main():
    model = torch.compile(Gather(), backend="eager")
    model(torch.randn(4, 3), torch.tensor([[0, 2], [1, 3]]))
