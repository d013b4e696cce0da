"""Which ``self.X`` reads the store just before decides (gblint.syntax.self_stores): only where nothing that may run
code comes between them, on every way to the read."""
import textwrap

import libcst as cst
import pytest

from gblint.syntax.self_stores import dominated_reads


def decided(src: str):
    """The attribute names of the reads of ``self.X`` in the method of ``src`` that a store decides, with the line
    of each read."""
    module = cst.parse_module(textwrap.dedent(src))
    wrapper = cst.MetadataWrapper(module)
    positions = wrapper.resolve(cst.metadata.PositionProvider)
    func = next(n for n in wrapper.module.body if isinstance(n, cst.FunctionDef))
    found = dominated_reads(func.body, "self")
    reads = []

    class Reads(cst.CSTVisitor):
        def visit_Attribute(self, node):
            if id(node) in found:
                reads.append((node.attr.value, positions[node].start.line))

    wrapper.module.visit(Reads())
    return sorted(reads)


@pytest.mark.parametrize("src, expected", [
    ("def f(self, a, b):\n    self.lazy = isinstance(a, int) or isinstance(b, int)\n    if self.lazy:\n        pass\n",
     [("lazy", 3)]),
    # a call between them may change it
    ("def f(self, a):\n    self.flag = True\n    self.clear(a)\n    if self.flag:\n        pass\n", []),
    # the store in one arm of an `if` only
    ("def f(self, a):\n    self.flag = False\n    if a:\n        self.flag = True\n    return self.flag\n", []),
    # the same store kept through both arms, and an arm that returns does not count
    ("def f(self, a):\n    self.flag = 1\n    if a:\n        x = a\n    else:\n        return None\n"
     "    return self.flag\n", [("flag", 7)]),
    # a read before a call in the same test is decided, one after it is not
    ("def f(self, a):\n    self.n = 2\n    if self.n and g(a) and self.n:\n        pass\n", [("n", 3)]),
    # a loop body may run after later stores; a lambda's and a comprehension's bodies run later or elsewhere
    ("def f(self, xs):\n    self.n = 2\n    for x in xs:\n        y = self.n\n", []),
    ("def f(self, xs):\n    self.n = 2\n    g = lambda: self.n\n    return g\n", []),
    ("def f(self, xs):\n    self.n = 2\n    return [self.n for x in xs]\n", []),
    # a store on another object (which may be this one), or through an item, forgets what was stored
    ("def f(self, other):\n    self.n = 2\n    other.n = 3\n    return self.n\n", []),
    ("def f(self, d):\n    self.n = 2\n    d['k'] = 3\n    return self.n\n", []),
    # inside a try body the straight line still holds; after it, and after a with, nothing is known
    ("def f(self):\n    try:\n        self.n = 2\n        x = self.n\n    except E:\n        pass\n"
     "    return self.n\n", [("n", 4)]),
    ("def f(self, m):\n    self.n = 2\n    with m:\n        pass\n    return self.n\n", []),
    # an attribute read of another name may be a property that runs code
    ("def f(self, a):\n    self.n = 2\n    b = a.size\n    return self.n\n", []),
])
def test_decided_reads(src, expected):
    assert decided(src) == expected


@pytest.mark.parametrize("src, expected", [
    ("def f(a):\n    if a:\n        return 1\n    else:\n        return 2\n", True),
    ("def f(a):\n    if a:\n        return 1\n    elif a is None:\n        raise E\n    else:\n        return 2\n", True),
    ("def f(a):\n    if a:\n        return 1\n    elif a is None:\n        raise E\n", False),  # no else: runs off
    ("def f(a):\n    if a:\n        return 1\n", False),
    ("def f(m):\n    with m:\n        return 1\n", True),
    ("def f(m):\n    with m:\n        raise E\n", False),  # a manager may swallow the exception
    ("def f(a):\n    while a:\n        return 1\n", False),
])
def test_a_function_that_never_runs_off_its_end_returns_no_none(src, expected):
    """``Kernel.__call__`` (gpytorch) ends in ``if diag: ... return`` / ``else: ... return``: no ``None`` result."""
    from gblint.syntax.suites import leaves
    func = cst.parse_module(src).body[0]
    assert leaves(func.body) is expected
