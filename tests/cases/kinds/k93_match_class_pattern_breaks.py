# A class pattern is not decided before the run: the print in its case is a break when that case runs. The driver
# passes the matching object: the print breaks (GB0059 family); gblint reports it conditional on the pattern.
import torch


class Verbose:
    pass


class Quiet:
    pass


def step(x: torch.Tensor, mode):
    match mode:
        case Verbose():
            print("step", x.shape)
    return x + 1


def main():
    fn = torch.compile(step, backend="eager")
    fn(torch.randn(3), Verbose())
