# gblint-fix: --unsafe-fixes
import torch as T


def clip_by_norm(g: T.Tensor, max_norm):
    norm = g.norm()
    if norm > max_norm:
        g = g * (max_norm / norm)
    return g + 0


compiled = T.compile(clip_by_norm)
