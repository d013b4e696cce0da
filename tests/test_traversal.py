"""gblint's own walk (:meth:`gblint.syntax.traversal.PositionedVisitor.walk`) must build the very summary
that libcst's ``visit`` builds: the same hooks on the same nodes in the same order, only without
libcst rebuilding the tree and without entering whitespace and punctuation."""
import glob
import json
import os
import textwrap

import libcst as cst
import pytest

from gblint.project import cache, engine
from gblint.syntax import traversal
from gblint.settings.config import Settings
from gblint.dynamo.index import module_name
from gblint.syntax.positions import AstPositions
from gblint.core.source import parse_source, read_source, run_deep
from gblint.syntax.summary import SummaryBuilder

from .conftest import CASES, ROOT

ODD = textwrap.dedent('''\
    import torch
    from torch import *
    from .x import (a as b, c)


    @torch.compile
    def f(x, *args, width=3, **kw):
        print(f"{x!r:>{width}} {x=}")
        lam = lambda y, z=1: y.item() + z
        if x.sum() > 0 and (not x.any() or x.all()):
            x = x + 1 if x.shape[0] else x - 1
        else:
            x = [i async for i in x] if False else {k: v for k, v in kw.items()}
        while (n := len(args)) > 0:
            del args
        match x:
            case [1, *rest] | {"k": _, **other}:
                pass
            case torch.Tensor(shape=s) as t:
                pass
        try:
            x @= x
        except* ValueError:
            raise
        global g
        return lam(x), print(*args, sep="")
    ''')


def _summaries(text, path="m.py"):
    tree = parse_source(text, path, None)
    positions = AstPositions(text)
    name, is_package = module_name(path)
    rules = engine.rules_by_type(Settings().torch_version)
    out = []
    for walk in (False, True):
        builder = SummaryBuilder(path, name, is_package, rules, Settings())
        builder.ast_positions = positions
        run_deep(builder.walk, tree) if walk else run_deep(tree.visit, builder)
        out.append((json.dumps(cache.encode(builder.summary), sort_keys=True), builder.fill_positions(),
                    sorted((t.__name__, n) for t, n in builder._counts.items())))
    return out


def _corpus():
    files = sorted(glob.glob(os.path.join(CASES, "*.py")))
    files += sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "**", "*.py"), recursive=True))
    return files


def test_walk_builds_what_visit_builds_on_odd_syntax():
    visited, walked = _summaries(ODD)
    assert walked == visited


@pytest.mark.parametrize("path", _corpus(), ids=lambda p: os.path.relpath(p, ROOT))
def test_walk_builds_what_visit_builds(path):
    try:
        text = read_source(path)
        visited, walked = _summaries(text, path)
    except Exception as exc:  # files that do not parse are the parser's tests
        pytest.skip(f"{type(exc).__name__}")
    assert walked == visited


def test_visiting_order_is_read_for_every_node_type():
    """Every concrete libcst node type has its order read from libcst (else the walk hands the
    node to libcst's own visit: correct, only slower)."""
    missing = [c.__name__ for c in traversal._libcst_classes()
               if not getattr(c, "__abstractmethods__", None) and traversal._order(c) is None]
    assert missing == []
    assert traversal._order(cst.FormattedStringExpression)[-1] == ("format_spec", True)


def test_skipped_nodes_hold_only_skipped_nodes():
    """The walk skips whitespace and punctuation: nothing it would have to visit lies below them."""
    tree = cst.parse_module(ODD)
    inert = traversal._INERT

    def check(node, under_inert):
        if under_inert:
            assert type(node) in inert, type(node).__name__
        for child in node.children:
            check(child, under_inert or type(node) in inert)
    check(tree, False)


def test_forwarded_hooks_run_on_the_part_and_may_not_shadow_the_visitor():
    """:func:`gblint.syntax.traversal.forward_hooks` gives a visitor the hooks of a part it owns (the
    summary builder's :class:`gblint.syntax.blocks.Blocks`): both walks reach them, with the part as
    ``self``; a hook the visitor defines itself is refused, since only one of the two would run."""
    class Part:
        def __init__(self):
            self.seen = []

        def visit_If(self, node):
            self.seen.append(("visit", type(node).__name__))

        def leave_If_test(self, node):
            self.seen.append(("leave test", type(node.test).__name__))

        def leave_comp(self):  # no hook: not forwarded
            raise AssertionError

    class Visitor(traversal.PositionedVisitor):
        def __init__(self):
            super().__init__()
            self.part = Part()

    traversal.forward_hooks(Visitor, "part", Part)
    assert not hasattr(Visitor, "leave_comp")
    text = "if a:\n    pass\nif b == 1:\n    pass\n"
    tree = cst.parse_module(text)
    visitor = Visitor()
    cst.MetadataWrapper(tree).visit(visitor)
    expected = [("visit", "If"), ("leave test", "Name"), ("visit", "If"), ("leave test", "Comparison")]
    assert visitor.part.seen == expected
    walker = Visitor()
    walker.ast_positions = AstPositions(text)
    walker.walk(tree)
    assert walker.part.seen == expected

    class Shadowing(traversal.PositionedVisitor):
        def visit_If(self, node):
            pass

    with pytest.raises(TypeError, match="visit_If"):
        traversal.forward_hooks(Shadowing, "part", Part)
