import torch


class Check(torch.nn.Module):
    def forward(self, preds, target):
        if not preds.is_floating_point() or preds.is_complex():
            if (preds > 1).any():
                preds = preds.clamp(0, 1)
        if preds.is_floating_point():
            if preds.device == torch.device("cpu"):
                if not torch.all((preds >= 0) * (preds <= 1)):
                    preds = preds.sigmoid()
        if preds.is_cuda or preds.device.type != "cpu":
            if (preds > 0).any():
                preds = preds - 1
        if target.device.type == "cpu" and target.is_cpu:
            if (target > 0).any():
                target = target + 1
        return preds * target


def by_function(x):
    if not torch.is_floating_point(x) or torch.is_complex(x):
        if (x > 0).any():
            x = x + 1
    return x * 2


def main():
    model = torch.compile(Check())
    preds = torch.rand(32) * 2
    target = torch.randint(0, 2, (32,))
    return model(preds, target), torch.compile(by_function)(torch.randn(4))
