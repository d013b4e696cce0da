"""Data-dependent control flow: Python ``if``/``while``/ternary/``and``/``or`` on a tensor.

Source: ``torch/_dynamo/symbolic_convert.py`` ``generic_jump`` ("Data-dependent branching",
GB0170). Branches on shapes, ``numel()``, ``dim()``, ``dtype``, ``isinstance`` are guards,
not breaks; ``assert`` on a tensor is rewritten to ``torch._assert_async`` (semantics.md §1), but
only where its bytecode is the plain ``POP_JUMP_IF_TRUE; LOAD_ASSERTION_ERROR[; LOAD_CONST; CALL];
RAISE_VARARGS`` (``_detect_and_normalize_assert_statement``): ``assert not t``, a chained comparison
and a message computed at run time (``f"{name}"``, ``"...".format(x)``, a global) branch on the tensor.
"""
import libcst as cst

from gblint.syntax import value_syntax
from gblint.core.model import Expr, Kind
from gblint.core.ops import Op
from gblint.syntax.positions import INDEXED
from gblint.abstract.tensors import maybe_tensor
from gblint.syntax.traversal import code_of

from .base import Rule
from . import check_rewrite
from .check_rewrite import guard_needs
from .indexing import random_value


# how a message names the statement whose test branches
_WHAT = {cst.If: "`if`", cst.While: "`while`", cst.IfExp: "conditional expression"}


class DataDependentBranch(Rule):
    code = "GBL105"
    name = "data-dependent-branch"
    gb_ids = ("GB0170",)
    node_types = (cst.If, cst.While, cst.IfExp, cst.BooleanOperation, cst.Assert)
    summary = ("A Python branch (`if`, `while`, ternary, `and`/`or`, an `assert` Dynamo cannot rewrite) whose condition "
               "is a tensor.")
    why = "Python must know the tensor's value to pick a branch: the graph ends here (a frame skip inside a loop)."
    hint = ("Compute both branches and select with `torch.where(cond, a, b)`, or use `torch.cond`; check data with "
            "`torch._assert_async(cond, msg)` instead of `if ...: raise`; in an `assert`, test the tensor itself "
            "(`assert torch.logical_not(t)`, not `assert not t`) with a constant message.")
    source = "torch/_dynamo/symbolic_convert.py: generic_jump; semantics.md §1"
    use_instead = (
        "import torch\n"
        "@torch.compile\n"
        "def f(g, max_norm):\n"
        "    norm = g.norm()\n"
        "    return torch.where(norm > max_norm, g * (max_norm / norm), g)\n"
    )
    measured = "tests/cases/examples/057_tensor_if_branch.py"
    examples_fire = (
        "import torch\n"
        "class Acc:\n"
        "    def total(self, x):\n"
        "        return x.sum()\n"
        "acc = Acc()\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    t = acc.total(x)\n"
        "    if t > 1:  # expect: GBL105\n"
        "        return x\n"
        "    return -x\n"
        "f(torch.ones(3))\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(g, max_norm):\n"
        "    norm = g.norm()\n"
        "    if norm > max_norm:  # expect: GBL105\n"
        "        g = g * (max_norm / norm)\n"
        "    return g\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    y = x * 2 if x.mean() > 0 else -x  # expect: GBL105\n"
        "    ok = (y.min() > -10) and (y.max() < 10)  # expect: GBL105\n"
        "    return y * ok\n",
        "import random\n"
        "import torch\n"
        "@torch.compile\n"
        "def f(x, p):\n"
        "    x = x * 2\n"
        "    if random.uniform(0, 1) < p:  # expect: GBL105\n"
        "        return x\n"
        "    return x + 1\n",
        "import numpy as np\n"
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    a = x.detach().numpy()\n"
        "    if np.abs(a).max() > 10:  # expect: GBL105\n"
        "        return x / 10\n"
        "    return x\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    y = x * 2\n"
        "    if not torch.isfinite(y).all():  # expect: GBL105\n"
        "        raise ValueError('non-finite')\n"
        "    return y\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x, name: str):\n"
        "    assert not torch.isnan(x).any(), 'nan'  # expect: GBL105\n"
        "    assert (x > 0).all(), f'{name} must be positive'  # expect: GBL105\n"
        "    return x * 2\n",
    )
    examples_clean = (
        "import torch\n"
        "class Acc:\n"
        "    def rank(self, x):\n"
        "        return len(x.shape)\n"
        "acc = Acc()\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    n = acc.rank(x)\n"
        "    if n > 1:\n"
        "        return x.flatten()\n"
        "    return x\n"
        "f(torch.ones(3))\n",
        "import random\n"
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    scale = random.uniform(0.5, 1.5)  # traced, used as a tensor: no Python branch\n"
        "    return x * scale\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    if x.shape[0] > 2:\n"
        "        x = x * 2\n"
        "    if x.numel() % 2 == 0 and x.dim() == 1:\n"
        "        x = x + 1\n"
        "    if isinstance(x, torch.Tensor):\n"
        "        x = x - 1\n"
        "    assert (x.abs() < 1e6).all()\n"
        "    assert (x > -1e6).all(), 'too ' 'small'\n"
        "    return x\n",
        "import torch\n"
        "from transformers.utils import is_tracing\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    if not is_tracing(x) and (x[:, -1] == 0).all():\n"
        "        return None\n"
        "    return x\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x, limit):\n"
        "    if limit < 0:\n"
        "        limit = 0\n"
        "    return x.clamp(max=limit)\n",
    )

    def check(self, node, ctx):
        if isinstance(node, cst.Assert):
            return self._assert(node, ctx)
        if isinstance(node, (cst.If, cst.While)):
            test = node.test
            if ctx.compiling_guard(test) is not None:
                return None
        elif isinstance(node, cst.IfExp):
            test = node.test
        else:
            test = node.left
        k = ctx.kind(test)
        if _random_test(test, ctx):
            what = _WHAT.get(type(node), "`and`/`or`")
            return self.site(test, f"{what} on a traced `random` value (data-dependent branching)")
        if k == "S":
            # a branch on `.item()`: a real Python value after the `.item()` break, but a data-dependent
            # guard where scalars are captured (fullgraph=True, capture_scalar_outputs=True)
            captured = bool(ctx.config("capture_scalar_outputs", False))
            return self.site(test, "branch on a scalar read from a tensor (data-dependent guard)",
                             needs_capture=not captured, gb_ids=("GB0170",))
        if maybe_tensor(k) and isinstance(node, tuple(_WHAT)) \
                and isinstance(test, cst.BooleanOperation):
            late = _late_tensor_operand(test, ctx)
            if late is not None:  # `flag and t.any()`: the jump on the tensor runs only when `flag` lets it
                operand, before, is_and = late
                gate = Expr(Op.AND, parts=tuple(value_syntax.expr_of(b, ctx) for b in before))
                if not is_and:
                    gate = Expr(Op.NOT, parts=(Expr(Op.OR, parts=tuple(value_syntax.expr_of(b, ctx) for b in before)),))
                text = " and ".join(code_of(b) for b in before) if is_and else \
                    "not (" + " or ".join(code_of(b) for b in before) + ")"
                what = _WHAT[type(node)]
                # `if flag and not t.all(): raise E("msg")` -> `if flag: torch._assert_async(t.all(), "msg")`
                guard = guard_needs(node, ctx, gated=True) if operand is test.right and is_and else None
                return self.site(operand, f"{what} on a tensor value (data-dependent branching)",
                                 needs=ctx.kind(operand), python_value=True,
                                 fix_needs=self.where_needs(node, ctx) or guard,
                                 gate=gate, gate_kind="branch", gate_text=text)
        if maybe_tensor(k):
            what = _WHAT.get(type(node))
            if what is None:
                op = "and" if isinstance(node.operator, cst.And) else "or"
                what = f"`{op}`"
            return self.site(test, f"{what} on a tensor value (data-dependent branching)", needs=k,
                             python_value=True, fix_needs=self.where_needs(node, ctx) or guard_needs(node, ctx))
        if k in (Kind.UNKNOWN, Kind.PROBABLE) and isinstance(node, tuple(_WHAT)):
            # how the test is written does not tell its kind (`t = acc.add(x)`, then `if t > 1:`): a break
            # only where the walk proves the value it computes for the test to be a tensor (a gate)
            what = _WHAT[type(node)]
            # at the test where gblint.syntax.positions places it as libcst does (not `(a\n and b)`): else the statement
            where = test if type(test) in INDEXED else node
            return self.site(where, f"{what} on a tensor value (data-dependent branching)", python_value=True,
                             gate=Expr(Op.HOLDS_TENSOR, parts=(value_syntax.expr_of(test, ctx),)),
                             gate_text=f"`{code_of(test)}` is a tensor")
        return None

    def _assert(self, node: cst.Assert, ctx):
        """``assert T, msg`` on a tensor ``T``: Dynamo keeps it in the graph when the jump is the
        plain truth test followed by the raise with no message or one constant message; ``not T``
        (CPython inverts the jump) and a chained comparison (a jump between the comparisons) branch
        on the tensor, and so does a message computed at run time. An ``and``/``or`` test is the
        :class:`cst.BooleanOperation`'s own site. Measured: tests/cases/kinds/kb45."""
        test, negated = node.test, False
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, negated = test.expression, not negated
        if isinstance(test, cst.BooleanOperation):
            return None
        chained = isinstance(test, cst.Comparison) and len(test.comparisons) > 1
        if chained and isinstance(test.comparisons[0].operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)):
            return None  # the first jump is on a Python bool
        if chained:
            # the first jump is on the first comparison (`a <= t` of `a <= t <= b`)
            k = _stronger(ctx.kind(test.left), ctx.kind(test.comparisons[0].comparator))
            how = "a chained comparison"
        elif negated:
            k, how = ctx.kind(test), "`assert not`"
        elif node.msg is not None and _run_time(node.msg):
            k, how = ctx.kind(test), "a run-time message"
        else:
            return None
        what = f"`assert` with {how}" if not negated or chained else how
        where = node.test if type(node.test) in INDEXED else node
        # `assert not T, "msg"` -> `assert torch.logical_not(T), "msg"`; a message formatted at run time into a
        # str -> `torch._assert_async(T, msg)` (check_rewrite.negated_assert, check_rewrite.assert_async)
        if node.msg is None or check_rewrite.literal(node.msg):
            shaped = negated
        else:  # what the message formats is evaluated on every call after the rewrite: known Python values only
            shaped = check_rewrite.formats(node.msg) and all(
                ctx.kind(p) == Kind.PYTHON for p in check_rewrite.formatted_parts(node.msg))
        fix = ctx.known_tensor(test) if shaped and not chained else None
        if maybe_tensor(k) and not (chained and k != Kind.TENSOR):
            return self.site(where, f"{what} on a tensor value (data-dependent branching)", needs=k, python_value=True,
                             fix_needs=(fix,) if fix else None)
        if chained:
            # the first comparison is a tensor when either of its operands is one
            parts = (test.left, test.comparisons[0].comparator)
            gate = Expr(Op.OR, parts=tuple(Expr(Op.HOLDS_TENSOR, parts=(value_syntax.expr_of(p, ctx),)) for p in parts))
            text = " or ".join(f"`{code_of(p)}`" for p in parts) + " is a tensor"
        elif k in (Kind.UNKNOWN, Kind.PROBABLE):
            gate = Expr(Op.HOLDS_TENSOR, parts=(value_syntax.expr_of(test, ctx),))
            text = f"`{code_of(test)}` is a tensor"
        else:
            return None
        return self.site(where, f"{what} on a tensor value (data-dependent branching)", python_value=True,
                         gate=gate, gate_text=text)

    @staticmethod
    def where_needs(node, ctx):
        """For ``if c: x = a`` (``else: x = b``), the kind tokens of ``c``, ``a`` and ``b`` (``x``
        itself without ``else``) when each is known to be a tensor: the ``torch.where`` rewrite
        needs all three to be. None otherwise (another shape, or a value not known to be a tensor)."""
        if not isinstance(node, cst.If):
            return None
        then = single_assign(node.body)
        if then is None:
            return None
        if node.orelse is None:
            other = cst.Name(then[0])
        elif isinstance(node.orelse, cst.Else) and single_assign(node.orelse.body) is not None \
                and single_assign(node.orelse.body)[0] == then[0]:
            other = single_assign(node.orelse.body)[1]
        else:
            return None
        tokens = tuple(ctx.known_tensor(e) for e in (node.test, then[1], other))
        return None if None in tokens else tokens


def _stronger(a: str, b: str) -> str:
    """The kind of ``a OP b`` as far as a branch on it goes: a tensor when either may be one."""
    if Kind.TENSOR in (a, b):
        return Kind.TENSOR
    if maybe_tensor(a):
        return a
    if maybe_tensor(b):
        return b
    return Kind.UNKNOWN if Kind.UNKNOWN in (a, b) or Kind.PROBABLE in (a, b) else a


def _run_time(msg: cst.BaseExpression) -> bool:
    """Whether CPython surely computes the message ``msg`` at run time instead of loading it with one
    ``LOAD_CONST``: it reads a name or an attribute, calls, formats an f-string placeholder, builds a
    list, set or dict, formats with ``%`` (left to run time, measured: kb45), or adds an f-string (the
    optimizer folds only plain constants). An expression of literals alone is folded to one constant
    (``"a" if True else "b"``, ``("x", "y")[0]``, ``"a" + "b"``): no break (a constant that is not a
    string makes ``_assert_async`` raise instead, which is not a graph break)."""
    found = []

    class _Reads(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            if node.value not in ("True", "False", "None", "__debug__"):
                found.append(node)

        def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
            if isinstance(node.operator, cst.Modulo) and not isinstance(node.left, (cst.Integer, cst.Float)):
                found.append(node)
            elif any(isinstance(side, cst.FormattedString) for side in (node.left, node.right)):
                found.append(node)

        def visit_FormattedStringExpression(self, node) -> None:
            found.append(node)

        def visit_List(self, node) -> None:
            found.append(node)

        def visit_Set(self, node) -> None:
            found.append(node)

        def visit_Dict(self, node) -> None:
            found.append(node)

    msg.visit(_Reads())
    return bool(found)


def _late_tensor_operand(test: cst.BooleanOperation, ctx):
    """For a test ``a and b and t`` (or the same with ``or``) whose first operand that may be a
    tensor is not the first: ``(that operand, the operands before it, whether the operator is
    ``and``)``. Python evaluates operands left to right and stops at the first that decides, so
    the branch on the tensor happens only when those before it let evaluation go on. None when
    the operators are mixed or the first operand may be a tensor (the ``and``/``or`` itself breaks)."""
    op = type(test.operator)
    operands = []
    node = test
    while isinstance(node, cst.BooleanOperation) and isinstance(node.operator, op) and (node is test or not node.lpar):
        operands.insert(0, node.right)
        node = node.left
    operands.insert(0, node)
    for i, operand in enumerate(operands):
        if maybe_tensor(ctx.kind(operand)):
            return (operand, operands[:i], op is cst.And) if i > 0 else None
    return None


def _random_test(test, ctx) -> bool:
    """Whether ``test`` compares (or is) a value of ``random`` Dynamo traces (``random.uniform(0, 1) < p``):
    a graph input, so the branch is data-dependent (semantics.md §8.4)."""
    if isinstance(test, cst.Comparison):
        return any(random_value(p, ctx) for p in [test.left] + [c.comparator for c in test.comparisons])
    if isinstance(test, cst.UnaryOperation):
        return _random_test(test.expression, ctx)
    return random_value(test, ctx)


def single_assign(block):
    """``(name, value)`` when ``block`` (a libcst block) is the single statement ``name = value``,
    else None. Shared with the ``torch.where`` rewrite (:func:`gblint.rules.where_rewrite.to_where`)."""
    stmts = block.body if isinstance(block, cst.IndentedBlock) else []
    if len(stmts) != 1 or not isinstance(stmts[0], cst.SimpleStatementLine) or len(stmts[0].body) != 1:
        return None
    a = stmts[0].body[0]
    if isinstance(a, cst.Assign) and len(a.targets) == 1 and isinstance(a.targets[0].target, cst.Name):
        return a.targets[0].target.value, a.value
    return None


class AssertTensorContainer(Rule):
    code = "GBL140"
    name = "assert-tensor-container"
    gb_ids = ("GB0112",)
    node_types = (cst.Assert,)
    effect = "skip"
    summary = "`assert` on a tuple or list that holds tensors (`assert args` on a `*args` tuple of tensors)."
    why = ("Dynamo rewrites `assert` to a tensor assertion: it calls `torch.scalar_tensor` on the tested value, which "
           "fails on a tuple of tensors (GB0112). It cannot resume there: its frame runs eagerly from the last "
           "checkpoint (skipped without one); a caller that inlined the function breaks at the call and resumes.")
    hint = "Test the length instead (`assert len(args) > 0`), or use `if not args: raise ...`."
    source = "torch/_dynamo/symbolic_convert.py: generic_jump (rewrite_assert_with_torch_assert)"
    use_instead = (
        "import torch\n"
        "def join(*parts):\n"
        "    assert len(parts) > 0, 'nothing to join'\n"
        "    return torch.cat(parts)\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return join(x, x + 1)\n"
    )
    measured = "tests/cases/comprehensions/c07_assert_tensor_containers.py"
    examples_fire = (
        "import torch\n"
        "@torch.compile\n"
        "def join(*parts):\n"
        "    assert parts, 'nothing to join'  # expect: GBL140\n"
        "    return torch.cat(parts)\n"
        "join(torch.ones(2), torch.zeros(2))\n",
    )
    examples_clean = (
        "import torch\n"
        "def scale(x, *dims):\n"
        "    assert dims\n"
        "    return x.sum(dims)\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    assert x.shape[0] > 0\n"
        "    return scale(x, 0)\n",
    )

    def check(self, node, ctx):
        test = node.test
        if not isinstance(test, cst.Name) or test.value not in ctx.params or test.value in ctx.rebound:
            return None
        name = test.value
        star = ctx.info is not None and any(p.name == name and p.kind == "star" for p in ctx.info.params)
        # what the call passes decides: a tuple of numbers is a constant, a tensor is asserted in the graph
        return self.site(node, f"`assert {name}` on a tuple or list of tensors", outcome="tail", gate_kind="branch" if star else "gate",
                         gate=Expr(Op.TENSOR_SEQ, parts=(Expr(Op.PARAM, name),)), gate_text=f"{name} holds a tensor")
