"""A `for` loop over a conditional expression one arm of which is empty (torchmetrics'
`for t, name in ((target, "target"),) + ((preds, "preds"),) if not preds.is_floating_point() else ():`)
runs its body only when the test picks the other arm: a break in the body happens only then. With float
predictions the loop runs no step and Dynamo makes no break; with integer ones it breaks at `torch.unique`.
Either way gblint cannot decide the test, so the break is conditional on it, never definite. A test known
true (`True`) leaves the break definite."""
import torch


def check(preds, target):
    for t in (target,) + (preds,) if not preds.is_floating_point() else ():
        n = len(torch.unique(t))
        if n > 3:
            raise RuntimeError("too many values")


def check_negated(preds, target, skip):
    for t in () if skip else (target,):
        n = len(torch.unique(t))
        if n > 3:
            raise RuntimeError("too many values")


def check_always(target):
    for t in (target,) if True else ():
        n = len(torch.unique(t))
        if n > 3:
            raise RuntimeError("too many values")


@torch.compile(backend="eager")
def float_preds(preds, target):
    check(preds, target)
    return preds * 2


@torch.compile(backend="eager")
def int_preds(preds, target):
    check(preds, target)
    return preds * 2


@torch.compile(backend="eager")
def skipped(preds, target, skip):
    check_negated(preds, target, skip)
    return preds * 3


@torch.compile(backend="eager")
def always(preds, target):
    check_always(target)
    return preds * 4


def main():
    target = torch.randint(0, 3, (8,))
    float_preds(torch.randn(8), target)
    int_preds(torch.randint(0, 3, (8,)), target)
    skipped(torch.randn(8), target, True)
    always(torch.randn(8), target)


if __name__ == "__main__":
    main()
