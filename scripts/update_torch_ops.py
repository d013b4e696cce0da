"""Write ``gblint/data/torch_ops-<version>.json`` from the installed torch's own files, read as text
(torch is never imported; ``importlib.util.find_spec`` of a top-level name runs none of its code).

``data_dependent``: the torch functions (``torch/_C/_VariableFunctions.pyi``) and Tensor methods
(``class TensorBase`` of ``torch/_C/__init__.pyi``) whose stub returns a Python value (``bool``,
``int``, ``float``, ``Number``) and whose ATen op carries the ``data_dependent_output`` tag in
``torchgen/packaged/ATen/native/native_functions.yaml``: fake tensors cannot compute their result, so
Dynamo breaks the graph there (GB0033 Data dependent operator; measured in tests/test_torch_ops.py).
``item`` is left out (GBL102 reports it).

``tensor_modules``: the ``torch.nn`` module classes (``torch/nn/modules/*.py``, parsed with ``ast``)
whose ``forward`` is annotated ``-> Tensor``: calling one returns a tensor, a fact the value model
carries into the helpers the result is handed to.

``forward_calls``: for each ``torch.nn`` module class, the methods of its own class (or bases)
that its ``forward`` calls on ``self`` (``Conv1d.forward`` calls ``self._conv_forward``): a
subclass that overrides one of them without overriding ``forward`` has its override run by
torch's own ``forward``.

``parameters``: for each ``torch.nn`` module class, the attributes its ``__init__`` (or a base's)
sets to a ``Parameter(...)`` and never to ``None`` (``Linear.weight``; not ``Linear.bias``, which
``bias=False`` registers as ``None``): reading one gives a tensor. ``held_attributes``: the other attributes it
sets or registers (``Linear.bias``, ``Linear.in_features``, ``BatchNorm1d.running_mean``): reading one gives a value
the constructor's arguments decide (``None`` for ``bias=False``), never a method.

``tensor_functions`` / ``functional`` / ``tensor_methods``: the ``torch.*`` functions
(``torch/_C/_VariableFunctions.pyi``, and those of ``torch/functional.py`` annotated ``-> Tensor``:
``einsum``), ``torch.nn.functional`` functions (``torch/nn/functional.pyi``, with what it re-exports from
``torch`` and ``torch._C._nn``: ``pad``, ``one_hot``, ``linear``)
and Tensor methods (``class TensorBase`` of ``torch/_C/__init__.pyi``) every overload of whose stub
returns ``Tensor`` (or ``Self``): what a call of one returns is a tensor, a fact (issue 38).

``c_functions``: the functions of ``torch._C`` and of its submodules with a stub (``torch/_C/__init__.pyi``,
``torch/_C/_nn.pyi``...), by their name under ``torch._C`` (``_get_tracing_state``, ``_nn.linear``):
``"tensor"`` when every overload returns ``Tensor``, ``"python"`` when none returns anything that names a
tensor type (``_get_tracing_state() -> TracingState``, ``_is_grad_enabled() -> _bool``); left out otherwise
(``Optional[Tensor]``, unannotated). What is left out is not known, never a tensor by default.

``python_results``: the ``torch`` functions Dynamo puts in the graph as calls (``TorchInGraphFunctionVariable``:
listed in ``torch_c_binding_in_graph_functions``, ``torch_non_c_binding_in_graph_functions`` or mapped to it in
``manual_torch_name_rule_map`` of ``torch/_dynamo/trace_rules.py``) whose result is a Python ``bool``, ``int``
or ``str`` (the return annotation of their stub, ``torch/_C/*.pyi``, or of their ``def`` in torch's Python
source) and that ``torch/_dynamo/variables/torch.py``, ``builder.py`` and ``torch_function.py`` never name
(no constant folding, no handler, not in the lists of results ``wrap_fx_proxy_cls`` keeps as constants): a
call of one in compiled code breaks (GB0208, "torch.* op returned non-Tensor"; a ``float`` result is kept as a
constant, ``None`` too). By the name Dynamo lists (``torch._C.get_num_threads``) and the names ``torch``
re-exports it under (``torch.get_num_threads``: ``from torch._C import *``, ``torch._C._VariableFunctions``;
``torch.initial_seed``: ``from torch.random import ...`` in ``torch/__init__.py``). ``python_valued``: the same
without leaving out what Dynamo names (``torch.are_deterministic_algorithms_enabled() -> builtins.bool``): what a
call returns is a Python value, not a tensor.

``context_managers``: the ``torch`` functions Dynamo puts in the graph as calls (as for ``python_results``) whose
``def`` in torch's Python source is a ``@contextmanager`` generator, and that ``torch/_dynamo/variables/torch.py``,
``builder.py``, ``torch_function.py`` and ``ctx_manager.py`` never name: the call returns a generator context
manager, not a tensor (GB0208, "torch.* op returned non-Tensor"), and a ``with`` on it cannot be entered (GB0142
Unsupported context manager): the frame is skipped (measured: ``torch.backends.cuda.sdp_kernel``,
``torch.random.fork_rng``, ``torch.backends.cudnn.flags``; tests/cases/kinds/kb33).

``numpy_array_results`` / ``numpy_no_results``: the NumPy functions whose ``torch._numpy`` counterpart (a public
function of ``_funcs_impl.py``, ``_reductions_impl.py``, ``random.py``, ``linalg.py``, ``fft.py``) returns a torch
function's tensor in every ``return`` (an ndarray to the caller, a tensor to Dynamo) / returns none (``copyto``).

``numpy_python_results``: the NumPy functions Dynamo runs as their ``torch._numpy`` counterpart (same name,
``torch/_dynamo/utils.py``: ``get_np_to_tnp_map``) whose every ``return`` in ``torch/_numpy/_funcs_impl.py`` or
``_reductions_impl.py`` is proven a Python ``bool``, ``int`` or ``str`` (:func:`_return_kind`): the call breaks
(GB0208, as ``np.isscalar(k)`` does; measured: ``iscomplexobj``, ``isrealobj`` too).

``numpy_scalar_results``: the ``numpy.random`` functions that, given no size, read a Python scalar out of a tensor
(GB0033 at the call): :func:`numpy_scalar_results`.

``numpy_reductions``: the NumPy functions whose counterpart is a reduction (:func:`numpy_reductions`).

``skipped_stdlib``: the standard-library modules Dynamo skips (``BUILTIN_SKIPLIST``: a call of their functions
from compiled code is GB0007 "Attempted to call function marked as skipped", ``importlib.import_module``), those
it inlines when called all the same (``copy``), and the skipped functions it runs at trace time on constant
arguments instead (``re.match``, ``importlib.util.find_spec``): :func:`skipped_stdlib`.
``int_params``: for the ``torch.*`` functions (``torch/_C/_VariableFunctions.pyi``), the ``torch.nn.functional``
functions (``torch/nn/functional.pyi``, and the ``torch._C._nn`` functions it re-exports, ``torch/_C/_nn.pyi``) and
the Tensor methods (``class TensorBase`` of ``torch/_C/__init__.pyi``), the parameters typed as an int or a
sequence of ints (``_int``, ``SymInt``, ``_size``, ``Sequence[_int | SymInt]``, ``Optional[...]`` of those,
``*size: _int``): ``{"pos": [positions], "rest": first position of an int ``*args``, "kw": [keywords]}`` (positions
after ``self`` for methods). Merged over the overloads: a place counts only where no overload types it as
something a tensor may be passed as (``Tensor``, ``Number``, ``_float``, ``_bool``, ``Any``, unannotated), and one
types it as ints; an overload taking a dtype or named dimensions (``str``) there is never the one a tensor picks.
A tensor read out of data passed there makes Dynamo read the int out of it (``aten._local_scalar_dense``: GB0033,
rules/indexing.py ``DataDependentIndex``).
``dynamic_output_shape``: the ATen ops tagged ``dynamic_output_shape`` in ``native_functions.yaml`` (their output's
size depends on tensor data: fake tensors raise ``DynamicOutputShapeException``, GB0036 with
``capture_dynamic_output_shape_ops`` off), by the names torch exports them under (:func:`dynamic_output_shape`):
``{"functions": ["torch.bincount", "torch.linalg.lstsq", "torch.nn.functional.ctc_loss"...], "methods": [...]}``.

``python_methods``: the Tensor methods whose stub returns only Python scalars (:func:`python_methods`).

``refused``: what Dynamo's own trackers refuse whatever the arguments: the ``torch`` functions whose handler in
``torch/_dynamo/variables/torch.py`` (``@register(torch.is_inference_mode_enabled)``) and the Tensor methods whose
``method_<name>`` in ``variables/tensor.py`` (``method_resize_``) is one ``unimplemented(...)`` call, with the id of
that call's ``gb_type`` in gblint's registry; and ``unmodelled_scalar_methods``: the Tensor methods whose every overload's stub returns a
Python scalar (``is_neg() -> _bool``, ``storage_offset() -> _int | SymInt``) and that ``TensorVariable`` has no
``method_<name>`` for: Dynamo calls them on the fake tensor and gets a Python value it cannot put in the graph
(GB0208, "torch.* op returned non-Tensor"; measured: tests/cases/kinds/kd6). ``data_dependent`` ones are left out.

``numpy_module_names``: for ``numpy.random``, ``numpy.fft`` and ``numpy.linalg``, every name the matching
``torch._numpy`` module (``random.py``, ``fft.py``, ``linalg.py``) binds in its namespace (``def``, ``class``,
assignment, import; under ``if``/``try`` too, not in function bodies). Dynamo runs a NumPy function as the ``torch._numpy`` function of the same name (``get_np_to_tnp_map``,
``torch/_dynamo/variables/misc.py``); one with none breaks (GB0294 "attempted to trace numpy function unsupported by
PyTorch": ``np.random.permutation``, ``np.random.default_rng``; measured: tests/cases/kinds kd11). For the top-level
``numpy``, built by ``import *`` and loops in ``torch/_numpy``, an over-count: every name any of its files binds at
module scope and every identifier string in their module-scope literals, and the NumPy aliases of those names read
from the installed ``numpy/__init__.pyi`` (``concat = concatenate``) (``np.nanmean``, ``np.isin`` are not among them
and break: kd15).

Usage: ``python3 scripts/update_torch_ops.py``.
"""
import ast
import glob
import importlib.util
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCALARS = {"_bool", "bool", "_int", "int", "_float", "float", "Number", "_complex", "complex"}
DEF = re.compile(r"^(\s*)def (\w+)\(([^)]*)\)\s*->\s*([^:]+):", re.M)


def scalar_defs(text, want_class=None):
    """Names of the ``def``s of ``text`` (inside ``class want_class`` when given) that return a scalar."""
    if want_class is not None:
        start = text.index(f"class {want_class}")
        end = re.compile(r"^class ", re.M).search(text, start + 1)
        text = text[start:end.start() if end else len(text)]
    return {m.group(2) for m in DEF.finditer(text)
            if m.group(4).strip() in SCALARS and (want_class is not None or "Tensor" in m.group(3))}


def tagged(yaml_text, tag="data_dependent_output"):
    """Names of the ATen ops (overload name dropped) whose entry carries ``tag``."""
    out = set()
    for block in re.split(r"\n(?=- func:)", yaml_text):
        m = re.match(r"- func: (\w+)", block)
        tags = re.search(r"^\s*tags: (.*)$", block, re.M)
        if m and tags and tag in tags.group(1):
            out.add(m.group(1))
    return out


def tensor_modules(folder):
    """Names of the classes defined in the ``*.py`` files of ``folder`` whose ``forward`` returns ``Tensor``."""
    out = set()
    for path in sorted(glob.glob(os.path.join(folder, "*.py"))):
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                for f in node.body:
                    if isinstance(f, ast.FunctionDef) and f.name == "forward" and f.returns is not None \
                            and ast.unparse(f.returns) in ("Tensor", "torch.Tensor"):
                        out.add(node.name)
    return out


def forward_calls(folder):
    """``{class: [method, ...]}``: the methods (of the class or its bases in ``folder``) that the
    ``forward`` a ``torch.nn`` class has (its own or inherited) calls on ``self``."""
    classes = {}
    for path in sorted(glob.glob(os.path.join(folder, "*.py"))):
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                methods = {f.name: f for f in node.body if isinstance(f, ast.FunctionDef)}
                bases = [b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else ""
                         for b in node.bases]
                classes.setdefault(node.name, (methods, bases))

    def mro(name, seen=()):
        if name not in classes or name in seen:
            return []
        out = [name]
        for b in classes[name][1]:
            out += [c for c in mro(b, seen + (name,)) if c not in out]
        return out

    found = {}
    for name in classes:
        order = mro(name)
        owner = next((c for c in order if "forward" in classes[c][0]), None)
        if owner is None:
            continue
        defined = {m for c in order for m in classes[c][0]}
        called = sorted({n.func.attr for n in ast.walk(classes[owner][0]["forward"])
                         if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                         and isinstance(n.func.value, ast.Name) and n.func.value.id == "self"
                         and n.func.attr in defined and n.func.attr != "forward"})
        if called:
            found[name] = called
    return found


def parameters(folder):
    """``({class: [attribute, ...]}, {class: [attribute, ...]})``: the ``parameters`` and the ``held_attributes`` of
    the module docstring."""
    classes = {}
    for path in sorted(glob.glob(os.path.join(folder, "*.py"))):
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
        for node in tree.body:
            if not isinstance(node, ast.ClassDef):
                continue
            made, nones = set(), set()
            for n in ast.walk(node):
                for target in n.targets if isinstance(n, ast.Assign) else ():
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                            and target.value.id == "self":
                        if isinstance(n.value, ast.Call) and ast.unparse(n.value.func).endswith("Parameter"):
                            made.add(target.attr)
                        else:
                            nones.add(target.attr)  # anything else (None, a tensor view...) may be held instead
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                        and n.func.attr in ("register_parameter", "register_buffer") and n.args \
                        and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str):
                    nones.add(n.args[0].value)
            bases = [b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else "" for b in node.bases]
            classes.setdefault(node.name, (made, nones, bases))

    def collect(name, seen=()):
        if name not in classes or name in seen:
            return set(), set()
        made, nones, bases = classes[name]
        made, nones = set(made), set(nones)
        for b in bases:
            m, n = collect(b, seen + (name,))
            made |= m
            nones |= n
        return made, nones

    found, held = {}, {}
    for name in classes:
        made, nones = collect(name)
        if made - nones:
            found[name] = sorted(made - nones)
        if nones - (made - nones):
            held[name] = sorted(nones - (made - nones))
    return found, held


def tensor_returning(text, want_class=None):
    """Names of the ``def``s of the stub ``text`` (in ``class want_class`` when given) whose every
    overload is annotated to return ``Tensor`` (or ``Self``)."""
    body = ast.parse(text).body
    if want_class is not None:
        body = next(n for n in body if isinstance(n, ast.ClassDef) and n.name == want_class).body
    found = {}
    for node in body:
        if isinstance(node, ast.FunctionDef):
            found.setdefault(node.name, set()).add(ast.unparse(node.returns) if node.returns is not None else None)
    return {name for name, returns in found.items() if returns <= {"Tensor", "Self"}}


def python_tensor_returning(text):
    """Names in ``__all__`` of the Python module ``text`` (``torch/functional.py``, whose names ``torch``
    exports: ``torch.einsum``) whose ``def`` is annotated to return ``Tensor``."""
    body = ast.parse(text).body
    exported = set()
    for node in body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            exported = set(ast.literal_eval(node.value))
    return {n.name for n in body if isinstance(n, ast.FunctionDef) and n.name in exported
            and n.returns is not None and ast.unparse(n.returns) == "Tensor"}


def functional_tensor_returning(torch_dir):
    """Names of the ``torch.nn.functional`` functions whose stub returns ``Tensor``: the ``def``s of
    ``torch/nn/functional.pyi`` (:func:`tensor_returning`) and the names it re-exports from ``torch``
    (``from torch import conv2d as conv2d``: ``torch/_C/_VariableFunctions.pyi``) and ``torch._C._nn``
    (``one_hot``, ``pad``, ``gelu``: ``torch/_C/_nn.pyi``), under the name they are exported as."""
    read = lambda *p: open(os.path.join(torch_dir, *p), encoding="utf-8").read()  # noqa: E731
    text = read("nn", "functional.pyi")
    found = tensor_returning(text)
    sources = {"torch": tensor_returning(read("_C", "_VariableFunctions.pyi")),
               "torch._C._nn": tensor_returning(read("_C", "_nn.pyi"))}
    tree = ast.parse(text)
    for module, returning in sources.items():
        found.update(exported for exported, name in reexports(tree, module) if name in returning)
    return found


def reexports(tree, module):
    """``(exported name, name in module)`` for each ``from module import name as exported`` at the top
    level of the stub ``tree`` (``torch/nn/functional.pyi`` re-exports ``torch._C._nn.one_hot``)."""
    return [(a.asname or a.name, a.name) for node in tree.body
            if isinstance(node, ast.ImportFrom) and node.module == module for a in node.names]


def c_functions(folder):
    """``{name: "tensor" | "python"}`` for the module-level ``def``s of the stubs of ``torch._C`` (``folder``
    is ``torch/_C``), named relative to ``torch._C`` (see the module docstring)."""
    found = {}
    for path in sorted(glob.glob(os.path.join(folder, "*.pyi"))):
        stem = os.path.basename(path)[:-len(".pyi")]
        if stem == "_VariableFunctions":
            continue  # re-exported as torch.*: tensor_functions
        prefix = "" if stem == "__init__" else stem + "."
        with open(path, encoding="utf-8") as fh:
            body = ast.parse(fh.read()).body
        returns = {}
        for node in body:
            if isinstance(node, ast.FunctionDef):
                returns.setdefault(prefix + node.name, set()).add(
                    ast.unparse(node.returns) if node.returns is not None else None)
        for name, kinds in returns.items():
            if kinds <= {"Tensor", "Self"}:
                found[name] = "tensor"
            elif None not in kinds and not any(re.search(r"Tensor|Self|Any|Parameter", k) for k in kinds):
                found[name] = "python"
    return dict(sorted(found.items()))


PYTHON_SCALARS = {"_bool": "bool", "bool": "bool", "builtins.bool": "bool", "_int": "int", "int": "int",
                  "builtins.int": "int", "str": "str", "builtins.str": "str"}


def in_graph_functions(trace_rules_text):
    """The names ``torch/_dynamo/trace_rules.py`` (its text) gives ``TorchInGraphFunctionVariable``."""
    names = set()
    for node in ast.parse(trace_rules_text).body:
        target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        if not isinstance(target, ast.Name) or getattr(node, "value", None) is None:
            continue
        if target.id in ("torch_c_binding_in_graph_functions", "torch_non_c_binding_in_graph_functions") \
                and isinstance(node.value, ast.Call) and node.value.args:
            names.update(e.value for e in getattr(node.value.args[0], "elts", ()) if isinstance(e, ast.Constant))
        elif target.id == "manual_torch_name_rule_map" and isinstance(node.value, ast.Dict):
            names.update(k.value for k, v in zip(node.value.keys, node.value.values) if isinstance(k, ast.Constant)
                         and isinstance(v, ast.Name) and v.id == "TorchInGraphFunctionVariable")
    return names


def _returns(path, name):
    """The return annotations of the module-level ``def``s named ``name`` in ``path`` (None: not found)."""
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as fh:
        body = ast.parse(fh.read()).body
    found = {ast.unparse(n.returns) if n.returns is not None else None for n in body
             if isinstance(n, ast.FunctionDef) and n.name == name}
    return found or None


def result_kind(torch_dir, qual):
    """``"bool"``, ``"int"`` or ``"str"`` when every ``def`` of ``qual`` (``torch._C.x``, ``torch.backends.cpu.x``)
    in its stub or source returns that Python type; None otherwise."""
    parts = qual.split(".")
    if parts[:2] == ["torch", "_C"]:
        rest = parts[2:]
        paths = [os.path.join(torch_dir, "_C", rest[0] + ".pyi")] if len(rest) > 1 else \
            [os.path.join(torch_dir, "_C", "__init__.pyi"), os.path.join(torch_dir, "_C", "_VariableFunctions.pyi")]
    else:
        base = os.path.join(torch_dir, *parts[1:-1])
        paths = [base + ".py", os.path.join(base, "__init__.py")]
    for path in paths:
        kinds = _returns(path, parts[-1])
        if kinds is not None:
            return PYTHON_SCALARS.get(next(iter(kinds))) if len(kinds) == 1 else None
    return None


def _identifiers(paths):
    """Every name and every word of a string constant in the Python files ``paths`` (comments left out)."""
    import tokenize
    out = set()
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            for tok in tokenize.generate_tokens(fh.readline):
                if tok.type == tokenize.NAME:
                    out.add(tok.string)
                elif tok.type == tokenize.STRING:
                    out.update(re.findall(r"\w+", tok.string))
    return out


def torch_aliases(init_text, defined_in_c):
    """``{name under torch: the name Dynamo lists}`` for what ``torch/__init__.py`` (its text) re-exports:
    ``from torch.random import initial_seed`` and, for the public names of ``torch._C`` (``defined_in_c``), its
    star import and the functions of ``_VariableFunctions``, unless ``torch/__init__.py`` defines the name."""
    tree = ast.parse(init_text)
    own = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    out = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module.startswith("torch.") \
                and node.module != "torch._C":
            out.update({f"torch.{a.asname or a.name}": f"{node.module}.{a.name}" for a in node.names if a.name != "*"})
    out.update({f"torch.{n}": f"torch._C.{n}" for n in defined_in_c if not n.startswith("_") and n not in own})
    return out


def python_results(torch_dir, folded=False):
    """``{name: "bool" | "int" | "str"}``: see the module docstring; ``folded``: also the functions Dynamo names
    (``python_valued``: what a call returns is a Python value, whatever Dynamo does with it)."""
    read = lambda *p: open(os.path.join(torch_dir, *p), encoding="utf-8").read()  # noqa: E731
    named = _identifiers([os.path.join(torch_dir, "_dynamo", "variables", f)
                          for f in ("torch.py", "builder.py", "torch_function.py")])
    found = {}
    for qual in sorted(in_graph_functions(read("_dynamo", "trace_rules.py"))):
        last = qual.rsplit(".", 1)[-1]
        if not folded and (last in named or last.lstrip("_") in named):
            continue  # folded, handled or kept as a constant somewhere in Dynamo: not the generic path
        kind = result_kind(torch_dir, qual)
        if kind is not None:
            found[qual] = kind
    in_c = {q[len("torch._C."):] for q in found if q.count(".") == 2 and q.startswith("torch._C.")}
    for alias, qual in torch_aliases(read("__init__.py"), in_c).items():
        if qual in found and alias not in found:
            found[alias] = found[qual]
    return dict(sorted(found.items()))


def context_managers(torch_dir):
    """The in-graph ``torch`` functions that are ``@contextmanager`` generators: see the module docstring."""
    read = lambda *p: open(os.path.join(torch_dir, *p), encoding="utf-8").read()  # noqa: E731
    named = _identifiers([os.path.join(torch_dir, "_dynamo", "variables", f)
                          for f in ("torch.py", "builder.py", "torch_function.py", "ctx_manager.py")])
    found = []
    for qual in sorted(in_graph_functions(read("_dynamo", "trace_rules.py"))):
        parts = qual.split(".")
        if parts[:2] == ["torch", "_C"] or parts[-1] in named or parts[-1].lstrip("_") in named:
            continue
        base = os.path.join(torch_dir, *parts[1:-1])
        for path in (base + ".py", os.path.join(base, "__init__.py")):
            if not os.path.exists(path):
                continue
            for node in ast.parse(open(path, encoding="utf-8").read()).body:
                if isinstance(node, ast.FunctionDef) and node.name == parts[-1] and any(
                        ast.unparse(d.func if isinstance(d, ast.Call) else d).rsplit(".", 1)[-1] == "contextmanager"
                        for d in node.decorator_list):
                    found.append(qual)
            break
    return found


def _return_kind(node, int_methods, bool_functions, int_attrs=frozenset()):
    """``"bool"``, ``"int"`` or ``"str"`` when the expression ``node`` is surely one: a literal, ``not ...``, a
    comparison of ints, ``x.m()`` of a Tensor method whose stub returns ``_int`` (``int_methods``), ``x.a`` of a Tensor
    attribute the stub types ``_int`` (``int_attrs``: ``ndim``), an item of ``x.shape`` read by one index,
    ``torch.f(...)`` whose stub returns ``_bool`` (``bool_functions``); an ``if``/``else`` of two such of one kind (the
    ``return`` of each arm is read on its own); None otherwise."""
    if isinstance(node, ast.Attribute) and node.attr in int_attrs and not (
            isinstance(node.value, ast.Name) and node.value.id == "torch"):
        return "int"
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
            and not isinstance(node.slice, (ast.Slice, ast.Tuple)):
        return "int"
    if isinstance(node, ast.Constant) and type(node.value) in (bool, int, str):
        return type(node.value).__name__
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return "bool"
    if isinstance(node, ast.Compare) and not any(isinstance(o, (ast.In, ast.NotIn, ast.Is, ast.IsNot))
                                                 for o in node.ops):
        operands = [node.left] + node.comparators
        return "bool" if all(_return_kind(o, int_methods, bool_functions) == "int" for o in operands) else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args:
        on_torch = isinstance(node.func.value, ast.Name) and node.func.value.id == "torch"
        if node.func.attr in int_methods and not on_torch:
            return "int"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
            and node.func.value.id == "torch" and node.func.attr in bool_functions:
        return "bool"
    return None


def numpy_python_results(torch_dir, data_dependent):
    """``{numpy function name: "bool" | "int" | "str"}``: see the module docstring. A ``torch`` function whose op
    reads tensor data (``data_dependent``: ``torch.allclose``) breaks on its own (GB0033): left out."""
    read = lambda *p: open(os.path.join(torch_dir, *p), encoding="utf-8").read()  # noqa: E731
    c_init, functions = read("_C", "__init__.pyi"), read("_C", "_VariableFunctions.pyi")
    tensor_base = c_init[c_init.index("class TensorBase"):]
    int_methods = {m.group(2) for m in DEF.finditer(tensor_base)
                   if m.group(4).strip() == "_int" and m.group(3).strip() == "self"}
    int_attrs = set(re.findall(r"^    (\w+): _int$", tensor_base[:tensor_base.index("\nclass ", 1)], re.M))
    bool_functions = {m.group(2) for m in DEF.finditer(functions) if m.group(4).strip() == "_bool"} - data_dependent
    found = {}
    for name in ("_funcs_impl.py", "_reductions_impl.py"):
        for node in ast.parse(read("_numpy", name)).body:
            if not isinstance(node, ast.FunctionDef) or node.name.startswith("_"):
                continue
            returns = [r for r in _own_nodes(node) if isinstance(r, ast.Return)]
            kinds = {_return_kind(r.value, int_methods, bool_functions, int_attrs) if r.value is not None else None
                     for r in returns}
            if len(kinds) == 1 and None not in kinds:
                found[node.name] = kinds.pop()
    return dict(sorted(found.items()))


def numpy_scalar_results(torch_dir):
    """``{NumPy function: where its ``size`` is}`` for the functions of ``torch/_numpy/random.py`` that end in
    ``array_or_scalar(values, ..., return_scalar=size == ())`` (``py_type(values.item())`` when no size is given):
    ``-1`` where ``size`` is the ``*size`` parameter (``randn(*size)``), else its position (``uniform(low, high,
    size=None)``: 2). A function that hands its own ``*size`` to one of them (``rand`` to ``random_sample``) and a
    module-level alias (``random = random_sample``) count too. Without a size the call reads a Python scalar out of a
    tensor: Dynamo breaks there (GB0033) and the result is a Python number (measured: tests/cases/kinds kd2)."""
    with open(os.path.join(torch_dir, "_numpy", "random.py"), encoding="utf-8") as fh:
        tree = ast.parse(fh.read())
    found = {}

    def size_at(node):
        if node.args.vararg is not None and node.args.vararg.arg == "size":
            return -1
        names = [a.arg for a in node.args.posonlyargs + node.args.args]
        return names.index("size") if "size" in names else None

    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or node.name.startswith("_") or size_at(node) is None:
            continue
        returns = [r.value for r in _own_nodes(node) if isinstance(r, ast.Return)]
        if len(returns) != 1 or not isinstance(returns[0], ast.Call) or not isinstance(returns[0].func, ast.Name):
            continue
        call = returns[0]
        scalar = next((k.value for k in call.keywords if k.arg == "return_scalar"), None)
        if call.func.id == "array_or_scalar" and ast.unparse(scalar or ast.Constant(None)) == "size == ()":
            found[node.name] = size_at(node)
        elif call.func.id in found and size_at(node) == -1 and [ast.unparse(a) for a in call.args] == ["size"]:
            found[node.name] = -1
    for alias, name in _aliases(tree, found):  # `sample = random_sample`
        found[alias] = found[name]
    return {f"numpy.random.{k}": v for k, v in sorted(found.items())}


def numpy_reductions(torch_dir):
    """The NumPy functions whose ``torch._numpy`` counterpart is a reduction (a public function of
    ``_reductions_impl.py``, or a module-level alias of one: ``max = amax``): given Python values (``np.prod(x.shape)``)
    it still returns a 0-d tensor, so ``int(...)`` of it reads tensor data (GB0033), unlike a ufunc on Python scalars
    (``int(np.ceil(n / 2))`` is no break; measured: tests/cases/kinds kd4)."""
    with open(os.path.join(torch_dir, "_numpy", "_reductions_impl.py"), encoding="utf-8") as fh:
        tree = ast.parse(fh.read())
    found = {n.name for n in tree.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")}
    found.update(alias for alias, _name in _aliases(tree, found))  # `max = amax`
    return sorted("numpy." + n for n in found)


def _aliases(tree, names):
    """``(alias, name)`` for each module-level ``alias = name`` of the module ``tree`` whose ``name`` is in ``names``."""
    return [(t.id, node.value.id) for node in tree.body
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in names
            for t in node.targets if isinstance(t, ast.Name)]


#: the files of ``torch/_numpy`` whose public functions stand for NumPy's, and the NumPy module of each
NUMPY_FILES = {"_funcs_impl.py": "numpy", "_reductions_impl.py": "numpy", "random.py": "numpy.random",
               "linalg.py": "numpy.linalg", "fft.py": "numpy.fft"}


def numpy_results(torch_dir, arrays: bool):
    """With ``arrays``, the NumPy functions (``numpy.ones``, ``numpy.random.rand``) whose ``torch._numpy``
    counterpart, a public function of :data:`NUMPY_FILES`, returns in every ``return`` a call of a torch function
    whose stub returns a Tensor (``return torch.ones(shape, dtype=dtype)``): the normalizer hands it back as an
    ndarray, which Dynamo traces as a tensor. Without, those that return no value (``copyto``, ``random.seed``)."""
    with open(os.path.join(torch_dir, "_C", "_VariableFunctions.pyi"), encoding="utf-8") as fh:
        tensor_functions = tensor_returning(fh.read())
    found = set()
    for name, module in NUMPY_FILES.items():
        with open(os.path.join(torch_dir, "_numpy", name), encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
        for node in tree.body:
            if not isinstance(node, ast.FunctionDef) or node.name.startswith("_"):
                continue
            returns = [r.value for r in _own_nodes(node) if isinstance(r, ast.Return) and r.value is not None
                       and not (isinstance(r.value, ast.Constant) and r.value.value is None)]
            if arrays and returns and all(
                    isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and isinstance(v.func.value, ast.Name)
                    and v.func.value.id == "torch" and v.func.attr in tensor_functions for v in returns):
                found.add(f"{module}.{node.name}")
            elif not arrays and not returns:
                found.add(f"{module}.{node.name}")
    return sorted(found)


def _own_nodes(func):
    """The nodes of ``func``'s body, not those of functions or classes defined inside it."""
    todo = list(func.body)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))


INT_NAMES = {"_int", "int", "builtins.int", "SymInt", "torch.SymInt"}
SEQUENCES = {"Sequence", "list", "tuple", "List", "Tuple", "typing.Sequence", "collections.abc.Sequence"}
UNIONS = {"Optional", "Union", "typing.Optional", "typing.Union"}
#: types no tensor is taken as (a dtype, a layout, a device, a str naming a dimension): an overload typing a place
#: as one of these never decides what a tensor passed there is
NOT_TENSORS = {"str", "_dtype", "_layout", "DeviceLikeType", "_device", "memory_format", "torch.memory_format",
               "Generator", "EllipsisType", "ellipsis", "None"}


def _atoms(node):
    """The members of the union annotation ``node`` (``A | B``, ``Optional[A]``, ``Union[A, B]``)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _atoms(node.left) + _atoms(node.right)
    if isinstance(node, ast.Subscript) and ast.unparse(node.value) in UNIONS:
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return [a for e in elts for a in _atoms(e)]
    return [node]


def _made_of(node, names):
    """Whether every member of the annotation ``node`` is ``None``, ``...``, a name of ``names`` (or of torch's
    ``_size`` aliases, when ``names`` is :data:`INT_NAMES`) or a sequence of such."""
    for a in _atoms(node):
        text = ast.unparse(a)
        if text in ("None", "...") or text in names or (names is INT_NAMES and re.fullmatch(r"_size(_\w+)?", text)):
            continue
        if isinstance(a, ast.Subscript) and ast.unparse(a.value) in SEQUENCES:
            elts = a.slice.elts if isinstance(a.slice, ast.Tuple) else [a.slice]
            if all(_made_of(e, names) for e in elts):
                continue
        if isinstance(a, ast.Subscript) and ast.unparse(a.value) == "Literal" and names is NOT_TENSORS:
            continue
        return False
    return True


def _place(annotations):
    """Whether a place typed ``annotations`` (one per overload having it; None: unannotated) wants an int: one
    overload types it as ints and every other as ints or as something no tensor is taken as."""
    ints = [a is not None and _made_of(a, INT_NAMES) for a in annotations]
    return any(ints) and all(i or (a is not None and _made_of(a, NOT_TENSORS)) for i, a in zip(ints, annotations))


def int_places(overloads, method=False):
    """``{"pos": [...], "rest": n, "kw": [...]}`` (empty parts left out) for the ``def`` nodes ``overloads`` of one
    name: see the module docstring; ``method``: the first parameter is ``self``."""
    fixed = []  # per overload: its positional parameters
    for d in overloads:
        params = d.args.posonlyargs + d.args.args
        fixed.append(params[1:] if method else params)
    width = max(len(p) for p in fixed)
    out = {}
    pos = []
    for i in range(width + 1):
        anns = [p[i].annotation for p in fixed if i < len(p)]
        anns += [d.args.vararg.annotation for d, p in zip(overloads, fixed) if d.args.vararg and len(p) <= i]
        if anns and _place(anns):
            if i < width:
                pos.append(i)
            else:
                out["rest"] = i
    if pos:
        out["pos"] = pos
    by_name = {}
    for d, params in zip(overloads, fixed):
        for p in params + d.args.kwonlyargs:
            by_name.setdefault(p.arg, []).append(p.annotation)
    kw = sorted(n for n, anns in by_name.items() if _place(anns))
    if kw:
        out["kw"] = kw
    return out


def _defs(body):
    """``{name: [def, ...]}`` of the function definitions in ``body``."""
    found = {}
    for node in body:
        if isinstance(node, ast.FunctionDef):
            found.setdefault(node.name, []).append(node)
    return found


def int_params(torch_dir):
    """``{"functions": {...}, "functional": {...}, "methods": {...}}``: see the module docstring."""
    read = lambda *p: open(os.path.join(torch_dir, *p), encoding="utf-8").read()  # noqa: E731
    functions = _defs(ast.parse(read("_C", "_VariableFunctions.pyi")).body)
    functional_tree = ast.parse(read("nn", "functional.pyi"))
    functional = _defs(functional_tree.body)
    c_nn = _defs(ast.parse(read("_C", "_nn.pyi")).body)
    functional.update({exported: c_nn[name] for exported, name in reexports(functional_tree, "torch._C._nn")
                       if name in c_nn})
    init = ast.parse(read("_C", "__init__.pyi")).body
    methods = _defs(next(n for n in init if isinstance(n, ast.ClassDef) and n.name == "TensorBase").body)
    table = lambda defs, method=False: {n: p for n, p in sorted(  # noqa: E731
        (n, int_places(d, method)) for n, d in defs.items() if not n.startswith("__")) if p}
    return {"functions": table(functions), "functional": table(functional), "methods": table(methods, True)}


def _dotted(node):
    """``a.b.c`` of an attribute chain of names, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def skipped_stdlib(torch_dir):
    """The standard-library modules whose files Dynamo skips (``BUILTIN_SKIPLIST`` of ``torch/_dynamo/trace_rules.py``:
    a call of one of their functions is "Attempted to call function marked as skipped", GB0007), those of them whose
    functions it inlines when compiled code calls them (``BUILTIN_INLINE_WHEN_CALLED``: ``copy``), and the skipped
    functions ``SkipFunctionVariable.call_function`` (``torch/_dynamo/variables/functions.py``) runs at trace time
    when their arguments are constants (``self.value in (...)`` or in a module-level set such as
    ``RE_CONSTANT_FOLD_FNS``: ``re.match``, ``importlib.util.find_spec``)."""
    read = lambda *p: open(os.path.join(torch_dir, *p), encoding="utf-8").read()  # noqa: E731
    modules, inline = [], []
    for node in ast.parse(read("_dynamo", "trace_rules.py")).body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "BUILTIN_SKIPLIST" for t in targets) \
                    and isinstance(node.value, (ast.Tuple, ast.List)):
                modules = [e.id for e in node.value.elts if isinstance(e, ast.Name)]
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                and _dotted(node.value.func) == "BUILTIN_INLINE_WHEN_CALLED.update":
            inline = sorted({n.args[0].id for n in ast.walk(node.value) if isinstance(n, ast.Call)
                             and _dotted(n.func) == "_module_dir" and n.args and isinstance(n.args[0], ast.Name)})
    tree = ast.parse(read("_dynamo", "variables", "functions.py"))
    sets = {t.id: node.value for node in tree.body if isinstance(node, ast.Assign)
            for t in node.targets if isinstance(t, ast.Name) and isinstance(node.value, (ast.Set, ast.Tuple))}
    folded = set()
    for cls in tree.body:
        if not (isinstance(cls, ast.ClassDef) and cls.name == "SkipFunctionVariable"):
            continue
        for fn in cls.body:
            if not (isinstance(fn, ast.FunctionDef) and fn.name == "call_function"):
                continue
            for cmp in ast.walk(fn):
                if isinstance(cmp, ast.Compare) and _dotted(cmp.left) == "self.value" \
                        and isinstance(cmp.ops[0], ast.In):
                    found = cmp.comparators[0]
                    found = sets.get(found.id, found) if isinstance(found, ast.Name) else found
                    if isinstance(found, (ast.Set, ast.Tuple)):
                        folded.update(d for d in map(_dotted, found.elts) if d)
    return {"modules": sorted(modules), "inline_when_called": inline, "folded_with_constants": sorted(folded)}


def _defined(body):
    """Names a module or class body binds with ``def``, ``class`` or a plain assignment."""
    out = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Assign):
            out.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return out


def dynamic_output_shape(torch_dir, tags):
    """``{"functions": [...], "methods": [...], "aten": [...]}``: see the module docstring (``aten``: the ops' own
    names, for ``torch.ops.aten.<op>.<overload>``). An op's exported name is its own, or it
    without a leading ``_`` and trailing digits (``_unique2``: ``torch.unique``; ``_ctc_loss``:
    ``F.ctc_loss``); ``linalg_<x>`` is ``torch.linalg.<x>`` (``lstsq = _add_docstr(_linalg.linalg_lstsq, ...)``)."""
    read = lambda *p: open(os.path.join(torch_dir, *p), encoding="utf-8").read()  # noqa: E731
    init = ast.parse(read("_C", "__init__.pyi")).body
    tensor_base = next(n for n in init if isinstance(n, ast.ClassDef) and n.name == "TensorBase").body
    tensor_py = ast.parse(read("_tensor.py")).body
    tensor_cls = next(n for n in tensor_py if isinstance(n, ast.ClassDef) and n.name == "Tensor").body
    methods_known = _defined(tensor_base) | _defined(tensor_cls)
    functional_py = ast.parse(read("functional.py")).body
    exported = {"torch": _defined(ast.parse(read("_C", "_VariableFunctions.pyi")).body) | _defined(functional_py),
                "torch.nn.functional": _defined(ast.parse(read("nn", "functional.pyi")).body)}
    linalg = {}
    for node in ast.parse(read("linalg", "__init__.py")).body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and node.value.args:
            inner = _dotted(node.value.args[0]) or ""
            if inner.startswith("_linalg.linalg_"):
                linalg.update({inner[len("_linalg."):]: t.id for t in node.targets if isinstance(t, ast.Name)})
    functions, methods = set(), set()
    for op in tags:
        names = {op, re.sub(r"\d+$", "", op.lstrip("_"))}
        for name in names:
            functions.update(f"{module}.{name}" for module, defined in exported.items() if name in defined)
            if name in linalg:
                functions.add(f"torch.linalg.{linalg[name]}")
            if name in methods_known:
                methods.add(name)
    return {"functions": sorted(functions), "methods": sorted(methods), "aten": sorted(tags)}


def _only_unimplemented(func, config_on=frozenset()):
    """The ``gb_type`` of the one ``unimplemented(...)`` call that is all of ``func``'s body (its docstring aside), or
    that its first statement ``if config.<flag>: unimplemented(...)`` makes where ``<flag>`` (of ``config_on``, the
    Dynamo settings true by default) holds (``method_is_inference``); else None."""
    body = [s for s in func.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if body and isinstance(body[0], ast.If) and not body[0].orelse and (_dotted(body[0].test) or "").startswith(
            "config.") and _dotted(body[0].test)[len("config."):] in config_on:
        body = body[0].body
    if len(body) != 1 or not isinstance(body[0], ast.Expr) or not isinstance(body[0].value, ast.Call) \
            or _dotted(body[0].value.func) != "unimplemented":
        return None
    kw = {k.arg: k.value for k in body[0].value.keywords}
    return kw["gb_type"].value if isinstance(kw.get("gb_type"), ast.Constant) else None


def python_methods(torch_dir):
    """The Tensor methods (``class TensorBase`` of ``torch/_C/__init__.pyi``) every overload of whose stub returns a
    Python scalar (``is_inference() -> _bool``, ``storage_offset() -> _int``): their result is no tensor."""
    return sorted(_scalar_methods(torch_dir))


def _scalar_methods(torch_dir):
    """The ``TensorBase`` methods of ``torch/_C/__init__.pyi`` every overload of whose stub returns a Python scalar
    (``SymInt`` and the like included)."""
    with open(os.path.join(torch_dir, "_C", "__init__.pyi"), encoding="utf-8") as fh:
        init = ast.parse(fh.read()).body
    base = next(n for n in init if isinstance(n, ast.ClassDef) and n.name == "TensorBase").body
    returns = {}
    for node in base:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("__"):
            parts = {p.strip() for p in ast.unparse(node.returns).split("|")} if node.returns is not None else {None}
            returns.setdefault(node.name, set()).update(parts)
    python = SCALARS | {"SymInt", "SymFloat", "SymBool"}
    return {n for n, r in returns.items() if r <= python}


def _config_on(torch_dir):
    """The names ``torch/_dynamo/config.py`` sets to ``True`` at its top (the settings on by default)."""
    with open(os.path.join(torch_dir, "_dynamo", "config.py"), encoding="utf-8") as fh:
        body = ast.parse(fh.read()).body
    out = set()
    for node in body:
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if isinstance(value, ast.Constant) and value.value is True:
            out.update(t.id for t in targets if isinstance(t, ast.Name))
    return out


def _registry_ids(version):
    """``{gb_type: gb id}`` of gblint's copy of the graph-break registry of torch ``version``."""
    with open(os.path.join(HERE, "..", "gblint", "data", f"gb_registry-{version}.json"), encoding="utf-8") as fh:
        entries = json.load(fh)["entries"]
    return {e["gb_type"]: i for i, e in sorted(entries.items(), reverse=True)}


def refused(torch_dir, data_dependent_methods, ids):
    """``{"functions": {"torch.<name>": gb id}, "methods": {name: gb id}, "unmodelled_scalar_methods": [...]}``:
    see the module docstring; ``ids`` maps a ``gb_type`` to its id (:func:`_registry_ids`), one not there is
    left out."""
    read = lambda *p: open(os.path.join(torch_dir, *p), encoding="utf-8").read()  # noqa: E731
    functions, on = {}, _config_on(torch_dir)
    for node in ast.walk(ast.parse(read("_dynamo", "variables", "torch.py"))):
        if isinstance(node, ast.FunctionDef) and (gb_type := _only_unimplemented(node, on)):
            for deco in node.decorator_list:
                if isinstance(deco, ast.Call) and _dotted(deco.func) == "register" and gb_type in ids:
                    functions.update({d: ids[gb_type] for d in map(_dotted, deco.args) if d and d.startswith("torch.")})
    handled, methods = set(), {}
    tracker = next(n for n in ast.parse(read("_dynamo", "variables", "tensor.py")).body
                   if isinstance(n, ast.ClassDef) and n.name == "TensorVariable")
    for node in tracker.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("method_"):
            handled.add(node.name[len("method_"):])
            if (gb_type := _only_unimplemented(node, on)) in ids and not node.name.startswith("method_attr_"):
                methods[node.name[len("method_"):]] = ids[gb_type]
        elif isinstance(node, ast.Assign):
            handled.update(t.id[len("method_"):] for t in node.targets
                           if isinstance(t, ast.Name) and t.id.startswith("method_"))
    scalar = sorted(n for n in _scalar_methods(torch_dir) if n not in handled and n not in data_dependent_methods)
    return {"functions": dict(sorted(functions.items())), "methods": dict(sorted(methods.items())),
            "unmodelled_scalar_methods": scalar}


def _module_scope(body):
    """The statements of a module ``body`` that bind in its namespace: those at its top and, at any depth, inside its
    ``if``, ``try``, ``with`` and loop statements; not those in a ``def`` or ``class`` body (their own scope)."""
    out = []
    for node in body:
        out.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for field in ("body", "orelse", "finalbody", "handlers"):
                out.extend(_module_scope(getattr(node, field, None) or []))
    return out


def numpy_module_names(torch_dir):
    """``{"numpy.random": [...], "numpy.fft": [...], "numpy.linalg": [...]}``: see the module docstring."""
    out = {f"numpy.{module}": sorted(_namespace(os.path.join(torch_dir, "_numpy", f"{module}.py"))[0])
           for module in ("random", "fft", "linalg")}
    out["numpy"] = sorted(_numpy_aliases(_numpy_top_names(os.path.join(torch_dir, "_numpy"))))
    return out


def _numpy_aliases(names):
    """``names`` and the NumPy names that are another name for one of them: NumPy 2's ``acos = arccos``,
    ``concat = concatenate`` in the installed ``numpy/__init__.pyi`` (read as text, never imported). Dynamo maps a
    NumPy function by the object, so an alias is traced as what it names (measured: ``np.concat``, ``np.acos``)."""
    spec = importlib.util.find_spec("numpy")
    stub = os.path.join(spec.submodule_search_locations[0], "__init__.pyi") if spec and spec.submodule_search_locations \
        else None
    if stub is None or not os.path.exists(stub):
        return set(names)
    with open(stub, encoding="utf-8") as fh:
        body = ast.parse(fh.read()).body
    aliases = {n.targets[0].id: n.value.id for n in body if isinstance(n, ast.Assign) and len(n.targets) == 1
               and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Name)}
    out = set(names)
    out |= {alias for alias, target in aliases.items() if target in out}
    return out


def _numpy_top_names(folder):
    """Every name the top-level ``torch._numpy`` namespace may bind, read as text and over-counted: it is filled by
    ``from ._funcs import *`` and loops over the public functions of the ``*_impl.py`` files (``vars()[name] = ...``),
    so every name any file of ``folder`` binds at module scope, and every string in a module-scope list, tuple or
    dict literal (``_dtypes``' alias tables), counts. A name of NumPy's that is not among them has no counterpart."""
    names = set()
    for path in sorted(glob.glob(os.path.join(folder, "*.py"))):
        bound, nodes = _namespace(path)
        names |= bound
        for node in nodes:
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value is not None:
                names.update(c.value for c in ast.walk(node.value)
                             if isinstance(c, ast.Constant) and isinstance(c.value, str) and c.value.isidentifier())
    return names


def _namespace(path):
    """``(names, statements)`` of the module at ``path``: the names it binds in its namespace (``def``, ``class``,
    assignment, import; under ``if``/``try`` too, not in function bodies) and those statements (:func:`_module_scope`)."""
    with open(path, encoding="utf-8") as fh:
        nodes = _module_scope(ast.parse(fh.read()).body)
    names = _defined(nodes)
    for node in nodes:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names, nodes


def main():
    torch_dir = importlib.util.find_spec("torch").submodule_search_locations[0]
    site = os.path.dirname(torch_dir)
    read = lambda *p: open(os.path.join(*p), encoding="utf-8").read()  # noqa: E731
    version = re.search(r"__version__ = .*?'([\d.]+)", read(torch_dir, "version.py")).group(1)
    tags = tagged(read(site, "torchgen", "packaged", "ATen", "native", "native_functions.yaml"))
    funcs = scalar_defs(read(torch_dir, "_C", "_VariableFunctions.pyi")) & tags
    methods = scalar_defs(read(torch_dir, "_C", "__init__.pyi"), "TensorBase") & tags
    made, held = parameters(os.path.join(torch_dir, "nn", "modules"))
    doc = {"torch_version": version, "data_dependent": {"functions": sorted(funcs),
                                                        "methods": sorted(methods - {"item"})},
           "tensor_modules": sorted(tensor_modules(os.path.join(torch_dir, "nn", "modules"))),
           "forward_calls": forward_calls(os.path.join(torch_dir, "nn", "modules")),
           "parameters": made,
           "held_attributes": held,
           "tensor_functions": sorted(tensor_returning(read(torch_dir, "_C", "_VariableFunctions.pyi"))
                                      | python_tensor_returning(read(torch_dir, "functional.py"))),
           "functional": sorted(functional_tensor_returning(torch_dir)),
           "tensor_methods": sorted(tensor_returning(read(torch_dir, "_C", "__init__.pyi"), "TensorBase")),
           "c_functions": c_functions(os.path.join(torch_dir, "_C")),
           "python_results": python_results(torch_dir),
           "python_valued": sorted(python_results(torch_dir, folded=True)),
           "numpy_python_results": numpy_python_results(torch_dir, tags),
           "numpy_array_results": numpy_results(torch_dir, True),
           "numpy_no_results": numpy_results(torch_dir, False),
           "numpy_scalar_results": numpy_scalar_results(torch_dir),
           "numpy_reductions": numpy_reductions(torch_dir),
           "context_managers": context_managers(torch_dir),
           "int_params": int_params(torch_dir),
           "skipped_stdlib": skipped_stdlib(torch_dir),
           "dynamic_output_shape": dynamic_output_shape(
               torch_dir, tagged(read(site, "torchgen", "packaged", "ATen", "native", "native_functions.yaml"),
                                 "dynamic_output_shape")),
           "refused": refused(torch_dir, methods, _registry_ids(version)),
           "numpy_module_names": numpy_module_names(torch_dir),
           "python_methods": python_methods(torch_dir)}
    path = os.path.join(HERE, "..", "gblint", "data", f"torch_ops-{version}.json")
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=2)
        fh.write("\n")
    print(path, {k: len(v) for k, v in doc.items()}, file=sys.stderr)


if __name__ == "__main__":
    main()
