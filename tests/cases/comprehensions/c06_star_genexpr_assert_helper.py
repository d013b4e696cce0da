# A generator expression star-unpacked into a helper that asserts its *args tuple is non-empty.
import torch


def concat_all(*chunks):
    assert chunks, "nothing to join"
    return torch.cat(chunks)


def project(x, scales):
    y = x.relu()
    return concat_all(*(y * s for s in scales))


def main():
    torch.compile(project, backend="eager")(torch.randn(3), [1.0, 2.0])
