# gblint-fix: --unsafe-fixes
import torch as T


def clip_by_norm(g: T.Tensor, max_norm):
    norm = g.norm()
    g = T.where(norm > max_norm, g * (max_norm / norm), g)
    return g + 0


compiled = T.compile(clip_by_norm)
