"""Differential test of the safe fixes: generated plain-Python functions with loops that gblint
reports (a ``print`` or ``torch._dynamo.graph_break()`` in a loop of a compiled function skips its
frame), fixed by ``fix_sources``
(unroll, move the loop into a helper, ``@torch.compiler.disable``), then run before and after the
fix on the same inputs without torch (``torch.compile`` is a stub that returns the function). The
return values, what was printed and the exceptions (type and message) must be equal.

CI runs ``GBLINT_DIFF_EXAMPLES`` functions (default 240, seeded, so a failure reproduces);
set it higher for a longer run, and ``GBLINT_DIFF_SEED`` to draw other programs.
"""
import os
import random
import sys
import types

import pytest

from gblint.settings.config import Settings
from gblint.frontends.fix import fix_sources

EXAMPLES = int(os.environ.get("GBLINT_DIFF_EXAMPLES", "240"))
SEED = int(os.environ.get("GBLINT_DIFF_SEED", "20"))
PER_MODULE = 12
VARS = ("acc", "t", "y", "z", "last")
INPUTS = ((0, 1, []), (1, 0, [2]), (2, -1, [0, 3, -1]), (-2, 2, [1, 1, 4, 0]), (3, 3, [5, -2]))


class Gen:
    """Small random functions: accumulators, conditionals, early ``continue``/``break``, nested
    loops, closures and lambdas, ``try``/``except``, ``del``, ``locals()``, names that may be unbound."""

    def __init__(self, rng: random.Random):
        self.r = rng

    def var(self):
        return self.r.choice(VARS)

    def expr(self, loop_var=None):
        atoms = [self.var(), self.var(), str(self.r.randint(-2, 3)), "a", "b", "len(xs)"] + \
            ([loop_var] * 3 if loop_var else [])
        left = self.r.choice(atoms)
        if self.r.random() < 0.5:
            return f"{left} {self.r.choice('+-*')} {self.r.choice(atoms)}"
        return left

    def cond(self, loop_var=None):
        return f"{self.expr(loop_var)} {self.r.choice(['>', '==', '<', '!='])} {self.r.randint(-1, 2)}"

    def stmt(self, ind, loop_var=None, depth=0):
        """One statement (a list of lines) at indentation ``ind``."""
        r, v, pad = self.r, self.var(), " " * ind
        kind = r.choice(["assign", "assign", "aug", "if", "if", "closure", "def", "try", "del", "nested", "frame"]
                        + (["continue", "break", "print"] if loop_var else []))
        if kind == "assign":
            return [f"{pad}{v} = {self.expr(loop_var)}"]
        if kind == "aug":
            return [f"{pad}{v} += {self.expr(loop_var)}"]
        if kind == "if":
            out = [f"{pad}if {self.cond(loop_var)}:", f"{pad}    {v} = {self.expr(loop_var)}"]
            if r.random() < 0.4:
                out += [f"{pad}else:", f"{pad}    {self.var()} = {self.expr(loop_var)}"]
            return out
        if kind == "closure":
            return [f"{pad}get = lambda: {v}"]
        if kind == "def":
            return [f"{pad}def read():", f"{pad}    return {v}"]
        if kind == "try":
            return [f"{pad}try:", f"{pad}    {v} = {self.expr(loop_var)} // {loop_var or 'b'}",
                    f"{pad}except ZeroDivisionError as err:", f"{pad}    {self.var()} = 0"]
        if kind == "frame":  # sees the frame it runs in (rare: most draws should be fixable)
            return [f"{pad}{v} = len(locals())"] if r.random() < 0.2 else [f"{pad}{v} = {self.expr(loop_var)}"]
        if kind == "del":
            return [f"{pad}del {v}"] if r.random() < 0.3 else [f"{pad}{v} = 1"]
        if kind == "nested" and depth == 0:
            return [f"{pad}for j in range({r.randint(0, 2)}):"] + self.stmt(ind + 4, loop_var or "j", 1)
        if kind in ("continue", "break"):
            return [f"{pad}if {self.cond(loop_var)}:", f"{pad}    {kind}"]
        return [f"{pad}print({self.expr(loop_var)})"]

    def loop(self):
        """A loop with at least one break gblint reports (a ``print``, or ``torch._dynamo.graph_break()``:
        a loop that prints is never unrolled) and its set-up lines."""
        r = self.r
        kind = r.choice(["for", "for", "range", "while"])
        setup, head, first, var = [], "", [], "x"
        if kind == "for":
            head = "    for x in xs:"
        elif kind == "range":
            head, var = f"    for i in range({r.randint(1, 4)}):", "i"
        else:
            setup = ["    n = 0"]
            head, first = "    while n < len(xs):", ["        x = xs[n]", "        n += 1"]
        body = [self.stmt(8, var) for _ in range(r.randint(1, 4))]
        brk = f"print({self.expr(var)})" if r.random() < 0.3 else "torch._dynamo.graph_break()"
        body.insert(r.randint(0, len(body)), [f"        {brk}"])
        lines = setup + [head] + first + [line for s in body for line in s]
        if r.random() < 0.15:
            lines += ["    else:", f"        {self.var()} = {self.expr()}"]
        return lines

    def function(self, name):
        r = self.r
        pre = [line for _ in range(r.randint(0, 4)) for line in self.stmt(4)]
        post = [line for _ in range(r.randint(0, 3)) for line in self.stmt(4)]
        if r.random() < 0.3:
            post.append(r.choice(["    z = get()", "    z = read()"]))
        ret = ", ".join(self.var() for _ in range(r.randint(1, 3)))
        return (["@torch.compile", f"def {name}(a, b, xs):", "    acc = 0"] + pre + self.loop() + post
                + [f"    return ({ret},)"])


def _module(rng, count):
    gen = Gen(rng)
    names = [f"f{i}" for i in range(count)]
    return names, "import torch\n\n\n" + "\n\n".join("\n".join(gen.function(n)) + "\n" for n in names)


def _outcomes(text, names):
    """What each function does on each input: ("ok", result, printed) or ("raise", type, message, printed)."""
    printed = []
    namespace = {"__name__": "generated", "print": lambda *args: printed.append(args)}
    exec(compile(text, "<generated>", "exec"), namespace)
    out = []
    for name in names:
        for a, b, xs in INPUTS:
            printed.clear()
            try:
                out.append((name, a, b, xs, "ok", namespace[name](a, b, list(xs)), list(printed)))
            except Exception as exc:  # compared, not raised
                out.append((name, a, b, xs, "raise", type(exc).__name__, str(exc), list(printed)))
    return out


@pytest.fixture
def fake_torch(monkeypatch):
    """``import torch`` gives a stub: ``torch.compile`` and ``torch.compiler.disable`` return the function."""
    stub = types.ModuleType("torch")
    stub.compile = lambda fn=None, **kwargs: fn if fn is not None else (lambda f: f)
    stub.compiler = types.SimpleNamespace(disable=lambda fn=None, **kwargs: fn if fn is not None else (lambda f: f))
    stub._dynamo = types.SimpleNamespace(graph_break=lambda: None)
    monkeypatch.setitem(sys.modules, "torch", stub)


def test_safe_fixes_keep_behaviour(fake_torch):
    rng = random.Random(SEED)
    fixed_functions = 0
    for m in range(max(1, EXAMPLES // PER_MODULE)):
        names, text = _module(rng, PER_MODULE)
        path = f"gen_{SEED}_{m}.py"
        result = fix_sources({path: text}, Settings(python_version=(3, 11)))
        new = result.texts[path]
        fixed_functions += len({key[2].split(".")[0] for key in result.applied})
        if new == text:
            continue
        before, after = _outcomes(text, names), _outcomes(new, names)
        for old_run, new_run in zip(before, after):
            assert old_run == new_run, (f"seed {SEED}, module {m}: {old_run[0]}{old_run[1:4]} behaves differently "
                                        f"after the fix\n--- before\n{text}\n--- after\n{new}")
    # the generator must exercise the rewrites, not only their refusals (about a fifth of the draws
    # are fixed; a loop that prints is only ever moved, so seeds with many such loops fix fewer)
    assert fixed_functions >= EXAMPLES // 6, fixed_functions
