"""Units of the device facts (gblint.abstract.devices) and of ways that part at one statement
(gblint.dynamo.branch_cover.merged); the measured programs are tests/cases/kinds kd23 and kd25."""
import torch

from gblint.abstract import devices
from gblint.abstract.layouts import STRIDED
from gblint.abstract.values import UNKNOWN, const
from gblint.core.model import Block, BlockKind, Expr
from gblint.core.ops import Op
from gblint.dynamo.branch_cover import merged


def test_device_names_compare_as_torch_devices_do():
    """``torch.device`` equality as torch computes it: no index and index 0 differ, a device equals no string."""
    pairs = [("cpu",), ("cuda",), ("cuda:0",), ("cuda", 0), ("cuda", 1), ("meta",)]
    for a in pairs:
        for b in pairs:
            assert (devices.device_name(*a) == devices.device_name(*b)) == (torch.device(*a) == torch.device(*b)), (a, b)
    assert devices.device_name("cuda:0", 1) is None and devices.device_name("cu da") is None
    assert torch.device("cpu") != "cpu"


def test_attributes_of_a_tensor_on_the_default_device():
    t = Expr(Op.TENSOR, "float32", (STRIDED, devices.DEFAULT))
    assert devices.attribute(t, "device", "float32", False) == Expr(Op.DEVICE, "cpu")
    assert devices.attribute(t, "is_cuda", "float32", False) == const(False)
    assert devices.attribute(t, "is_cpu", "float32", False) == const(True)
    assert devices.attribute(t, "device", "float32", True) == UNKNOWN  # the program changes the default device
    assert devices.attribute(Expr(Op.TENSOR), "is_cuda", None, False) == UNKNOWN  # a tensor of no known device
    cuda = Expr(Op.DEVICE, "cuda:1")
    assert devices.attribute(cuda, "type", None, False) == const("cuda")
    assert devices.attribute(cuda, "index", None, False) == const(1)
    assert devices.attribute(Expr(Op.DEVICE, "cpu"), "index", None, False) == const(None)


def _arm(test):
    return Block(kind=BlockKind.BRANCH, line=1, column=0, test=test)


def test_ways_that_part_at_one_statement_merge():
    """Two ways to a break that part at one ``if`` and then make the same choices, through calls passing the same
    parameters, merge into one without that ``if``; calls passing other values, or other choices after it, do not."""
    flag, empty = Expr(Op.PARAM, "flag"), Expr(Op.PARAM, "empty")
    at_if = ((), "m.py", 3, 4)
    a = ((at_if, _arm(flag)), ((((1, "(x,)"),), "m.py", 9, 4), _arm(empty)))
    b = ((at_if, _arm(Expr(Op.NOT, parts=(flag,)))), ((((2, "(x,)"),), "m.py", 9, 4), _arm(empty)))
    assert merged(a, b) == (((((1, "(x,)"),), "m.py", 9, 4), _arm(empty)),)
    other = ((at_if, _arm(Expr(Op.NOT, parts=(flag,)))), ((((2, "(x,)"),), "m.py", 10, 4), _arm(empty)))
    assert merged(a, other) is None  # after the statement, another choice
    passes_other = ((at_if, _arm(Expr(Op.NOT, parts=(flag,)))), ((((2, None),), "m.py", 9, 4), _arm(empty)))
    assert merged(a, passes_other) is None  # the other arm's call passes something else (`x[:0]`)
    same_arm = ((at_if, _arm(flag)), ((((2, "(x,)"),), "m.py", 9, 4), _arm(empty)))
    assert merged(a, same_arm) is None  # the same arm twice covers nothing


def test_the_device_a_tensor_reports():
    """A CPU or meta tensor's device has no index whatever the factory was given; another's index is the current
    device's where none was named (not known here)."""
    for given in ("cpu", "cpu:0", "meta"):
        assert devices.on_tensor(given) == str(torch.zeros(1, device=given).device)
    assert devices.on_tensor("cuda") is None and devices.on_tensor("cuda:1") == "cuda:1"
