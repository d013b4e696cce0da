"""Formatting a tensor into a string: lazy for f-strings and ``str.format``, eager for ``%``.

Dynamo builds an f-string, ``f"{t:.3f}"`` or ``"{}".format(t)`` of a tensor lazily: nothing is
formatted until Python uses the string. Handed to ``print`` or a logger it costs only that call's
own break; returned or stored it costs nothing; used as a string (``len(s)``, ``"nan" in s``,
``s + "!"``) it fails where Dynamo cannot go on (Observed exception GB0088, missing
``sq_contains`` GB4411, missing ``sq_concat`` GB3934), and ``str(s)`` breaks like ``str(t)``.
``"%s" % t`` formats at once and skips the frame (GB0208). Source:
``torch/_dynamo/variables/builtin.py``, ``variables/lazy.py``; semantics.md §8.2.
"""
import libcst as cst

from gblint.abstract.tensors import maybe_tensor

from .base import Rule
from .notes import forget_local, local_note, note_local


def lazy_format(node, ctx):
    """``(line, kind token)`` when ``node`` is a lazily formatted string of a tensor (an f-string
    or ``"...".format(...)`` with a tensor in it, or a local bound to one); None otherwise.
    ``line`` is where the string was written (0: here)."""
    if isinstance(node, cst.FormattedString):
        for part in node.parts:
            if isinstance(part, cst.FormattedStringExpression):
                k = ctx.kind(part.expression)
                if maybe_tensor(k):
                    return 0, k
        return None
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "format" \
            and isinstance(node.func.value, (cst.SimpleString, cst.ConcatenatedString)):
        for a in node.args:
            k = ctx.kind(a.value)
            if maybe_tensor(k):
                return 0, k
        return None
    if isinstance(node, cst.Name):
        return local_note(ctx, "lazy-format", node.value)
    return None


class FormatTensor(Rule):
    code = "GBL123"
    name = "tensor-format"
    gb_ids = ("GB0088", "GB0208", "GB4411", "GB3934", "GB0059")
    effect = "skip"
    node_types = (cst.BinaryOperation, cst.Call, cst.Comparison, cst.Assign)
    summary = ("A string that formats a tensor, used as a string (`len(s)`, `in`, `+`, `str(s)`), or `%` "
               "formatting of a tensor. An f-string or `str.format` handed to `print`/a logger, stored or returned "
               "is not reported: Dynamo formats it lazily.")
    why = ("Formatting needs the tensor's value: where Python uses the string Dynamo cannot go on, and the frame is "
           "skipped (`in`: the graph up to the last checkpoint is kept); `%` formats at once and skips the frame.")
    hint = "Format the value outside the compiled region, or format `t.shape` / a constant instead."
    source = "torch/_dynamo/variables/builtin.py (str.format / __format__); semantics.md §8.2"
    use_instead = (
        'import torch\n'
        '@torch.compile\n'
        'def f(x):\n'
        '    x = x.relu()\n'
        '    return x, x.sum()  # format the value after the compiled call returns\n'
    )
    measured = "tests/fixtures/measured/v37_format_variants.py"
    examples_fire = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    x = x.relu()\n"
        "    label = f'value={x.sum()}'\n"
        "    return x + len(label)  # expect: GBL123\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    return x, 'mean=%s' % x.mean()  # expect: GBL123\n",
    )
    examples_clean = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    label = f'shape={x.shape}'\n"
        "    return x + len(label)\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    text = f'{x.sum():.3f}'\n"
        "    other = 'max {}'.format(x.max())\n"
        "    return x * 2, text, other\n",
    )

    def check(self, node, ctx):
        if isinstance(node, cst.Assign):
            for t in node.targets:
                if isinstance(t.target, cst.Name):
                    found = lazy_format(node.value, ctx)
                    if found is not None:
                        note_local(ctx, "lazy-format", t.target.value, (found[0] or _line(ctx, node), found[1]))
                    else:
                        forget_local(ctx, "lazy-format", t.target.value)
            return None
        if isinstance(node, cst.BinaryOperation):
            if isinstance(node.operator, cst.Modulo) and isinstance(node.left, (cst.SimpleString, cst.ConcatenatedString)):
                right = node.right
                items = [e.value for e in right.elements] if isinstance(right, cst.Tuple) else [right]
                for item in items:
                    k = ctx.kind(item)
                    if maybe_tensor(k):
                        return self.site(node, "`%` formatting of a tensor", needs=k, outcome="skip",
                                         gb_ids=("GB0208", "GB0088"))
                return None
            if isinstance(node.operator, cst.Add):
                return self._used(node, ctx, (node.left, node.right), "`+` on", "skip", ("GB3934", "GB0088"))
            return None
        if isinstance(node, cst.Comparison):
            if any(isinstance(c.operator, (cst.In, cst.NotIn)) for c in node.comparisons):
                parts = [node.left] + [c.comparator for c in node.comparisons]
                return self._used(node, ctx, parts, "`in` on", "tail", ("GB4411", "GB0088"))
            return None
        q = ctx.resolve(node.func)
        if q in ("len", "str") and len(node.args) == 1:
            if q == "len":
                return self._used(node, ctx, (node.args[0].value,), "`len()` of", "skip", ("GB0088",))
            if ctx.holds("str-of-lazy-string-traced"):  # torch >=2.14 (docs/semantics.md §8.11)
                return None
            return self._used(node, ctx, (node.args[0].value,), "`str()` of", "resume", ("GB0059",))
        return None

    def _used(self, node, ctx, parts, how, outcome, gb_ids):
        for part in parts:
            found = lazy_format(part, ctx)
            if found is not None:
                line, k = found
                return self.site(node, f"{how} a string that formats a tensor", needs=k, outcome=outcome,
                                 gb_ids=gb_ids, origin_line=line)
        return None


def _line(ctx, node) -> int:
    return ctx.builder.span(node).line
