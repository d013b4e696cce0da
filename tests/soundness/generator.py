"""Small, self-contained programs that test one value in a ``torch.compile`` region (issue 38's soundness test).

A program is described by a :class:`Spec` (every choice as a plain string or bool, so that a spec is printable,
hashable and can be written back as Python) and turned into source text by :func:`render`. Each program has the
shape of the measured programs of ``tests/fixtures/measured``: ``import torch``, a compiled function or
``nn.Module`` (``backend="eager"``), and a ``main()`` that calls it once on ``torch.ones(4)``. Under
``fullgraph=True`` ``main()`` catches only Dynamo's ``Unsupported`` (the compile error); any other exception
escapes, so a program that fails for another reason is seen (the runner records it and the test fails).

What varies (each a field of :class:`Spec`):

- ``kind``: what the tested value is: a Python ``bool``, ``int``, ``float``, ``str``, ``None``, a 0-d tensor
  (``tensor0d``), a one-element tensor (``tensor1``), a tensor computed from the input (``tensor_cmp``, such
  as ``x.abs().sum() >= 0``), a NumPy array (``ndarray``), a ``list``, or what a ``torch._C`` function returns
  (``c_state``: ``torch._C._get_tracing_state()``, None under Dynamo, or ``not`` of it: a Python value by its
  stub, never a tensor).
- ``truthy``: whether the value is true (``None`` is never true).
- ``arrival``: how the value gets to the test: a positional argument (``arg``), a parameter's default value
  (``default``), a keyword filled by a wrapper decorator from a config object with ``kwargs.setdefault``
  (``kwarg_wrapper``), a dataclass config's attribute (``config_attr``), a module-level name (``global``), a
  module attribute set in ``__init__`` (``module_attr``), ``register_buffer`` (``buffer``), an
  ``nn.Parameter`` (``parameter``), a helper's return value (``helper_return``), a tuple unpacked from a
  helper's return value (``tuple_unpack``), or a module attribute beside a registry of states that ``__init__``
  fills by name and a ``reset()`` it calls restores by name (``setattr(self, name, d)`` over the registry:
  torchmetrics' ``Metric``), the registry holding another name (``registry_attr``) or the value's own
  (``registry_named``: ``add_state("v", value)``, so the store by name is what sets it), or the first item of a
  list argument (``list_item``: ``f(x, [value])``, then ``v = vs[0]``: the parameter is no tensor, its item may be),
  or a module attribute stored in ``forward`` just before it is read (``self_store``: ``self.v = value`` then
  ``v = self.v``, decided by the store, gblint.syntax.self_stores).
- ``form``: how it is tested: ``if v``, ``if not v``, ``while v: ... break`` (the body always leaves the loop),
  ``while v:`` a loop that runs the body at most twice, ``a if v else b``,
  ``if bool(v)``, and ``and``/``or`` chains with another Python bool (``other``, true or false) on either side
  (``other_first``), so that the value may not be evaluated at all; ``rebind``: a local bound to a tensor
  before ``if v:``, rebound to a Python int in its body, then tested (``if w > 1``), so that the arm the value
  takes decides whether the later test reads a tensor (``gblint.syntax.arm_kinds``); ``arm_rebind``: the same local
  rebound (by unpacking) in the body of ``if v:`` and tested in its ``else`` arm, where it is still the tensor
  (``gblint.syntax.value_syntax._bound_value``); ``match v:`` with a case of
  falsy patterns (``None | False | 0 | "" | []``) and a wildcard case.
- ``body``: what the taken branch does: plain tensor arithmetic, or a graph-break source
  (``torch._dynamo.graph_break()``, ``print``, ``.item()``, a call of a helper that breaks: ``breaker(x)``, or
  a method that breaks of an object built there: ``Breaker().run(x)``, GB0092 at the call), so that whether the
  branch runs decides a break.
- ``else_body``: what the other arm of an ``if`` or a conditional expression does, the same choices: with a
  break source in both arms one of them runs whatever the value (in a loop, the frame is skipped whichever arm
  runs: ``gblint.dynamo.branch_cover``; a call of the same breaking helper in both arms meets its break whichever arm
  runs, ``gblint.dynamo.sink``).
- ``places``: where the test sits, outermost first: in a ``for`` loop, in a helper function (one call deeper
  each), in a ``with torch.no_grad()`` block; ``fetch`` re-reads a value that lives in a config, a global, the
  module or a helper inside the innermost helper instead of passing it down as a parameter.
- ``entry``: a function (``@torch.compile(...)`` decorator, or ``torch.compile(fn, ...)``) or an
  ``nn.Module`` compiled with ``torch.compile(model, ...)``; ``fullgraph`` True or False.

:func:`specs` is the hypothesis strategy; every spec it draws renders to a program CPython compiles
(``tests/test_soundness.py`` checks this for every program it runs).
"""
from __future__ import annotations

import dataclasses
from typing import List, Tuple

from hypothesis import strategies as st

KINDS = ("bool", "int", "float", "str", "none", "tensor0d", "tensor1", "tensor_cmp", "ndarray", "list", "c_state")
TENSOR_KINDS = ("tensor0d", "tensor1", "tensor_cmp")
ARRIVALS = ("arg", "default", "kwarg_wrapper", "config_attr", "global", "module_attr", "buffer", "parameter",
            "helper_return", "tuple_unpack", "registry_attr", "registry_named", "list_item", "self_store")
#: arrivals that exist only on an nn.Module
MODULE_ONLY = ("module_attr", "buffer", "parameter", "registry_attr", "registry_named", "self_store")
#: arrivals whose value can be read again where it is tested (in the innermost helper)
FETCHABLE = ("config_attr", "global", "module_attr", "buffer", "parameter", "helper_return", "registry_attr",
             "registry_named")
FORMS = ("if", "if_not", "while", "while_loop", "ternary", "bool_call", "and", "or", "rebind", "arm_rebind", "match",
         "for_arm")
BODIES = ("plain", "graph_break", "print", "item", "helper_break", "built_break")
PLACES = ("loop", "helper", "no_grad")
ENTRIES = ("decorator", "call", "module")


@dataclasses.dataclass(frozen=True)
class Spec:
    """One generated program's choices (module docstring). Every field is a str, bool or tuple of str."""

    kind: str = "bool"
    truthy: bool = True
    arrival: str = "arg"
    form: str = "if"
    other: bool = True  # the other operand of an and/or chain
    other_first: bool = False
    body: str = "plain"
    else_body: str = "plain"
    places: Tuple[str, ...] = ()
    fetch: bool = False
    entry: str = "decorator"
    fullgraph: bool = False

    def normal(self) -> "Spec":
        """The same program with the choices that cannot apply put right: ``None`` is never true; a buffer
        holds a tensor or None; a parameter a float tensor; a module-only arrival makes the entry a module;
        ``fetch`` only for values that can be read again inside a helper; chain fields only for chains; a
        conditional expression takes only plain or ``.item()`` arms."""
        s = self
        if s.kind == "none":
            s = dataclasses.replace(s, truthy=False)
        if s.arrival == "buffer" and s.kind not in TENSOR_KINDS + ("none",):
            s = dataclasses.replace(s, kind="tensor0d")
        if s.arrival == "parameter" and s.kind not in TENSOR_KINDS:
            s = dataclasses.replace(s, kind="tensor1")
        if s.arrival in MODULE_ONLY and s.entry != "module":
            s = dataclasses.replace(s, entry="module")
        if s.fetch and (s.arrival not in FETCHABLE or "helper" not in s.places):
            s = dataclasses.replace(s, fetch=False)
        if s.form not in ("and", "or"):
            s = dataclasses.replace(s, other=True, other_first=False)
        if s.form == "ternary" and s.body not in ("plain", "item"):
            s = dataclasses.replace(s, body="plain")
        if s.form in ("while", "while_loop", "for_arm") or (s.form == "ternary" and s.else_body not in ("plain", "item")):
            s = dataclasses.replace(s, else_body="plain")
        return s

    def python(self) -> str:
        """The spec as a Python expression (``Spec(kind='int', ...)``, fields that differ from the default)."""
        default = Spec()
        parts = [f"{f.name}={getattr(self, f.name)!r}" for f in dataclasses.fields(self)
                 if getattr(self, f.name) != getattr(default, f.name)]
        return f"Spec({', '.join(parts)})"


@st.composite
def specs(draw) -> Spec:
    """A hypothesis strategy of normal :class:`Spec` values (:meth:`Spec.normal`), every field drawn."""
    places = draw(st.lists(st.sampled_from(PLACES), max_size=2))
    spec = Spec(kind=draw(st.sampled_from(KINDS)), truthy=draw(st.booleans()), arrival=draw(st.sampled_from(ARRIVALS)),
                form=draw(st.sampled_from(FORMS)), other=draw(st.booleans()), other_first=draw(st.booleans()),
                body=draw(st.sampled_from(BODIES)), else_body=draw(st.sampled_from(BODIES)), places=tuple(places),
                fetch=draw(st.booleans()),
                entry=draw(st.sampled_from(ENTRIES)), fullgraph=draw(st.booleans()))
    return spec.normal()


# ------------------------------------------------------------------------------------------------ rendering

_VALUES = {  # kind -> (true value, false value); SRC is the tensor a computed value is made from
    "bool": ("True", "False"),
    "int": ("3", "0"),
    "float": ("1.5", "0.0"),
    "str": ('"on"', '""'),
    "none": ("None", "None"),
    "tensor0d": ("torch.tensor(True)", "torch.tensor(False)"),
    "tensor1": ("torch.ones(1)", "torch.zeros(1)"),
    "tensor_cmp": ("SRC.abs().sum() >= 0", "SRC.abs().sum() < 0"),
    "ndarray": ("np.ones(1)", "np.zeros(1)"),
    "list": ("[1, 2]", "[]"),
    "c_state": ("not torch._C._get_tracing_state()", "torch._C._get_tracing_state()"),
}
_PARAMETER_VALUES = {"tensor0d": ("torch.tensor(2.0)", "torch.tensor(0.0)"),
                     "tensor1": ("torch.ones(1)", "torch.zeros(1)"),
                     "tensor_cmp": ("(SRC.abs().sum() >= 0).float()", "(SRC.abs().sum() < 0).float()")}
_ANNOTATIONS = {"bool": "bool", "int": "int", "float": "float", "str": "str", "none": "Optional[bool]",
                "tensor0d": "torch.Tensor", "tensor1": "torch.Tensor", "tensor_cmp": "torch.Tensor",
                "ndarray": "np.ndarray", "list": "list", "c_state": "Optional[bool]"}
_OTHER = {True: "x.dim() == 1", False: "x.dim() == 2"}  # a Python bool under Dynamo (static shapes)


def value(spec: Spec, src: str = "torch.ones(4)") -> str:
    """The expression of ``spec``'s value (a computed tensor made from the tensor expression ``src``)."""
    table = _PARAMETER_VALUES if spec.arrival == "parameter" else _VALUES
    text = table[spec.kind][0 if spec.truthy else 1]
    return text.replace("SRC", src)


def _indent(lines: List[str], n: int = 1) -> List[str]:
    return [("    " * n + line) if line else line for line in lines]


def _body(body: str, sign: str = "+") -> List[str]:
    return {"plain": [f"x = x {sign} 1"],
            "graph_break": ["torch._dynamo.graph_break()", f"x = x {sign} 1"],
            "print": ['print("taken")', f"x = x {sign} 1"],
            "item": [f"x = x {sign} x.sum().item()"],
            "helper_break": [f"x = breaker(x) {sign} 1"],
            "built_break": ["b = Breaker()", f"x = b.run(x) {sign} 1"]}[body]


def _test(spec: Spec, v: str) -> List[str]:
    """The lines that test ``v`` (an expression) and change ``x``."""
    if spec.form == "ternary":
        taken = "x + x.sum().item()" if spec.body == "item" else "x + 1"
        other = "x - x.sum().item()" if spec.else_body == "item" else "x - 1"
        return [f"x = ({taken}) if {v} else ({other})"]
    if spec.form == "while":  # the body always leaves the loop: no backward jump
        return [f"while {v}:"] + _indent(_body(spec.body) + ["break"])
    if spec.form == "while_loop":  # a real loop: the value is tested again, at most twice
        return ["n = 0", f"while {v}:"] + _indent(_body(spec.body) + ["n += 1", "if n == 2:", "    break"])
    if spec.form == "for_arm":  # a loop over a conditional expression one arm of which is empty: one step or none
        return [f"for _ in (1,) if {v} else ():"] + _indent(_body(spec.body))
    if spec.form == "rebind":
        return ["w = x.sum()", f"if {v}:", "    w = 3", "if w > 1:"] + _indent(_body(spec.body)) + ["else:"] + \
            _indent(_body(spec.else_body, "-"))
    if spec.form == "arm_rebind":  # rebound (unpacking) in one arm, tested in the other: still the tensor there
        return ["w = x.sum()", f"if {v}:", "    w, n = 3, 0", "    x = x + w", "else:", "    if w > 1:"] + \
            _indent(_body(spec.body), 2) + ["    else:"] + _indent(_body(spec.else_body, "-"), 2)
    if spec.form == "match":
        return [f"match {v}:", '    case None | False | 0 | "" | []:'] + _indent(_body(spec.else_body, "-"), 2) + \
            ["    case _:"] + _indent(_body(spec.body), 2)
    cond = {"if": v, "if_not": f"not {v}", "bool_call": f"bool({v})"}.get(spec.form)
    if cond is None:
        other = _OTHER[spec.other]
        left, right = (other, v) if spec.other_first else (v, other)
        cond = f"{left} {spec.form} {right}"
    return [f"if {cond}:"] + _indent(_body(spec.body)) + ["else:"] + _indent(_body(spec.else_body, "-"))


def render(spec: Spec) -> str:
    """The program of ``spec`` (normalised first) as source text: imports, the value's definitions, helpers,
    the compiled entry and ``main()``."""
    spec = spec.normal()
    module = spec.entry == "module"
    compile_args = 'backend="eager"' + (", fullgraph=True" if spec.fullgraph else "")
    head = ["import torch"]
    if spec.kind == "ndarray":
        head.append("import numpy as np")
    if spec.arrival == "kwarg_wrapper":
        head.insert(0, "import functools")
    if spec.arrival == "config_attr":
        head = ["from dataclasses import dataclass, field", "from typing import Optional", ""] + head
    if module:
        head.append("import torch.nn as nn")
    top: List[str] = []  # module-level definitions before the helpers
    helpers: List[List[str]] = []
    if spec.arrival == "global":
        top += [f"VALUE = {value(spec)}"]
    elif spec.arrival == "config_attr":
        ann = _ANNOTATIONS[spec.kind]
        default = (f"field(default_factory=lambda: {value(spec)})"
                   if spec.kind in TENSOR_KINDS + ("ndarray", "list") else value(spec))
        top += ["@dataclass", "class Config:", f"    v: {ann} = {default}"]
        if not module:
            top += ["", "", "CONFIG = Config()"]
    elif spec.arrival == "kwarg_wrapper":
        top += ["class Settings:", "    def __init__(self):", f"        self.v = {value(spec)}", "", "",
                "def fill_from_config(fn):", "    @functools.wraps(fn)"]
        if module:
            top += ["    def wrapper(self, *args, **kwargs):",
                    '        kwargs.setdefault("v", self.config.v)', "        return fn(self, *args, **kwargs)"]
        else:
            top += ["    def wrapper(*args, **kwargs):",
                    '        kwargs.setdefault("v", CONFIG.v)', "        return fn(*args, **kwargs)"]
        top += ["", "    return wrapper"]
        if not module:
            top += ["", "", "CONFIG = Settings()"]
    elif spec.arrival == "helper_return":
        helpers.append(["def get_value(x):", f"    return {value(spec, 'x')}"])
    elif spec.arrival == "tuple_unpack":
        helpers.append(["def split(x):", f"    return x * 2, {value(spec, 'x')}"])
    if "helper_break" in (spec.body, spec.else_body):
        helpers.append(["def breaker(x):", "    torch._dynamo.graph_break()", "    return x * 3"])
    if "built_break" in (spec.body, spec.else_body):
        helpers.append(["class Breaker:", "    def run(self, x):", "        torch._dynamo.graph_break()",
                        "        return x * 3"])

    def fetch_expr() -> str:
        """Where the value is read from, in a function that has ``self`` (module) and ``x``."""
        return {"config_attr": "self.config.v" if module else "CONFIG.v", "global": "VALUE",
                "module_attr": "self.v", "buffer": "self.v", "parameter": "self.v", "registry_attr": "self.v",
                "registry_named": "self.v", "helper_return": "get_value(x)"}[spec.arrival]

    methods: List[List[str]] = []
    counter = [0]
    self_helpers = module and spec.fetch and spec.arrival in ("config_attr", "module_attr", "buffer", "parameter",
                                                              "registry_attr", "registry_named")

    def block(places: Tuple[str, ...], has_v: bool) -> List[str]:
        """Lines of the current function that do what ``places`` says, testing ``v`` at the innermost place;
        ``has_v``: whether ``v`` is a local here (else the value is read where it is tested)."""
        if not places:
            if has_v:
                return _test(spec, "v")
            return ["v = " + fetch_expr()] + _test(spec, "v")
        place, rest = places[0], places[1:]
        if place == "loop":
            return ["for _ in range(2):"] + _indent(block(rest, has_v))
        if place == "no_grad":
            return ["with torch.no_grad():"] + _indent(block(rest, has_v))
        counter[0] += 1
        name = f"helper{counter[0]}"
        inner = block(rest, has_v)
        params = "x, v" if has_v else "x"
        body = inner + ["return x"]
        if self_helpers:
            methods.append([f"def {name}(self, {params}):"] + _indent(body))
            return [f"x = self.{name}({params})"]
        helpers.append([f"def {name}({params}):"] + _indent(body))
        return [f"x = {name}({params})"]

    # how the entry gets the value: its parameters, and its first lines
    params, first = ["x"], []
    call_args = ["x"]
    if spec.arrival == "arg":
        params.append("v")
        call_args.append(value(spec, "x"))
    elif spec.arrival == "default":
        params.append(f"v={value(spec)}")
    elif spec.arrival == "kwarg_wrapper":
        params.append("v=None")
    elif spec.arrival == "tuple_unpack":
        first = ["x, v = split(x)"]
    elif spec.arrival == "list_item":
        params.append("vs")
        call_args.append(f"[{value(spec, 'x')}]")
        first = ["v = vs[0]"]
    elif spec.arrival == "self_store":
        first = [f"self.v = {value(spec, 'x')}", "v = self.v"]
    fetch_later = spec.fetch and "helper" in spec.places
    if spec.arrival in FETCHABLE and not fetch_later:
        first = ["v = " + fetch_expr()]
    has_v = not (spec.arrival in FETCHABLE and fetch_later)
    body = ["x = x * 2"] + first + block(spec.places, has_v) + ["return x"]

    out: List[str] = head + ["", ""]
    for chunk in ([top] if top else []) + helpers[::-1]:
        out += chunk + ["", ""]
    if module:
        init = ["def __init__(self, config=None):", "    super().__init__()", "    self.config = config"]
        if spec.arrival == "module_attr":
            init.append(f"    self.v = {value(spec)}")
        elif spec.arrival == "buffer":
            init.append(f'    self.register_buffer("v", {value(spec)})')
        elif spec.arrival == "parameter":
            init.append(f"    self.v = nn.Parameter({value(spec)})")
        elif spec.arrival in ("registry_attr", "registry_named"):
            init.append("    self._states = {}")
            if spec.arrival == "registry_attr":
                init += [f"    self.v = {value(spec)}", '    self.add_state("total", torch.zeros(()))']
            else:
                init.append(f'    self.add_state("v", {value(spec)})')
            init.append("    self.reset()")
            methods += [["def add_state(self, name, default):", "    setattr(self, name, default)",
                         "    self._states[name] = default"],
                        ["def reset(self):", "    for name, default in self._states.items():",
                         "        setattr(self, name, default)"]]
        forward = ([] if spec.arrival != "kwarg_wrapper" else ["@fill_from_config"])
        forward += [f"def forward(self, {', '.join(params)}):"] + _indent(body)
        cls = ["class Net(nn.Module):"] + _indent(init) + [""]
        cls += _indent(forward)
        for m in methods:
            cls += [""] + _indent(m)
        out += cls + ["", ""]
        config = {"config_attr": "Config()", "kwarg_wrapper": "Settings()"}.get(spec.arrival, "None")
        make = [f"model = torch.compile(Net({config}), {compile_args})"]
        call = f"model({', '.join(call_args)})"
    else:
        decorators = ["@fill_from_config"] if spec.arrival == "kwarg_wrapper" else []
        if spec.entry == "decorator":
            out += [f"@torch.compile({compile_args})"] + decorators
            out += [f"def f({', '.join(params)}):"] + _indent(body) + ["", ""]
            make = []
        else:
            out += decorators + [f"def f_impl({', '.join(params)}):"] + _indent(body) + ["", ""]
            out += [f"f = torch.compile(f_impl, {compile_args})", "", ""]
            make = []
        call = f"f({', '.join(call_args)})"
    main = ["def main():", "    x = torch.ones(4)"] + _indent(make)
    if spec.fullgraph:
        main += ["    try:", f"        {call}", "    except torch._dynamo.exc.TorchDynamoException:", "        pass"]
    else:
        main += [f"    {call}"]
    return "\n".join(out + main) + "\n"


def draw_specs(count: int, seed: int = 0) -> List[Spec]:
    """``count`` distinct specs drawn by :func:`specs` with hypothesis seeded by ``seed`` (an int; the same
    count and seed give the same list, in the same order, on the same hypothesis version). Runs hypothesis's
    generation phase only (no shrinking, no example database), with further seeds until ``count`` distinct
    specs are found."""
    from hypothesis import Phase, given, settings
    from hypothesis import seed as seeded

    found: dict = {}
    attempt = 0
    while len(found) < count and attempt < 50:
        @seeded(seed * 1000 + attempt)
        @settings(max_examples=max(2 * (count - len(found)), 10), database=None, phases=[Phase.generate],
                  deadline=None)
        @given(specs())
        def collect(spec: Spec) -> None:
            if len(found) < count:
                found.setdefault(spec, None)

        collect()
        attempt += 1
    return list(found)
