"""`self.flag = torch.ones(1)` then `if self.flag:` reads the tensor back only where the class keeps it. A
`__setattr__` that hands the value on unchanged (torchmetrics' `Metric.__setattr__` raising for its constants,
transformers' `PretrainedConfig` renaming keys alike in `__getattribute__`) keeps it: Dynamo breaks on the
tensor. A `__setattr__` set in the class body to a function that stores `bool(...)`, one that stores a changed
value (or hands it on unchanged to a base class's that does), a `__getattribute__` that answers for the name, and a
descriptor class attribute (`flag = AsBool()`) give something else: no break, and gblint must not claim one."""
import torch


class AsBool:
    def __set_name__(self, owner, name):
        self.name = "_" + name

    def __get__(self, obj, objtype=None):
        return getattr(obj, self.name)

    def __set__(self, obj, value):
        object.__setattr__(obj, self.name, bool(value.sum() > 0) if torch.is_tensor(value) else value)


def to_bool_setattr(self, name, value):
    if torch.is_tensor(value) and name == "flag":
        value = bool(value.sum() > 0)
    object.__setattr__(self, name, value)


class WithDescriptor:
    flag = AsBool()

    def __init__(self):
        self.flag = torch.ones(1)

    def run(self, x):
        if self.flag:
            return x + 1
        return x - 1


class SetattrFunction:
    __setattr__ = to_bool_setattr

    def __init__(self):
        self.flag = torch.ones(1)

    def run(self, x):
        if self.flag:
            return x + 2
        return x - 2


class ChangesValue:
    def __setattr__(self, name, value):
        if torch.is_tensor(value):
            value = bool(value.sum() > 0)
        super().__setattr__(name, value)

    def __init__(self):
        self.flag = torch.ones(1)

    def run(self, x):
        if self.flag:
            return x + 3
        return x - 3


class Answers:
    def __getattribute__(self, name):
        if name == "flag":
            return False
        return super().__getattribute__(name)

    def __init__(self):
        self.flag = torch.ones(1)

    def run(self, x):
        if self.flag:
            return x + 4
        return x - 4


class Guarded:
    def __setattr__(self, name, value):
        if name in ("higher_is_better", "full_state_update"):
            raise RuntimeError(f"Can't change const `{name}`.")
        super().__setattr__(name, value)

    def __init__(self):
        self.flag = torch.ones(1)

    def run(self, x):
        if self.flag:
            return x + 5
        return x - 5


class Renamed:
    attribute_map = {"hidden": "width"}

    def __setattr__(self, key, value):
        if key in super().__getattribute__("attribute_map"):
            key = super().__getattribute__("attribute_map")[key]
        super().__setattr__(key, value)

    def __getattribute__(self, key):
        if key != "attribute_map" and key in super().__getattribute__("attribute_map"):
            key = super().__getattribute__("attribute_map")[key]
        return super().__getattribute__(key)

    def __init__(self):
        self.flag = torch.ones(1)

    def run(self, x):
        if self.flag:
            return x + 6
        return x - 6


class Chained(ChangesValue):
    def __setattr__(self, name, value):
        if name == "const":
            raise RuntimeError("constant")
        super().__setattr__(name, value)

    def run(self, x):
        if self.flag:
            return x + 7
        return x - 7


@torch.compile(backend="eager")
def changed(x, a, b, c, d, e):
    return a.run(x) + b.run(x) + c.run(x) + d.run(x) + e.run(x)


@torch.compile(backend="eager")
def kept(x, g, r):
    return g.run(x) + r.run(x)


def main():
    changed(torch.randn(3), WithDescriptor(), SetattrFunction(), ChangesValue(), Answers(), Chained())
    kept(torch.randn(3), Guarded(), Renamed())


if __name__ == "__main__":
    main()
