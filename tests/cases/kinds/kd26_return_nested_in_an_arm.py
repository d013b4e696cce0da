import os

import torch

A = os.environ.get("GBLINT_KD26_A") != "0"
B = os.environ.get("GBLINT_KD26_B") != "0"


def both_flags(x):
    if A:
        if B:
            return x + 1
    print("not returned")
    return x * 2


def flag_then_dtype(x):
    if A:
        if x.is_complex():
            return x + 1
    print("not returned")
    return x * 2


def else_arm(x):
    if x.is_complex():
        x = x.real
    else:
        if B:
            return x - 1
    print("not returned")
    return x * 2


def main():
    x = torch.rand(3)
    return [torch.compile(f)(x) for f in (both_flags, flag_then_dtype, else_arm)]
