# A name bound in two cases, a tensor in one and a Python int in the other: after the statement it holds what the
# case that ran bound. The driver's kind takes the int case, so the `if` after the match tests a Python int:
# no break. (Before `match` had blocks, the later case's binding was taken as the value.)
import torch


class Cfg:
    kind = "int"


def width(x: torch.Tensor, cfg: Cfg):
    match cfg.kind:
        case "int":
            w = 3
        case "tensor":
            w = x.sum()
    if w > 1:
        x = x * 2
    return x


def main():
    fn = torch.compile(width, backend="eager")
    fn(torch.randn(4), Cfg())
