import torch


@torch.compile
async def f(x, it):
    y = x + 1
    async for v in it:
        print(v)
    return y * 2
