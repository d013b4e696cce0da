import torch


@torch.compile
def refine(x):
    for step in range(3):
        if step == 1:
            break
        print(step)
    return x.cos()
