"""A convolutional classifier with the usual debugging leftovers.
gblint reports: GBL401 line 36 (a data-dependent `if` in Classifier.forward, compiled with
fullgraph=True: a compile error) and GBL409 line 33 (so that frame gets no compiled graph);
GBL301 line 47 (`torch._dynamo.graph_break()` in ema_update under `torch.no_grad()`, a manager
that resumes: a nested break that splits ema_step and ema_update). augment's f-string of a
tensor and its `contextlib.suppress` block compile into one graph: nothing is reported there.
"""
import contextlib

import torch
import torch.nn as nn


class Residual(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)
        self.bn = nn.BatchNorm2d(channels)

    def forward(self, x):
        h = torch.relu(self.bn(self.conv1(x)))
        return x + self.conv2(h)


class Classifier(nn.Module):
    def __init__(self, classes: int = 10):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1)
        self.stage = Residual(16)
        self.fc = nn.Linear(16, classes)

    def forward(self, x):
        x = self.stage(torch.relu(self.stem(x)))
        x = x.mean(dim=(2, 3))
        if x.isnan().any():
            x = torch.zeros_like(x)
        return self.fc(x)


classifier = torch.compile(Classifier(), fullgraph=True)


def ema_update(avg, new, decay):
    with torch.no_grad():
        avg = avg * decay
        torch._dynamo.graph_break()
        return avg + (1 - decay) * new


@torch.compile
def augment(images, strength):
    images = images + 0.1 * torch.randn_like(images)
    tag = f"mean={images.mean()}"
    with contextlib.suppress(RuntimeError):
        images = images.flip(-1)
    return images, tag


@torch.compile
def ema_step(avg, params):
    return ema_update(avg, params, 0.99)
