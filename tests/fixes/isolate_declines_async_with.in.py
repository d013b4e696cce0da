import torch


@torch.compile
async def f(x, xs, lock):
    y = x + 1
    for v in xs:
        async with lock:
            print(v)
    return y * 2
