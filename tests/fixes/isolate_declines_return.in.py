import torch


@torch.compile
def first_big(feats):
    total = feats[0] * 0
    for f in feats:
        print(f.shape)
        if f.shape[0] > 3:
            return f
    return total
