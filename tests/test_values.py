"""Values known before the run (gblint.abstract.values): a branch whose test the values a call passes
make false is never traced, so nothing behind it is reported; one they make true is definite;
the rest stay conditional, with the test named. Each kind has a must-report and a
must-not-report program. The runtime behaviour these rest on is measured in
tests/cases/real (308: `len(extra) > 0` with no extra keywords; 311: a helper without tensors
is not compiled alone) and tests/cases/examples/071_uncaught_raise.py."""
import json
import textwrap

import pytest

from gblint.abstract import values
from gblint.core.model import CallArgs, Expr, Param
from gblint.core.ops import Op

from .conftest import run_cli


def check(tmp_path, source, *options):
    (tmp_path / "m.py").write_text(textwrap.dedent(source))
    proc = run_cli("check", "--isolated", "--no-cache", "--format", "json", "--exit-zero", *options, "m.py",
                   cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    return [(d["line"], d["code"], d["certainty"], d["condition"]) for d in json.loads(proc.stdout)["diagnostics"]]


HELPER = """
import torch


def helper(x, cache=None, mode="fast", **extra):
    if cache is not None:
        print("cache", x)
    if mode == "slow":
        print("slow", x)
    if len(extra) > 0:
        print("extra", x)
    return x + 1


@torch.compile
def f(x, flag):
    x = x * 2
    return {call}
"""


@pytest.mark.parametrize("call, expected", [
    # nothing passed: the defaults decide every test, and each is false
    ("helper(x)", []),
    # a literal passed: its test is true, the break definite (+1 graph in `f`, nested through the call)
    ("helper(x, cache=1)", [(7, "GBL301", "definite", None)]),
    ("helper(x, 1)", [(7, "GBL301", "definite", None)]),
    ("helper(x, mode='slow')", [(9, "GBL301", "definite", None)]),
    ("helper(x, None, 'slow')", [(9, "GBL301", "definite", None)]),
    ("helper(x, other=2)", [(11, "GBL301", "definite", None)]),
    # a value gblint cannot know: conditional, with the test as written
    ("helper(x, cache=flag)", [(7, "GBL301", "conditional", "when `cache is not None`")]),
    ("helper(x, mode=flag)", [(9, "GBL301", "conditional", "when `mode == \"slow\"`")]),
    # `**kwargs` may pass anything
    ("helper(x, **flag)", [(7, "GBL301", "conditional", "when `cache is not None`"),
                           (9, "GBL301", "conditional", "when `mode == \"slow\"`"),
                           (11, "GBL301", "conditional", "when `len(extra) > 0`")]),
])
def test_arguments_and_defaults_decide_branches_in_callees(tmp_path, call, expected):
    assert check(tmp_path, HELPER.format(call=call)) == expected


def test_values_follow_a_parameter_through_calls(tmp_path):
    src = """
    import torch

    def inner(x, verbose):
        if verbose:
            print(x)
        return x

    def middle(x, verbose=False):
        return inner(x, verbose)

    @torch.compile
    def f(x):
        return middle(x) + middle(x, verbose={v})
    """
    assert check(tmp_path, src.format(v="False")) == []
    assert [d[:3] for d in check(tmp_path, src.format(v="True"))] == [(6, "GBL301", "definite")]


def test_a_rebound_parameter_is_not_the_argument_any_more(tmp_path):
    src = """
    import torch

    def helper(x, cache=None):
        if {rebind}:
            cache = x
        if cache is not None:
            print(x)
        return x

    @torch.compile
    def f(x):
        return helper(x)
    """
    # rebound under a test gblint cannot decide: the second test is not decided either
    assert check(tmp_path, src.format(rebind="x.dim() > 1")) == [
        (8, "GBL301", "conditional", "when `cache is not None`")]
    # rebound under a test that is false: the parameter still holds the argument (None), so the
    # second test is false too and nothing behind it runs
    assert check(tmp_path, src.format(rebind="False")) == []
    # a parameter rebound later in a loop is unknown in the loop's tests
    loop = """
    import torch

    def helper(x, n, cache=None):
        for _ in range(n):
            if cache is not None:
                print(x)
            cache = x
        return x

    @torch.compile
    def f(x):
        return helper(x, 2)
    """
    found = check(tmp_path, loop)
    assert found and {(d[0], d[2], d[3]) for d in found} == {(7, "conditional", "when `cache is not None`")}


def test_torchscript_queries_are_false_under_dynamo(tmp_path):
    src = """
    import torch

    @torch.compile
    def f(x):
        x = x + 1
        if {test}:
            print(x)
        return x
    """
    assert check(tmp_path, src.format(test="torch.jit.is_scripting()")) == []
    assert check(tmp_path, src.format(test="not torch.jit.is_scripting() and not torch.jit.is_tracing()")) == [
        (8, "GBL107", "definite", None)]


def test_short_circuit_on_known_values(tmp_path):
    src = """
    import torch

    def helper(x, half=False):
        if half and bool(x.sum() > 0):
            x = x * 2
        return x

    @torch.compile
    def f(x):
        x = x + 1
        return helper(x{arg})

    f(torch.ones(2))
    """
    assert check(tmp_path, src.format(arg="")) == []  # `bool(t)` behind a false `and` operand is never traced
    found = check(tmp_path, src.format(arg=", half=True"))  # the operand is true, `x` a tensor (the call's)
    assert found and all(d[2] == "definite" for d in found)


def test_a_helper_without_tensors_is_not_compiled_alone(tmp_path):
    # tests/cases/real/311: Dynamo skips a frame with no tensor-related object ("no tensor-related
    # objects found in frame"), so a break in its loop does not skip it, and it does not re-trace
    src = """
    import warnings
    import torch

    def warn_all(*names):
        for name in names:
            warnings.warn(name)

    @torch.compile
    def f(x):
        x = x + 1
        warn_all({args})
        return x * 2
    """
    found = check(tmp_path, src.format(args="'a', 'b'"))
    assert [(d[0], d[1]) for d in found] == [(7, "GBL301")]
    (tmp_path / "m.py").write_text(textwrap.dedent(src.format(args="'a', 'b'")))
    text = run_cli("check", "--isolated", "--no-cache", "--show-source", "m.py", cwd=str(tmp_path)).stdout
    assert "1 break(s), 2 graphs" in text and "frame skipped" not in text
    found = check(tmp_path, src.format(args="x"))  # a tensor in the frame: compiled alone, its loop skips it
    assert ("GBL201" in [d[1] for d in found])


@pytest.mark.parametrize("body", [
    "    raise NotImplementedError\n",
    "    if isinstance(x, int):\n        return x\n    raise TypeError(x)\n",
])
def test_abstract_methods_and_dispatch_fallbacks_are_error_paths(tmp_path, body):
    src = f"import torch\n\n\n@torch.compile\ndef f(x):\n{body}"
    assert check(tmp_path, src) == []
    assert [(d[1], d[2]) for d in check(tmp_path, src, "--error-paths")] == [("GBL124", "error-path")]
    # a `raise` with nothing before it that returns is what the call does: reported, definite
    plain = "import torch\n\n\n@torch.compile\ndef f(x):\n    x = x + 1\n    raise TypeError(x)\n"
    assert [(d[1], d[2]) for d in check(tmp_path, plain)] == [("GBL124", "definite")]


def test_a_constructor_argument_kept_on_self_is_not_a_tensor(tmp_path):
    # tests/cases/real/302: `self.rate = rate` holds configuration; branching on it is a guard
    src = """
    import torch
    import torch.nn as nn

    class Drop(nn.Module):
        def __init__(self, rate):
            super().__init__()
            self.rate = rate

        def forward(self, x):
            if self.rate > 0:
                x = x * 2
            return x

    model = torch.compile(Drop(0.1))
    """
    assert check(tmp_path, src) == []


# ----------------------------------------------------------------------------- the evaluator

P, C = (lambda n: Expr("param", n)), values.const


@pytest.mark.parametrize("test, env, expected", [
    (Expr("is", parts=(P("a"), C(None))), {}, None),
    (Expr("is", parts=(P("a"), C(None))), {"a": C(None)}, True),
    (Expr("is", parts=(P("a"), C(None))), {"a": values.NOTNONE}, False),
    (Expr("isnot", parts=(P("a"), C(None))), {"a": C(3)}, True),
    (Expr("and", parts=(P("a"), P("b"))), {"a": C(False)}, False),  # decided without b
    (Expr("and", parts=(P("a"), P("b"))), {"a": C(True)}, None),
    (Expr("or", parts=(P("a"), P("b"))), {"b": C(1)}, True),
    (Expr("not", parts=(P("a"),)), {"a": C("")}, True),
    (Expr("lt", parts=(P("a"), C(0))), {"a": C(-1.0)}, True),
    (Expr("lt", parts=(P("a"), C(0))), {"a": C("x")}, None),  # would raise TypeError: not decided
    (Expr("in", parts=(P("a"), Expr("seq", parts=(C("x"), C("y"))))), {"a": C("y")}, True),
    (Expr("notin", parts=(P("a"), Expr("seq", parts=(C("x"), C("y"))))), {"a": C("y")}, False),
    (Expr("xor", parts=(P("a"), P("b"))), {"a": C(True), "b": C(False)}, True),
    (Expr("gt", parts=(Expr("len", parts=(P("k"),)), C(0))), {"k": Expr("seq")}, False),
    (Expr("unknown"), {}, None),
])
def test_decide_is_three_valued(test, env, expected):
    assert values.decide(test, values.Env(env)) is expected


def test_bind_uses_arguments_then_defaults():
    params = (Param("self"), Param("a"), Param("b", default=C(None)), Param("rest", "star"),
              Param("c", "kwonly", C(2)), Param("kw", "starstar"))
    env = values.bind(CallArgs((C(1),), (("c", C(5)), ("z", C(0)))), params, values.Env(), bound=True).bindings
    assert env == {"a": C(1), "b": C(None), "rest": Expr("seq"), "c": C(5),
                   "kw": Expr("dict", parts=(Expr("kv", parts=(C("z"), C(0))),))}  # what **kw collects, by key
    env = values.bind(CallArgs((C(1),), (), star=True), params, values.Env(), bound=True).bindings
    assert "b" not in env and env["c"] == C(2)  # `*x` may fill b; c is keyword-only
    env = values.bind(CallArgs((P("v"),)), params, values.Env({"v": C(7)}), bound=True).bindings
    assert env["a"] == C(7)


@pytest.mark.parametrize("call, expected", [("layer(x)", []), ("layer(x, scale=2)", [9])])
def test_empty_kwargs_through_get_and_comprehensions(tmp_path, call, expected):
    # diffusers' pattern: `unused = [k for k in kwargs if ...]; if len(unused) > 0: warn`, and
    # `if kwargs.get("scale", None) is not None: deprecate(...)`
    src = f"""
import torch

def layer(x, *args, **kwargs):
    unused = [k for k, _ in kwargs.items() if k != "mask"]
    if len(unused) > 0:
        print("unused", unused)
    if len(args) > 0 or kwargs.get("scale", None) is not None:
        print("deprecated")
    return x

@torch.compile
def f(x):
    x = x + 1
    return {call}
"""
    found = check(tmp_path, src)
    assert sorted({d[0] for d in found}) == sorted(set(expected) | ({7} if expected else set()))


def test_a_local_bound_in_a_branch_is_not_taken_as_known(tmp_path):
    src = """
    import torch

    def helper(x, c):
        mode = None
        if c:
            mode = "print"
        if mode is not None:
            print(x)
        return x

    @torch.compile
    def f(x, c):
        return helper(x, c)
    """
    assert [(d[0], d[2]) for d in check(tmp_path, src)] == [(9, "conditional")]


@pytest.mark.parametrize("guard, expected", [("torch.compiler.is_compiling()", []),
                                             ("is_compiling()", []),
                                             ("not is_compiling()", [13])])
def test_an_early_return_when_compiling_ends_what_dynamo_traces(tmp_path, guard, expected):
    # torch_geometric.warnings.warn: `if is_compiling(): return` first, then warnings.warn
    src = f"""
import warnings
import torch


def is_compiling():
    return torch.compiler.is_compiling()


def warn(message):
    if {guard}:
        return
    warnings.warn(message)


@torch.compile
def f(x):
    warn("a")
    return x + 1
"""
    assert sorted({d[0] for d in check(tmp_path, src)}) == expected


@pytest.mark.parametrize("call, expected", [("helper(x)", []), ("helper(x, cache=1)", [(11, "definite")]),
                                            ("helper(x, cache=x)", [(11, "conditional")])])
def test_one_line_predicate_helpers_are_evaluated(tmp_path, call, expected):
    # x-transformers' `exists(v)`: `def exists(v): return v is not None`
    src = f"""
import torch


def exists(v):
    return v is not None


def helper(x, cache=None):
    if exists(cache):
        print(x)
    return x


@torch.compile
def f(x):
    return {call}
"""
    assert [(d[0], d[2]) for d in check(tmp_path, src)] == expected


def test_a_value_known_only_to_be_not_none_decides_nothing_else():
    # `embed_dim % 2 != 0`, `x.dim() != 2`: not None, but which number is not known
    nn = values.NOTNONE
    assert values.decide(Expr("ne", parts=(nn, C(0))), values.Env()) is None
    assert values.decide(Expr("eq", parts=(nn, C(2))), values.Env()) is None
    assert values.decide(Expr("ne", parts=(nn, C(None))), values.Env()) is True
    assert values.decide(Expr("eq", parts=(C(None), nn)), values.Env()) is False


def test_an_expression_of_constructor_arguments_kept_on_self_is_not_a_tensor(tmp_path):
    src = """
    import torch
    import torch.nn as nn

    class Block(nn.Module):
        def __init__(self, inp, out, scale=None):
            super().__init__()
            self.use_res = inp == out and scale is None
            self.lin = nn.Linear(inp, out)

        def forward(self, x):
            if self.use_res:
                return x + self.lin(x)
            return self.lin(x)

    model = torch.compile(Block(4, 4))
    """
    assert check(tmp_path, src) == []


# Programs where the branch IS taken at run time (each measured with `gblint confirm --backend
# eager` while reviewing this module: Dynamo broke at the marked line). gblint must not call the
# branch untaken: each must report the `print` (conditional or definite).
TAKEN = {
    "bool in a tuple of ints": """
def f(x, mode=True):
    if mode in (1, 2):
        print(x)  # here
    return x
""",
    "instance with a capitalised name": """
class Sub:
    def helper(self, x, flag=False):
        if flag:
            print(x)  # here
        return x

S = Sub()

def f(x):
    return S.helper(x, True)
""",
    "mutable default changed in place": """
def f(x, opts=[]):
    opts.append(1)
    if opts:
        print(x)  # here
    return x
""",
    "kwargs changed in place": """
def helper(x, **kwargs):
    kwargs["scale"] = 2
    if len(kwargs) > 0:
        print(x)  # here
    return x

def f(x):
    return helper(x)
""",
    "decorator that calls with other arguments": """
def always(fn):
    def wrapper(x):
        return fn(x, flag=True)
    return wrapper

@always
def inner(x, flag=False):
    if flag:
        print(x)  # here
    return x

def f(x):
    return inner(x)
""",
    "nonlocal rebinding": """
def f(x):
    flag = False
    def turn_on():
        nonlocal flag
        flag = True
    turn_on()
    if flag:
        print(x)  # here
    return x
""",
    "local list changed in place": """
def f(x):
    items = []
    items.append(1)
    if items:
        print(x)  # here
    return x
""",
    "helper rebound at module level": """
def exists(v):
    return v is not None

exists = lambda v: True

def helper(x, bias=None):
    if exists(bias):
        print(x)  # here
    return x

def f(x):
    return helper(x)
""",
    "functools.partial with a keyword": """
import functools

def inner(x, flag=False):
    if flag:
        print(x)  # here
    return x

g = functools.partial(inner, flag=True)

def f(x):
    return g(x)
""",
    "or gives back its operand": """
def helper(x, mode=None):
    m = mode or "fast"
    if m == "fast":
        print(x)  # here
    return x

def f(x):
    return helper(x)
""",
}


@pytest.mark.parametrize("kind", sorted(TAKEN))
def test_a_branch_the_run_takes_is_never_called_untaken(tmp_path, kind):
    body = TAKEN[kind]
    src = "import torch\n" + body + "\n\nf = torch.compile(f)\n\n\ndef main():\n    f(torch.ones(3))\n"
    line = src.split("\n").index(next(l for l in src.split("\n") if l.endswith("# here"))) + 1
    found = check(tmp_path, src)
    assert line in [d[0] for d in found], (kind, found)


def test_a_star_args_helper_counts_its_arguments_as_python_does(tmp_path):
    src = """
    import torch

    def count(*xs):
        return len(xs) == 2

    @torch.compile
    def f(x):
        if count((1, 2)):
            print(x)
        return x
    """
    assert check(tmp_path, src) == []  # count((1, 2)) is one argument: False


def test_a_driver_s_keywords_changed_before_the_call_are_not_taken_as_bound(tmp_path):
    src = """
    import torch

    def f(x, flag=False):
        if flag:
            print(x)
        return x

    f = torch.compile(f)
    kwargs = dict(flag=False)
    kwargs["flag"] = True
    f(torch.ones(3), **kwargs)
    """
    assert [d[0] for d in check(tmp_path, src)] == [6]


REGISTRY = """
import torch
import torch.nn as nn


class Registry:
    def __init__(self):
        self.table = {}

    def add(self, name, fn):
        self.table[name] = fn

    def lookup(self, name):
        fn = self.table.get(name)
        if fn is None:
            raise KeyError(name)
        return fn


REG = Registry()
REG.add("relu", torch.relu)


class Net(nn.Module):
    def forward(self, x):
        return REG.lookup("relu")(x)


model = torch.compile(Net())
"""


def test_a_collection_another_method_fills_is_not_taken_as_it_was_built(tmp_path):
    """`self.table = {}` in `__init__`, filled by `add`: `self.table.get(name)` may find the key, so the
    `raise` is not on every path. Measured on torch 2.13 (backend="eager"): `model(x)` compiles one frame, no
    graph break. Before, gblint read the table as the empty dict it was built as and reported the `raise`
    as definite."""
    assert check(tmp_path, REGISTRY) == []
    # the same class without the method that fills the table: the lookup always fails
    empty = REGISTRY.replace("        self.table[name] = fn\n", "        pass\n")
    assert {(d[0], d[1], d[2]) for d in check(tmp_path, empty)} == {(16, "GBL124", "definite")}


IFEXP = """
import torch


def noisy(x):
    print("noisy")
    return x


@torch.compile
def f(x, flag=False):
    return noisy(x) if flag else x * 2
"""


def test_a_conditional_expression_runs_only_the_arm_its_test_takes(tmp_path):
    """`noisy(x) if flag else x`: as an `if` statement (docs/semantics.md §0 rule 6, Dynamo traces only the
    branch the values take). Measured on torch 2.13 (backend="eager"): `f(x)` logs no break, `f(x, True)` one
    GB0059 at the `print`."""
    assert check(tmp_path, IFEXP + "\nf(torch.ones(3))\n") == []
    got = check(tmp_path, IFEXP)
    assert [(d[1], d[2], d[3]) for d in got] == [("GBL301", "conditional", "when `flag`")]
    assert [(d[1], d[2]) for d in check(tmp_path, IFEXP + "\nf(torch.ones(3), True)\n")] == [("GBL301", "definite")]


FILLED = """
import torch


def helper(x, opts=None):
    if opts is None:
        opts = ["fast"]
    if isinstance(opts, str):
        opts = [opts]
    if all([o == "slow" for o in opts]):
        print(x)
    return x


@torch.compile
def f(x, flag):
    return helper(x{arg})
"""


@pytest.mark.parametrize("arg, expected", [
    # the default filled in by the first `if`: ["fast"], so the `all(...)` is false
    ("", []),
    # a string wrapped into a list by the second `if` (isinstance of a constant is known)
    (", 'slow'", [(11, "GBL301", "definite", None)]),
    (", ['fast', 'slow']", []),
    (", ['slow', 'slow']", [(11, "GBL301", "definite", None)]),
    # what a caller passes that gblint cannot know: conditional, the test named
    (", flag", [(11, "GBL301", "conditional", 'when `all([o == "slow" for o in opts])`')]),
])
def test_a_parameter_filled_in_by_an_if_holds_what_each_arm_leaves(tmp_path, arg, expected):
    assert check(tmp_path, FILLED.format(arg=arg)) == expected


SHORT_CIRCUIT_TENSOR = """
import torch


def helper(x, t: torch.Tensor, flag=False):
    if flag and (t[1:] < t[:-1]).any():
        x = x * 2
    return x + 1


@torch.compile
def f(x, t, other):
    return helper(x, t{arg})
"""


@pytest.mark.parametrize("arg, expected", [
    # `flag` false: Python never evaluates the tensor operand, so nothing branches on a tensor
    ("", []),
    (", False", []),
    (", True", [(6, "GBL301", "definite", None)]),
    (", other", [(6, "GBL301", "conditional", "when `flag`")]),
])
def test_a_tensor_operand_after_a_known_one_breaks_only_when_evaluated(tmp_path, arg, expected):
    assert check(tmp_path, SHORT_CIRCUIT_TENSOR.format(arg=arg)) == expected


ONE_OF = """
import torch


class Dense:
    def size(self, d):
        return 3


class Sparse:
    def size(self, d):
        torch._dynamo.graph_break()
        return 3


def helper(x, kind):
    obj = Dense()
    if kind == "sparse":
        obj = Sparse()
    return x * obj.size(0)


@torch.compile
def f(x, kind):
    return helper(x, {arg})
"""


@pytest.mark.parametrize("arg, expected", [
    ("'dense'", []),
    ("'sparse'", [(12, "GBL301", "definite", None)]),
    # either class: the break is behind the call only when the object is a Sparse
    ("kind", [(12, "GBL301", "conditional", "when `obj.size is Sparse.size`")]),
])
def test_a_call_of_one_of_several_objects_breaks_only_maybe(tmp_path, arg, expected):
    assert check(tmp_path, ONE_OF.format(arg=arg)) == expected


TABLE = """
import torch


def relu_impl(x):
    return x.relu()


def print_impl(x):
    print(x)
    return x


TABLE = {{"relu": relu_impl, "print": print_impl}}


@torch.compile
def f(x, name):
    return TABLE[{key}](x)
"""


@pytest.mark.parametrize("key, expected", [
    ("'relu'", []),
    ("'print'", [(10, "GBL301", "definite", None)]),
    # a key known only when the code runs: one of the entries, each maybe
    ("name", [(10, "GBL301", "conditional", "when `TABLE[name] is print_impl`")]),
])
def test_a_table_indexed_by_a_run_time_key_calls_each_entry_maybe(tmp_path, key, expected):
    assert check(tmp_path, TABLE.format(key=key)) == expected


KNOWN_GLOBALS = """
import sys
import typing
from typing import TYPE_CHECKING

import torch


@torch.compile
def f(x):
    if {test}:
        print(x)
    return x + 1
"""


@pytest.mark.parametrize("test, version, expected", [
    # `typing.TYPE_CHECKING` is False whenever the code runs
    ("TYPE_CHECKING", "3.11", []),
    ("not typing.TYPE_CHECKING", "3.11", [(12, "GBL107", "definite", None)]),
    # `sys.version_info` is the checked Python's (--python-version), as (major, minor)
    ("sys.version_info >= (3, 12)", "3.11", []),
    ("sys.version_info >= (3, 12)", "3.12", [(12, "GBL107", "definite", None)]),
    ("sys.version_info[0] == 2", "3.11", []),
    # decided only by the micro version, which --python-version does not give: conditional
    ("sys.version_info >= (3, 11, 2)", "3.11", [(12, "GBL107", "conditional", "when `sys.version_info >= (3, 11, 2)`")]),
])
def test_type_checking_and_the_python_version_are_known(tmp_path, test, version, expected):
    assert check(tmp_path, KNOWN_GLOBALS.format(test=test), "--python-version", version) == expected


def test_a_break_met_maybe_through_one_call_and_surely_through_another_is_definite(tmp_path):
    src = TABLE.format(key="name").replace("    return TABLE[name](x)\n",
                                           "    x = TABLE[name](x)\n    return print_impl(x)\n")
    assert check(tmp_path, src) == [(10, "GBL301", "definite", None)]


def test_a_parenthesised_test_of_a_conditional_expression_short_circuits_too(tmp_path):
    src = """
    import torch


    def helper(x, flag: bool):
        return x if (flag and x.any()) else x * 2


    @torch.compile
    def f(x, flag):
        return helper(x, flag)
    """
    # (and when `x` is a tensor: nothing says what `f` is called with)
    assert check(tmp_path, src) == [(6, "GBL301", "conditional", "when `flag` (and 1 more condition)")]


def test_what_an_in_place_change_leaves_of_a_value():
    """A callee handed a local may change the object in place, never rebind the caller's name: a tensor stays
    a tensor (of a dtype, shape or grad not known), an immutable constant or a not-None object stays what it
    was; a collection or anything else is no longer known (gblint.abstract.values.changed_object, Op.INPLACE)."""
    from gblint.abstract.values import NOTNONE, UNKNOWN, changed_object, const, union
    grad = Expr(Op.TENSOR, "float32", (Expr(Op.GRAD, False),))
    assert changed_object(grad) == Expr(Op.TENSOR)
    assert changed_object(const(3)) == const(3) and changed_object(const(None)) == const(None)
    assert changed_object(NOTNONE) == NOTNONE
    assert changed_object(Expr(Op.SEQ, parts=(const(1),))) == UNKNOWN
    assert changed_object(Expr(Op.DICT)) == UNKNOWN
    assert changed_object(union((grad, const(None)))) == union((Expr(Op.TENSOR), const(None)))


def test_a_condition_on_the_mode_alone_reads_as_the_mode():
    from gblint.abstract.certainty import certainty_of
    from gblint.abstract.values import EVAL_MODE, TRAIN_MODE
    assert certainty_of([TRAIN_MODE]) == ("conditional", "in training mode")
    assert certainty_of([EVAL_MODE, EVAL_MODE]) == ("conditional", "in eval mode")
    assert certainty_of([TRAIN_MODE, "flag"]) == ("conditional", "when `flag` (and 1 more condition)")
    assert certainty_of(["flag", TRAIN_MODE]) == ("conditional", "when `self.training` (and 1 more condition)")
