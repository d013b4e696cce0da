# A tensor made with dtype=torch.bool (a factory's keyword, `.to(torch.bool)`, `x.new_ones(..., dtype=torch.bool)`)
# is a boolean mask: indexing with it has a data-dependent size (GB0036); in a loop the frame is skipped, and a
# break after the loop is never traced. Before, such a mask was not known: nothing was reported in the loop and the
# `.unique()` after it was a definite break Dynamo never reached (found by a fresh helper's probe).
import torch


def f(col, row):
    mask = torch.ones(row.size(0), dtype=torch.bool)
    parts = []
    for _ in range(2):
        parts.append(col[mask])
    return torch.cat(parts).unique()


def g(col):
    keep = (col * 0 + 1).to(torch.bool)
    return col[keep]


def h(col):
    keep = col.new_ones(col.size(0), dtype=torch.bool)
    return col[keep]


def main():
    col, row = torch.randint(0, 20, (64,)), torch.randint(0, 20, (64,))
    torch.compile(f, backend="eager")(col, row)
    torch.compile(g, backend="eager")(col)
    torch.compile(h, backend="eager")(col)
