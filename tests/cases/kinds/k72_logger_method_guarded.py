# `logger.info(...)` (a logging.Logger method) in a compiled function: a break (GB0291). Dynamo cannot reorder
# a bound method (reorderable_logging_functions takes functions and builtins), so the fix guards the call.
import logging

import torch

logger = logging.getLogger("k72")


@torch.compile(backend="eager")
def normalize(x):
    centered = x - x.mean()
    logger.info("normalizing %d values", x.numel())
    return centered / (centered.std() + 1e-5)


def main():
    return normalize(torch.arange(6.0))
