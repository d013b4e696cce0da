import torch


class TimeSpan:
    def __init__(self, start, end):
        if start > end:
            raise ValueError(f"start {start} should not exceed end {end}")
        self.start = start
        self.end = end

    def length(self):
        return self.end - self.start


@torch.compile(backend="eager")
def scaled_drift(y, ts):
    t0 = ts.min()
    t1 = ts.max()
    span = TimeSpan(t0, t1)
    return y * span.length()


def main():
    scaled_drift(torch.randn(3), torch.linspace(0, 1, 4))
