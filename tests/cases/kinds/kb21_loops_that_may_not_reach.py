# What a loop may skip: a loop over range(n - 2) with n = 2 takes no step (its print never runs); a loop's else
# runs only when the loop ends without break; what follows a loop whose body may return runs only when no step
# returned; a name bound by an import that fails or by its except-ImportError fallback is either. None of these
# prints runs here (no break); gblint reports the last three conditionally, the first not at all.
import torch

try:
    from gblint_no_such_package_kb21 import helper
except ImportError:
    helper = None


def zero_steps(x, n):
    for _ in range(n - 2):
        print("step")
    return x + 1


def loop_else(x, n):
    for i in range(4):
        if i == n:
            break
    else:
        print("no break")
    return x + 1


def loop_return(x, n):
    for i in range(3):
        if n is None:
            return x - 1
        n = None
    print("done")
    return x + 1


def fallback(x):
    if helper is not None:
        print("has helper")
    return x + 1


def main():
    x = torch.ones(2)
    torch.compile(zero_steps, backend="eager")(x, 2)
    torch.compile(loop_else, backend="eager")(x, 2)
    torch.compile(loop_return, backend="eager")(x, 5)
    torch.compile(fallback, backend="eager")(x)
