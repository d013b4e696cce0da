import torch


@torch.compile
def sum_features(feats, scale):
    out = torch.zeros_like(feats[0])
    def _sum_features_loop(out):
        for f in feats:
            out = out + f.abs()
            torch._dynamo.graph_break()
        return out
    out = _sum_features_loop(out)
    return out * scale
