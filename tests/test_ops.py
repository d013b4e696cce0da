"""The ops of a value (gblint.core.ops.Op): every op the code writes or compares is a member, and every
member is handled or rejected by the evaluators (gblint.abstract.values.evaluate and decide; the interpreter,
gblint.abstract.interp, follows objects and hands every other op to evaluate).

The source of gblint/ and rules/ is read as it stands, so an op added as a plain string, an
``Op.X`` that is no member, or a member that no evaluator dispatches on fails here."""
import ast
import json
import os

import pytest

from gblint.project import cache
from gblint.abstract import interp, values
from gblint.core.model import Expr
from gblint.core.ops import Op

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDERS = ("gblint", "rules")


def _sources():
    for folder in FOLDERS:
        for directory, dirs, files in os.walk(os.path.join(ROOT, folder)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith(".py"):
                    path = os.path.join(directory, name)
                    with open(path, encoding="utf-8") as fh:
                        yield os.path.relpath(path, ROOT), ast.parse(fh.read())


def _is_op(node) -> bool:
    """``x.op`` (an Expr's or an object's op)."""
    return isinstance(node, ast.Attribute) and node.attr == "op"


def _words(node):
    """The string literals ``node`` is or holds (a tuple, list or set display, an ``a if t else b``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node
    elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        for elt in node.elts:
            yield from _words(elt)
    elif isinstance(node, ast.IfExp):
        yield from _words(node.body)
        yield from _words(node.orelse)


def _op_uses():
    """``(where, node)`` for each place gblint/ and rules/ write an op: the first argument of
    ``Expr(...)``, the other side of a comparison with ``x.op``, and ``Op.X``."""
    for path, tree in _sources():
        for node in ast.walk(tree):
            where = f"{path}:{getattr(node, 'lineno', '?')}"
            if isinstance(node, ast.Call) and node.args and (
                    (isinstance(node.func, ast.Name) and node.func.id == "Expr")
                    or (isinstance(node.func, ast.Attribute) and node.func.attr == "Expr")):
                yield where, node.args[0]
            elif isinstance(node, ast.Compare):
                sides = [node.left] + node.comparators
                if any(_is_op(s) for s in sides):
                    for s in sides:
                        if not _is_op(s):
                            yield where, s
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "Op":
                yield where, node


def test_every_op_written_is_a_member():
    uses = list(_op_uses())
    assert len(uses) > 100  # the scan sees the code (Expr(...) and `.op ==` are everywhere)
    words = {w.value for w in Op}
    bad = []
    for where, node in uses:
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "Op":
            if node.attr not in Op.__members__:
                bad.append(f"{where}: Op.{node.attr}")
        for w in _words(node):
            if w.value not in words:
                bad.append(f"{where}: {w.value!r}")
    assert not bad, bad


def test_ops_are_written_as_members():
    """No op is compared or built as a plain string (a parallel change would keep working, as a
    member equals its word, but the members are the vocabulary)."""
    plain = [f"{where}: {w.value!r}" for where, node in _op_uses() for w in _words(node)]
    assert not plain, plain


def _dispatched(tree: ast.Module, functions, namespace) -> set:
    """The members the ``functions`` of ``tree`` compare their ``op`` local with: ``op == Op.X``,
    ``op in (Op.X, ...)``, ``op in NAME`` or ``op in values.NAME`` (a set or dict of members in
    ``namespace``), but for ``op in REJECTED``."""
    found = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.FunctionDef) and node.name in functions):
            continue
        for test in ast.walk(node):
            if not (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "op"):
                continue
            for right in test.comparators:
                elts = right.elts if isinstance(right, (ast.Tuple, ast.Set, ast.List)) else [right]
                for elt in elts:
                    if isinstance(elt, ast.Attribute) and isinstance(elt.value, ast.Name) and elt.value.id == "Op":
                        found.add(Op[elt.attr])
                    elif isinstance(elt, (ast.Name, ast.Attribute)):
                        name = elt.id if isinstance(elt, ast.Name) else elt.attr
                        found |= set(namespace[name]) if name != "REJECTED" else set()
    return found


def _tree(module) -> ast.Module:
    with open(module.__file__, encoding="utf-8") as fh:
        return ast.parse(fh.read())


def test_every_member_is_evaluated_or_rejected():
    handled = _dispatched(_tree(values), {"evaluate", "decide"}, vars(values))
    assert not handled & values.REJECTED, handled & values.REJECTED
    assert handled | values.REJECTED == set(Op), set(Op) - handled - values.REJECTED


def test_the_interpreter_hands_the_rest_to_evaluate():
    """The interpreter follows the objects (a protocol method's result among them, which evaluate
    rejects) and ends by handing every other op to evaluate."""
    tree = _tree(interp)
    followed = _dispatched(tree, {"_eval", "_eval_op"}, {**vars(values), **vars(interp)})
    assert values.OBJECT_OPS | {Op.PROTOCOL} <= followed <= set(Op)
    body = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "_eval_op").body
    assert ast.unparse(body[-1]) == "return values.evaluate(e, env)"


@pytest.mark.parametrize("op", sorted(values.REJECTED))
def test_a_rejected_op_evaluates_to_unknown(op):
    e = Expr(op, "keys", (values.const(1), values.const(2)))
    assert values.evaluate(e, values.Env()) == values.UNKNOWN
    assert values.decide(e, values.Env()) is None


# what the ops whose parts are not up to three values hold (an object, `obj`, is no Expr)
_PARTS = {Op.XOR: (values.UNKNOWN,) * 2, Op.DICT: (Expr(Op.KV, parts=(values.UNKNOWN,) * 2),)}


@pytest.mark.parametrize("op", sorted(set(Op) - values.REJECTED - values.OBJECT_OPS - {Op.OBJ}))
def test_each_evaluated_op_gives_a_value_over_unknown_parts(op):
    """Over parts it knows nothing of, each op gives a value, or a test's verdict (None: not known),
    without raising."""
    e = Expr(op, None, _PARTS.get(op, (values.UNKNOWN,) * 3))
    assert isinstance(values.evaluate(e, values.Env()).op, Op)
    assert values.decide(e, values.Env()) in (True, False, None)


def test_a_member_is_its_word():
    """Equal to, hashed and printed as its word; stored in the cache as the bare word and decoded
    to the member."""
    assert Op.CALLV == "callv" and hash(Op.CALLV) == hash("callv")
    assert f"{Op.CALLV}" == str(Op.CALLV) == "callv"
    assert Expr(Op.SEQ, None, (Expr(Op.CONST, 1),)) == Expr("seq", None, (Expr("const", 1),))
    assert hash(Expr(Op.SEQ)) == hash(("seq", None, ()))
    e = Expr(Op.SEQ, "open", (Expr(Op.CONST, 1),))
    data = json.dumps(cache.encode(e))
    assert data == '{"@Expr": ["seq", "open", {"@t": [{"@Expr": ["const", 1, {"@t": []}]}]}]}'
    back = cache.decode(data.encode())
    assert back == e and type(back.op) is Op and type(back.parts[0].op) is Op
    with pytest.raises(cache.CacheFormatError):
        cache.decode(b'{"@Expr": ["nosuchop", null, {"@t": []}]}')
