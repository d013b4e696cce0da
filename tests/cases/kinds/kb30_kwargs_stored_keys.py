# A wrapper that fills keywords into the `**kwargs` it passes on (`kwargs[name] = ...` for each name of a list,
# `kwargs["is_causal"] = ...`, `kwargs.pop("legacy", None)`), then tests `kwargs.get("debug_io", False)`: the dict
# holds the caller's keywords and the keys stored, no other, so `debug_io` is absent, the `else` arm runs and the
# callee's print is a graph break (transformers' merge_with_config_defaults). Before, any change in place made the
# dict hold anything: the break was conditional on `kwargs.get("debug_io", False)`. `stores_the_tested_key` stores
# the key it tests, with a value read from the environment: not decided (here True: the print never runs).
import os

import torch

DEFAULTS = ["use_cache", "output_attentions"]


def inner(x, use_cache=None, output_attentions=None, is_causal=None, scale=None):
    print("inner")
    return x * scale


def wrapper(x, **kwargs):
    for name in DEFAULTS:
        if kwargs.get(name) is None:
            kwargs[name] = False
    kwargs["is_causal"] = True
    kwargs.pop("legacy", None)
    if kwargs.get("debug_io", False):
        return x + 1
    return inner(x, **kwargs)


def stores_the_tested_key(x, **kwargs):
    for name in ("debug_io", "use_cache"):
        kwargs[name] = not os.environ.get("KB30_QUIET")
    if kwargs.get("debug_io", False):
        return x + 1
    return inner_stored(x, scale=kwargs.get("scale", 1.0))


def inner_stored(x, scale=None):
    print("inner_stored")
    return x * scale


def forward(x):
    return wrapper(x, scale=2.0, legacy=1)


def forward_stored(x):
    return stores_the_tested_key(x, scale=2.0)


def main():
    torch.compile(forward, backend="eager")(torch.ones(3))
    torch.compile(forward_stored, backend="eager")(torch.ones(3))


if __name__ == "__main__":
    main()
