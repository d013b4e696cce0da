# What `**opts` collects is not known before the run: the keywords come from a table read at run time
# (`json.loads`), a helper the dict is handed to adds one (`mark`), or one returns it and the caller adds through
# that name (`same`). All are non-empty in this run, so the checks warn or print and the graph breaks; gblint
# cannot decide the tests: conditional.
import json
import warnings

import torch
import torch.nn as nn

SETTINGS = json.loads('{"verbose": true}')


def warn_unused(leftover, name=None):
    if len(leftover) > 0:
        warnings.warn(f"{name}: unexpected {leftover}")


def step(x, rate=0.1, **opts):
    warn_unused(opts, name="step")
    return x * rate


def mark(store):
    store["seen"] = True


def stamp(x, **meta):
    mark(meta)
    if len(meta) > 0:
        print("meta", sorted(meta))
    return x


def same(table):
    return table


def tag(x, **labels):
    alias = same(labels)
    alias["late"] = True
    if labels:
        print("labels", sorted(labels))
    return x


class Stepper(nn.Module):
    def forward(self, x):
        y = step(x, rate=0.2, **SETTINGS)
        return tag(stamp(y)).sum()


def main():
    torch.compile(Stepper(), backend="eager")(torch.randn(2, 2))
