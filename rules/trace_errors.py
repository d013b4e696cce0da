"""Tensor ops that may fail while Dynamo traces them, inside a ``try`` meant to catch the failure.

Dynamo runs each op on fake tensors while it traces. When the op raises (mismatched shapes, a
``view`` of a non-contiguous tensor), Dynamo does not run the ``except`` clause the code has for
it: the fake-tensor call fails with ``TorchRuntimeError`` (GB4315 "RuntimeError when making fake
tensor call"), which is no graph break but a compile error that reaches the caller. Code that
works eagerly, by catching the error, fails compiled. Source: ``torch/_dynamo/utils.py``
(``get_fake_value``); semantics.md §8.19.
"""
import libcst as cst

from gblint.syntax import value_syntax
from gblint.core.model import BlockKind, Expr
from gblint.core.ops import Op
from gblint.abstract.tensors import maybe_tensor
from gblint.syntax.traversal import caught_types

from .base import Rule
from .notes import local_note, note_local

CATCH_RUNTIME = frozenset({"RuntimeError", "Exception", "BaseException"})


def _catches_runtime(node: cst.Try) -> bool:
    for handler in node.handlers:
        types = caught_types(handler)
        if types is None:
            return True
        for value in types:
            name = value.attr.value if isinstance(value, cst.Attribute) else getattr(value, "value", "")
            if name in CATCH_RUNTIME:
                return True
    return False


class OpFailsInTry(Rule):
    code = "GBL136"
    torch_versions = "<2.14"  # traced from 2.14 (docs/semantics.md §8.11)
    name = "op-fails-in-try"
    gb_ids = ("GB4315",)
    node_types = (cst.Try, cst.BinaryOperation, cst.Call)
    effect = "error"
    summary = ("A matmul or elementwise op of two tensors in a `try` whose `except` catches `RuntimeError` (a "
               "fallback for an op that may fail), inside compiled code, where the sizes the call passes make it fail.")
    why = ("When the op fails, it fails while Dynamo traces it on fake tensors: the `except` clause does not run, "
           "compiling raises `torch._dynamo.exc.TorchRuntimeError` to the caller (GB4315) and no graph is made.")
    hint = ("Decide between the two ops with a test Dynamo can evaluate (shapes, `is_contiguous()`), or compute "
            "the fallback unconditionally (`reshape` instead of `view`).")
    source = "torch/_dynamo/utils.py: get_fake_value (TorchRuntimeError); semantics.md §8.19"
    use_instead = (
        'import torch\n'
        '@torch.compile\n'
        'def f(a, b):\n'
        '    if a.shape[-1] == b.shape[0]:  # test the shapes instead of catching the error\n'
        '        return a @ b\n'
        '    return a @ b.t()\n'
    )
    measured = "tests/fixtures/measured/v55_try_shape_failure.py"
    examples_fire = (
        "import torch\n"
        "@torch.compile\n"
        "def f(a, b):  # expect: GBL409\n"
        "    try:\n"
        "        return a @ b  # expect: GBL136\n"
        "    except RuntimeError:\n"
        "        return a @ b.t()\n"
        "def main():\n"
        "    f(torch.randn(2, 3), torch.randn(2, 3))\n",
    )
    examples_clean = (
        "import torch\n"
        "@torch.compile\n"
        "def f(a, b):\n"
        "    try:\n"
        "        return a @ b\n"
        "    except RuntimeError:\n"
        "        return a @ b.t()\n"
        "def main():\n"
        "    f(torch.randn(2, 3), torch.randn(3, 2))\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(a, b):\n"
        "    if a.shape[-1] == b.shape[0]:\n"
        "        return a @ b\n"
        "    return a @ b.t()\n",
    )

    def check(self, node, ctx):
        if isinstance(node, cst.Try):
            if _catches_runtime(node) and ctx.blocks and ctx.blocks[-1].kind == BlockKind.TRY:
                note_local(ctx, "runtime-try", ctx.blocks[-1].line)
            return None
        block = next((b for b in reversed(ctx.blocks) if b.kind in (BlockKind.TRY, BlockKind.HANDLER)), None)
        if block is None or block.kind != BlockKind.TRY or local_note(ctx, "runtime-try", block.line) is not True:
            return None
        pair = _operands(node, ctx)
        if pair is None:
            return None
        op, left, right = pair
        kinds = [ctx.kind(left), ctx.kind(right)]
        if not all(maybe_tensor(k) for k in kinds):
            return None
        token = next((k for k in kinds if k.startswith("p:")), kinds[0])
        gate = Expr(Op.OP_FAILS, op, (value_syntax.expr_of(left, ctx), value_syntax.expr_of(right, ctx)))
        if gate.parts[0].op == Op.UNKNOWN or gate.parts[1].op == Op.UNKNOWN:
            return None
        note_local(ctx, "runtime-try", block.line, "reported")
        return self.site(node, "a tensor op inside a `try` that catches its `RuntimeError`, which fails for the sizes "
                               "the call passes", needs=token, outcome="error", gate=gate,
                         gate_text="the sizes make the op fail")


MATMULS = frozenset({"torch.matmul", "torch.mm", "torch.bmm"})
ELEMENTWISE = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)


def _operands(node, ctx):
    """``(op, left, right)`` for a binary tensor op whose success depends on its operands' sizes:
    ``a @ b`` / ``torch.matmul(a, b)`` / ``a.matmul(b)`` (``matmul``), ``a + b`` and the other
    elementwise operators (``broadcast``); None for anything else."""
    if isinstance(node, cst.BinaryOperation):
        if isinstance(node.operator, cst.MatrixMultiply):
            return "matmul", node.left, node.right
        if isinstance(node.operator, ELEMENTWISE):
            return "broadcast", node.left, node.right
        return None
    args = [a.value for a in node.args if a.keyword is None and not a.star]
    if ctx.resolve(node.func) in MATMULS and len(args) == 2:
        return "matmul", args[0], args[1]
    if isinstance(node.func, cst.Attribute) and node.func.attr.value in ("matmul", "mm", "bmm") and len(args) == 1:
        return "matmul", node.func.value, args[0]
    return None
