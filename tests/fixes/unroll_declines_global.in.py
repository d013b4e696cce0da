import torch

total = 0


@torch.compile
def f(x):
    for i in range(3):
        global total
        total = total + i
        print(i)
    return x
