# gblint-fix: --unsafe-fixes
# `g` is only used as a tensor (`g.norm()`): a guess, so no rewrite (a non-tensor passed in would make
# `T.where` raise); tests/fixes/where.in.py annotates it.
import torch as T


def clip_by_norm(g, max_norm):
    norm = g.norm()
    if norm > max_norm:
        g = g * (max_norm / norm)
    return g + 0


compiled = T.compile(clip_by_norm)
