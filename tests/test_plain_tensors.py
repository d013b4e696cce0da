"""A plain tensor (``gblint.abstract.layouts.STRIDED``: what torch's factories make and a plain tensor's methods return) is
exactly a strided ``torch.Tensor``: its layout, ``is_sparse`` and ``isinstance`` against classes that cannot claim
it are decided. Anything else (a Parameter, a subclass, a class with a metaclass or a library base) stays open.
Measured programs: tests/cases/kinds/kb13_strided_layout.py, kb15_isinstance_of_a_plain_tensor.py."""
import textwrap

from gblint.abstract import layouts, type_tests, values
from gblint.core.model import Expr
from gblint.abstract.objects import Cls, Ext
from gblint.core.ops import Op

from .conftest import run_cli

PLAIN = Expr(Op.TENSOR, parts=(layouts.STRIDED,))
ANY = Expr(Op.TENSOR)


def _bases(outside):
    return lambda cls: (set(), set(outside))


def test_isinstance_of_a_plain_tensor():
    is_ = type_tests.isinstance_of
    assert is_(PLAIN, Ext("torch.Tensor")) == values.const(True)
    # VariableMeta answers True in Python, Dynamo does not (measured on 2.13: the branch does not run)
    assert is_(PLAIN, Ext("torch.autograd.Variable")) == values.UNKNOWN
    assert is_(PLAIN, Ext("torch.nn.Parameter")) == values.const(False)
    assert is_(PLAIN, Cls("m.py", "Plain"), _bases([])) == values.const(False)
    assert is_(PLAIN, Cls("m.py", "Meta"), _bases(["<metaclass abc.ABCMeta>"])) == values.UNKNOWN
    assert is_(PLAIN, Cls("m.py", "Lib"), _bases(["somelib.Base"])) == values.UNKNOWN
    assert is_(PLAIN, Ext("collections.abc.Iterable")) == values.UNKNOWN  # a subclass hook answers True
    # a tensor that may be a Parameter or a subclass: only torch.Tensor itself is decided
    assert is_(ANY, Ext("torch.nn.Parameter")) == values.UNKNOWN
    assert is_(ANY, Cls("m.py", "Plain"), _bases([])) == values.UNKNOWN


def test_a_class_of_a_package_that_is_not_installed_is_never_bound():
    fallback = Expr(Op.UNION, parts=(Ext("no_such_package_xyz.SparseTensor"), Cls("m.py", "SparseTensor")))
    got = type_tests.isinstance_of(PLAIN, fallback, _bases([]), lambda name: not name.startswith("no_such"))
    assert got == values.const(False)
    # installed (or not known): either class may be the one bound
    assert type_tests.isinstance_of(PLAIN, fallback, _bases([]), lambda name: True) == values.UNKNOWN


def test_a_parameter_passed_in_is_not_decided(tmp_path):
    """A driver that passes an ``nn.Parameter``: no plain tensor, so the branch stays conditional."""
    path = tmp_path / "p.py"
    path.write_text(textwrap.dedent("""\
        import torch


        @torch.compile(backend="eager")
        def f(x):
            if isinstance(x, torch.nn.Parameter):
                torch._dynamo.graph_break()
            return x + 1


        def main():
            f(torch.nn.Parameter(torch.ones(2)))
        """))
    proc = run_cli("check", "--no-cache", "--conditional", "all", str(path))
    assert "GBL101" in proc.stdout and "when `isinstance(x, torch.nn.Parameter)`" in proc.stdout, proc.stdout
