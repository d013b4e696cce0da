"""Standard-library modules Dynamo skips (BUILTIN_SKIPLIST of torch/_dynamo/trace_rules.py, read from the installed
torch): a call of `importlib.import_module` or `linecache.getline` from compiled code is GB0007, however it was
imported; the skipped functions Dynamo runs on constant arguments (`re.match`, `re.sub`, `importlib.util.find_spec`)
and `copy.deepcopy`, which it inlines when called, do not break."""
import importlib
import importlib.util
import linecache
import re
from copy import deepcopy
from importlib import import_module

import torch


def backend(name):
    return import_module(name)


@torch.compile(backend="eager")
def load_and_scale(x):
    y = x * 2
    mod = importlib.import_module("math")
    return y + mod.pi


@torch.compile(backend="eager")
def through_helper(x):
    y = x + 1
    backend("math")
    return y * 3


@torch.compile(backend="eager")
def source_line(x):
    y = x - 1
    linecache.getline(__file__, 1)
    return y * 2


@torch.compile(backend="eager")
def clean(x, name="layer_3.weight"):
    found = re.match(r"layer_(\d+)", name)
    short = re.sub(r"\.weight$", "", name)
    sizes = deepcopy([1, 2])
    spec = importlib.util.find_spec("math")
    scale = len(short) + sizes[0] + (1 if spec is not None else 0) + (1 if found else 0)
    return x * scale


def main():
    x = torch.randn(4)
    load_and_scale(x)
    through_helper(x)
    source_line(x)
    clean(x)
