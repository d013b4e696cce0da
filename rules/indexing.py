"""Sizes and positions that are data: a slice bound that is a tensor, ``torch.arange`` of a tensor,
and the values of ``random`` that Dynamo traces (``random.uniform``, ``random.Random(s).randint``)
used where Python needs an int.

A tensor (or a traced random value, which Dynamo passes into the graph as a 0-d tensor) used as a
slice bound must become a Python int: an implicit ``.item()`` (GB0124; GB0213 when arithmetic on it
comes first) raised where Dynamo cannot resume, so the graph up to the last checkpoint is kept and
the rest of the frame runs eagerly. Indexing with a traced random int (GB0033) and
``torch.arange(t)`` of a tensor (GB0033, "Data dependent operator") break and resume; ``range(n)``
of a traced random int fails like a slice bound (GB4841). Source: ``torch/_dynamo/variables/
tensor.py`` (``__index__`` / item), ``variables/misc.py`` (``RandomVariable``); semantics.md §8.4.
"""
import libcst as cst

from gblint.core.ops import Op

from gblint.core.semantics import RANDOM_METHODS, TRACED_RANDOM
from gblint.abstract.tensors import (DATA_DEPENDENT_FUNCS, DATA_DEPENDENT_METHODS, INT_PARAMS, TENSOR_METHOD_RESULTS,
                                     TENSOR_METHODS, maybe_tensor, numpy_reduction)

from .base import Rule
from .data_values import data_kind, note_binding
from .notes import forget_local, instance_classes, local_note, note_local


def tensor_size(node, ctx):
    """The kind token of ``node`` when it is a size read out of tensor data: a reduction or other
    tensor method called on a tensor (``lengths.max()``), an element of one, a name bound to one (:func:`_made_or_param`);
    None for arithmetic, whose value may be a size Dynamo knows (deberta's ``max_relative_positions - att_span``)
    and for a name whose kind only a use suggests."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in TENSOR_METHODS:
        return ctx.known_tensor(node)
    if isinstance(node, cst.Subscript):  # an element of a proven tensor is a tensor (``offsets[i]``)
        return ctx.known_tensor(node)
    if isinstance(node, cst.Name):  # an element a loop took from a tensor (``for start in starts:``)
        # or a name bound to a tensor by what made it (``n = torch.tensor(3)``) or read out of a parameter
        # (``n = lengths.max()``, ``s = ptr[1]``): each breaks as a bound (measured: tests/cases/kinds kd22)
        return local_note(ctx, "tensor element", node.value) or _made_or_param(node, ctx)
    return None


def _made_or_param(node: cst.BaseExpression, ctx):
    """The kind token of ``node`` when it is a tensor by what made it (:func:`_made_tensor`: ``"T"``) or read out of
    a parameter never rebound (``ptr[:-1]``, ``lengths.max()``, a local every binding of which is such a read), which
    is a tensor if the caller passes one or its annotation says so (``"p:NAME"`` or ``"T"``); None for a kind only a
    use suggests (names unpacked from a helper's result: diffusers' Lumina2 ``encoder_seq_lengths, seq_lengths =
    self.rope_embedder(...)`` are lists of ints) or a name also bound otherwise (``n = ptr[1] if flag else 2``)."""
    if _made_tensor(node, ctx):
        return "T"
    info = ctx.info
    k = ctx.known_tensor(node)
    if k is None or info is None:
        return None
    root = node
    while isinstance(root, cst.Subscript) or isinstance(root, cst.Call) and isinstance(root.func, cst.Attribute) \
            and root.func.attr.value in TENSOR_METHOD_RESULTS:
        root = root.value if isinstance(root, cst.Subscript) else root.func.value
    if not isinstance(root, cst.Name) or root is node and root.value not in info.locals:
        return None  # a parameter itself (`x[:n]`): an int the caller passes, mostly (no break measured in the harness)
    if root.value in info.locals:  # a local every binding of which is a tensor made or read out of a parameter
        bound = info.locals[root.value]
        return k if bound and all(_param_read(v) or _tensor_value(v) for v in bound) else None
    return k if any(p.name == root.value for p in info.params) else None


_WHOLE_REDUCTIONS = frozenset({"max", "min", "median", "nanmedian"})


def _param_read(e) -> bool:
    """Whether the value ``e`` is an element of a parameter never rebound, or what a Tensor method makes of one
    (``ptr[1]``, ``lengths.max()``)."""
    while e.op in (Op.SUB, Op.CALLV) and e.parts:
        if e.op == Op.CALLV:
            method = e.parts[0].value if e.parts[0].op == Op.ATTR else None
            # `t.max()` without arguments is a tensor (torch/_C/__init__.pyi: only `max(dim)` gives a tuple)
            if method not in TENSOR_METHOD_RESULTS and (method not in _WHOLE_REDUCTIONS or len(e.parts) > 1) \
                    or not e.parts[0].parts:
                return False
            e = e.parts[0].parts[0]
        else:
            e = e.parts[0]
    return e.op == Op.PARAM


def note_tensor_elements(node: cst.For, ctx) -> None:
    """Note the names the ``for`` statement ``node`` binds to elements of a tensor it iterates (directly, or through
    ``zip`` or the second item of ``enumerate``) with the tensor's kind token; forget the others it binds. Iterating
    a tensor gives tensors, whatever it was built from: ``for s, e in zip(starts, ends): m[s:e] = 0`` with
    ``starts = torch.tensor(lengths).cumsum(-1)`` breaks at the slice (GB0124, measured: tests/cases/kinds kb38;
    transformers' pixtral ``generate_block_attention_mask``)."""
    pairs = [(node.target, node.iter)]
    while pairs:
        target, it = pairs.pop()
        q = ctx.resolve(it.func) if isinstance(it, cst.Call) else None
        parts = target.elements if isinstance(target, (cst.Tuple, cst.List)) else None
        if q == "zip" and parts is not None and len(parts) == len(it.args) and not any(a.star for a in it.args):
            pairs.extend((e.value, a.value) for e, a in zip(parts, it.args))
            continue
        if q == "enumerate" and parts is not None and len(parts) == 2 and it.args and not it.args[0].star:
            pairs.append((parts[1].value, it.args[0].value))
            continue
        # a tensor by what makes it (a torch op's stub, a factory), not by how a name is used: diffusers' Lumina2
        # `zip(encoder_seq_lengths, seq_lengths)` unpacks lists of ints a helper returns
        kind = _made_or_param(it, ctx) if isinstance(target, cst.Name) else None
        for name in _names(target):
            if kind is not None and name == target.value:
                note_local(ctx, "tensor element", name, kind)
            else:
                forget_local(ctx, "tensor element", name)


def _made_tensor(node: cst.BaseExpression, ctx) -> bool:
    """Whether ``node`` is a tensor by what makes it: a torch op or Tensor method whose stub returns one, or a local
    every binding of which so far is one."""
    if isinstance(node, cst.Name) and ctx.info is not None and node.value in ctx.info.locals:
        bound = ctx.info.locals[node.value]
        return bool(bound) and all(_tensor_value(v) for v in bound)
    return _tensor_value(ctx.builder.value_of(node))


def _tensor_value(e) -> bool:
    """Whether the value ``e`` is a tensor a torch op made, or what a Tensor method whose every stub overload
    returns a tensor makes of one (``torch.tensor(lengths).cumsum(-1)``)."""
    while e.op == Op.CALLV and e.parts and e.parts[0].op == Op.ATTR and e.parts[0].value in TENSOR_METHOD_RESULTS:
        e = e.parts[0].parts[0]
    return e.op == Op.TENSOR


def _names(target: cst.BaseExpression) -> list:
    """The plain names a ``for`` target binds."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _names(e.value)]
    if isinstance(target, cst.StarredElement):
        return _names(target.value)
    return []


def tensor_slice_object(node, ctx):
    """The kind token of a bound of ``slice(...)`` (the builtin, called in ``node``, alone or in a tuple of
    index objects) that is a tensor by :func:`tensor_size`; None when no bound is one."""
    calls = [e.value for e in node.elements] if isinstance(node, cst.Tuple) else [node]
    for call in calls:
        if isinstance(call, cst.Call) and ctx.resolve(call.func) == "slice":
            for arg in call.args:
                k = tensor_size(arg.value, ctx)
                if k is not None:
                    return k
    return None


def random_value(node, ctx) -> bool:
    """Whether ``node`` is a value of ``random`` that Dynamo traces: a call of ``random.uniform``,
    ``randint`` or ``randrange``, a traced method of a ``random.Random`` instance, a local bound to
    one, or arithmetic on one."""
    if isinstance(node, cst.Call):
        if ctx.resolve(node.func) in TRACED_RANDOM:
            return True
        func = node.func
        return isinstance(func, cst.Attribute) and func.attr.value in RANDOM_METHODS and \
            "random.Random" in instance_classes(func.value, ctx)
    if isinstance(node, cst.Name):
        return bool(local_note(ctx, "random", node.value))
    if isinstance(node, cst.BinaryOperation):
        return random_value(node.left, ctx) or random_value(node.right, ctx)
    if isinstance(node, cst.UnaryOperation):
        return random_value(node.expression, ctx)
    return False


class DataDependentSlice(Rule):
    code = "GBL135"
    name = "data-dependent-slice"
    gb_ids = ("GB0124", "GB0213", "GB4841")
    node_types = (cst.Subscript, cst.Call, cst.Assign, cst.For)
    effect = "skip"
    summary = ("A slice bound that is a tensor or a traced `random` value (`x[:lengths.max()]`, "
               "`x[gen.randint(0, 2):]`, `slice(offsets[i], offsets[i + 1])`), or `range()` of a traced `random` int.")
    why = ("Python needs an int that is data, and turns it into one where Dynamo cannot resume: the graph up to the "
           "last checkpoint is kept and the rest of the frame runs eagerly (all of it without a checkpoint).")
    hint = ("Keep sizes Python ints known before the run (shapes, arguments), draw random offsets outside the "
            "compiled function, or use masks of a fixed shape.")
    source = "torch/_dynamo/variables/tensor.py; torch/_dynamo/variables/misc.py: RandomVariable; semantics.md §8.4"
    use_instead = (
        'import torch\n'
        '@torch.compile\n'
        'def f(x, n: int):\n'
        '    return x[:n]\n'
        'def step(x, lengths):\n'
        '    return f(x, int(lengths.max()))  # the length as a Python int, outside\n'
    )
    measured = "tests/fixtures/measured/v41_random_instance.py"
    examples_fire = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x, lengths):\n"
        "    return x[: lengths.max()]  # expect: GBL135\n",
        "import random\n"
        "import torch\n"
        "@torch.compile\n"
        "def crop(x):\n"
        "    gen = random.Random(0)\n"
        "    start = gen.randint(0, 2)\n"
        "    return x[start:start + 2] * 2  # expect: GBL135\n",
    )
    examples_clean = (
        "import random\n"
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    jitter = random.uniform(0, 1)\n"
        "    return x[: x.shape[0] // 2] * jitter\n",
        "import torch\n"
        "@torch.compile\n"
        "def halves(x):\n"
        "    head = slice(0, x.shape[0] // 2)\n"
        "    return x[head]\n",
    )

    def check(self, node, ctx):
        if isinstance(node, cst.For):
            note_tensor_elements(node, ctx)
            return None
        if isinstance(node, cst.Assign):
            for t in node.targets:
                if isinstance(t.target, cst.Name):
                    forget_local(ctx, "tensor element", t.target.value)
                    if random_value(node.value, ctx):
                        note_local(ctx, "random", t.target.value)
                    else:
                        forget_local(ctx, "random", t.target.value)
                    k = tensor_slice_object(node.value, ctx)
                    if k is not None:
                        note_local(ctx, "tensor slice", t.target.value, k)
                    else:
                        forget_local(ctx, "tensor slice", t.target.value)
            return None
        if isinstance(node, cst.Call):
            # building the slice object converts a tensor bound to an int (SliceVariable: GB0124), a break Dynamo
            # resumes after (measured: tests/cases/kinds k63, k65)
            k = tensor_slice_object(node, ctx)
            if k is not None:
                return self.site(node, "`slice()` of a tensor (an implicit `.item()`)", needs=k, capturable=True,
                                 gb_ids=("GB0124",))
            if ctx.resolve(node.func) == "range" and any(random_value(a.value, ctx) for a in node.args):
                if ctx.holds("random-range-resumes"):  # torch >=2.14 (docs/semantics.md §8.11)
                    return self.site(node, "`range()` of a traced `random` value", gb_ids=("GB0124",))
                return self.site(node, "`range()` of a traced `random` value", gb_ids=("GB4841",), outcome="tail")
            return None
        if not maybe_tensor(ctx.kind(node.value)):
            return None
        for element in node.slice:
            s = element.slice
            if isinstance(s, cst.Index) and isinstance(s.value, cst.Name):
                k = local_note(ctx, "tensor slice", s.value.value)
                if k is not None:  # the slice object was made eagerly after its break: indexing converts again
                    return self.site(node, "a slice bound that is a tensor (an implicit `.item()`)",
                                     outcome="tail", needs=k, capturable=True, gb_ids=("GB0124", "GB0213"),
                                     loop_tail=id(node) not in ctx.written)  # `m[:s] += 1` in a loop: skipped
            if not isinstance(s, cst.Slice):
                continue
            for bound in (s.lower, s.upper, s.step):
                if bound is None:
                    continue
                if random_value(bound, ctx):
                    return self.site(node, "a slice bound that is a traced `random` value", outcome="tail",
                                     gb_ids=("GB0213", "GB0124"))
                k = tensor_size(bound, ctx)
                if k is not None:
                    return self.site(node, "a slice bound that is a tensor (an implicit `.item()`)",
                                     outcome="tail", needs=k, capturable=True, gb_ids=("GB0124", "GB0213"),
                                     loop_tail=id(node) not in ctx.written)  # `m[:s] += 1` in a loop: skipped
        return None


class DataDependentIndex(Rule):
    code = "GBL139"
    name = "data-dependent-index"
    gb_ids = ("GB0033",)
    node_types = (cst.Subscript, cst.Call, cst.Assign, cst.For)
    summary = ("An index that is a traced `random` int (`x[random.randint(0, 2)]`), a value read out of tensor data "
               "where a torch op wants an int (`F.one_hot(x, x.max() + 1)`, `torch.arange(n.max())`), or an op "
               "whose Python result is read out of tensor data (`torch.equal(a, b)`, `a.allclose(b)`, `torch._assert(t, msg)`).")
    why = "All need a Python value that is data (GB0033 Data dependent operator): the graph breaks and resumes."
    hint = ("Draw the index outside the compiled function; pass sizes known before the run (shapes, arguments, "
            "`num_classes` as a constant) instead of one computed from tensor values.")
    source = ("torch/_dynamo/variables/tensor.py; torch/_dynamo/variables/misc.py: RandomVariable; semantics.md §8.4; "
              "torch/_subclasses/fake_tensor.py (ops tagged data_dependent_output, parameters typed as ints: "
              "gblint/data/torch_ops-*.json)")
    use_instead = (
        'import random\n'
        'import torch\n'
        '@torch.compile\n'
        'def f(x, start: int):\n'
        '    return x[start] * 2\n'
        'def step(x):\n'
        '    return f(x, random.randint(0, 2))  # drawn outside the compiled call\n'
    )
    measured = "tests/fixtures/measured/v52_data_dependent.py"
    examples_fire = (
        "import random\n"
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    start = random.randint(0, 2)\n"
        "    return x[start] * 2  # expect: GBL139\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x, n):\n"
        "    return torch.arange(n.max()) + x.sum()  # expect: GBL139\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    torch._assert(x.sum() > 0, 'positive')  # expect: GBL139\n"
        "    return x + 1\n",
        "import torch\n"
        "@torch.compile\n"
        "def f(x, ref):\n"
        "    if torch.equal(x, ref):  # expect: GBL139\n"
        "        return x\n"
        "    return x * 2\n",
        "import torch\n"
        "import torch.nn.functional as F\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    idx = x.argmax(-1)\n"
        "    n = idx.max() + 1\n"
        "    return F.one_hot(idx, max(n, 4))  # expect: GBL139\n",
    )
    examples_clean = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x, n: int):\n"
        "    torch._assert(x.shape[0] > 0, 'not empty')\n"
        "    return x[0] + torch.arange(n) + torch.arange(x.shape[0])\n",
        "import torch\n"
        "import torch.nn.functional as F\n"
        "@torch.compile\n"
        "def f(idx, q, k):\n"
        "    span = torch.tensor(min(q.size(0), k.size(0)))\n"
        "    return F.one_hot(idx, idx.shape[-1] + 1).sum() + torch.zeros(span.max()).sum()\n",
    )

    def check(self, node, ctx):
        if isinstance(node, (cst.Assign, cst.For)):
            note_binding(node, ctx)
            return None
        if isinstance(node, cst.Call):
            q = ctx.resolve(node.func)
            if q in ("torch.arange", "torch.range"):
                for a in node.args:
                    k = data_kind(a.value, ctx)
                    if a.keyword is None and k is not None:
                        return self.site(node, f"`{q}(...)` of a tensor: its length is data", needs=k)
            found = int_argument(node, q, ctx)
            if found is not None:
                return self.site(node, f"`{found[0]}(...)` gets an int read out of tensor data", needs=found[1])
            # `is_nonzero` reads data through `aten._local_scalar_dense` (GB0033, measured: tests/test_torch_ops.py)
            # though its ATen op carries no tag
            if q == "torch._assert" and node.args and node.args[0].keyword is None:
                # variables/torch.py handle_assert folds a constant condition; a tensor one runs `torch._assert` on
                # the fake tensor, whose `bool()` reads its data (measured, tests/cases/kinds/kd6)
                k = ctx.kind(node.args[0].value)
                if maybe_tensor(k):
                    return self.site(node, "`torch._assert(...)` of a tensor condition reads its truth out of tensor "
                                     "data", needs=k)
            if q in DATA_DEPENDENT_FUNCS or q == "torch.is_nonzero":
                # torch's stubs type the operands of these as Tensor (`equal(input: Tensor, other: Tensor) -> bool`):
                # whatever gblint knows of the arguments, the call that returns reads tensor data
                return self.site(node, f"`{q}(...)` reads its Python result out of tensor data")
            func = node.func
            if isinstance(func, cst.Attribute) and q is None and (func.attr.value in DATA_DEPENDENT_METHODS
                                                                  or func.attr.value == "is_nonzero"):
                k = ctx.kind(func.value)
                if maybe_tensor(k):
                    return self.site(node, f"`.{func.attr.value}(...)` reads its Python result out of tensor data",
                                     needs=k)
            return None
        if not maybe_tensor(ctx.kind(node.value)):
            return None
        for element in node.slice:
            if isinstance(element.slice, cst.Index) and random_value(element.slice.value, ctx):
                return self.site(node, "an index that is a traced `random` int")
        return None


def int_argument(node: cst.Call, q, ctx):
    """``(name, kind token)`` when the call ``node`` (of ``q``, its resolved name, None for a method) hands a
    value read out of tensor data (:func:`rules.data_values.data_kind`) to a parameter torch's stub types as an
    int or ints (``INT_PARAMS``, scripts/update_torch_ops.py), alone or in a tuple or list; None otherwise."""
    func = node.func
    if q is not None:
        if q.startswith("torch.nn.functional."):
            places, name = INT_PARAMS["functional"].get(q[len("torch.nn.functional."):]), q
        else:
            places, name = INT_PARAMS["functions"].get(q[len("torch."):]) if q.startswith("torch.") else None, q
        receiver = "T"
    elif isinstance(func, cst.Attribute):
        receiver = ctx.kind(func.value)
        if not maybe_tensor(receiver):
            return None
        places, name = INT_PARAMS["methods"].get(func.attr.value), f".{func.attr.value}"
    else:
        return None
    if not places:
        return None
    position = 0
    for a in node.args:
        if a.star:
            return None  # the positions after it are not known
        if a.keyword is None:
            wanted = position in places.get("pos", ()) or position >= places.get("rest", float("inf"))
            position += 1
        else:
            wanted = a.keyword.value in places.get("kw", ())
        if not wanted:
            continue
        values = [e.value for e in a.value.elements] if isinstance(a.value, (cst.Tuple, cst.List)) else [a.value]
        for v in values:
            k = data_kind(v, ctx)
            if k is None and numpy_reduction(v, ctx) and ctx.config("trace_numpy", True):
                k = "T"  # `x.reshape(-1, np.prod(x.shape[1:]))`: a 0-d tensor even of Python values (kinds kd4)
            if k is not None:
                return name, receiver if k == "T" and maybe_tensor(receiver) else k
    return None
