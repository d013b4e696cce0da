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
``bias=False`` registers as ``None``): reading one gives a tensor.

``tensor_functions`` / ``functional`` / ``tensor_methods``: the ``torch.*`` functions
(``torch/_C/_VariableFunctions.pyi``), ``torch.nn.functional`` functions (``torch/nn/functional.pyi``)
and Tensor methods (``class TensorBase`` of ``torch/_C/__init__.pyi``) every overload of whose stub
returns ``Tensor`` (or ``Self``): what a call of one returns is a tensor, a fact (issue 38).

``c_functions``: the functions of ``torch._C`` and of its submodules with a stub (``torch/_C/__init__.pyi``,
``torch/_C/_nn.pyi``...), by their name under ``torch._C`` (``_get_tracing_state``, ``_nn.linear``):
``"tensor"`` when every overload returns ``Tensor``, ``"python"`` when none returns anything that names a
tensor type (``_get_tracing_state() -> TracingState``, ``_is_grad_enabled() -> _bool``); left out otherwise
(``Optional[Tensor]``, unannotated). What is left out is not known, never a tensor by default.
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
    """``{class: [attribute, ...]}``: see the module docstring."""
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

    found = {}
    for name in classes:
        made, nones = collect(name)
        if made - nones:
            found[name] = sorted(made - nones)
    return found


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


def main():
    torch_dir = importlib.util.find_spec("torch").submodule_search_locations[0]
    site = os.path.dirname(torch_dir)
    read = lambda *p: open(os.path.join(*p), encoding="utf-8").read()  # noqa: E731
    version = re.search(r"__version__ = .*?'([\d.]+)", read(torch_dir, "version.py")).group(1)
    tags = tagged(read(site, "torchgen", "packaged", "ATen", "native", "native_functions.yaml"))
    funcs = scalar_defs(read(torch_dir, "_C", "_VariableFunctions.pyi")) & tags
    methods = scalar_defs(read(torch_dir, "_C", "__init__.pyi"), "TensorBase") & tags
    doc = {"torch_version": version, "data_dependent": {"functions": sorted(funcs),
                                                        "methods": sorted(methods - {"item"})},
           "tensor_modules": sorted(tensor_modules(os.path.join(torch_dir, "nn", "modules"))),
           "forward_calls": forward_calls(os.path.join(torch_dir, "nn", "modules")),
           "parameters": parameters(os.path.join(torch_dir, "nn", "modules")),
           "tensor_functions": sorted(tensor_returning(read(torch_dir, "_C", "_VariableFunctions.pyi"))),
           "functional": sorted(tensor_returning(read(torch_dir, "nn", "functional.pyi"))),
           "tensor_methods": sorted(tensor_returning(read(torch_dir, "_C", "__init__.pyi"), "TensorBase")),
           "c_functions": c_functions(os.path.join(torch_dir, "_C"))}
    path = os.path.join(HERE, "..", "gblint", "data", f"torch_ops-{version}.json")
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=2)
        fh.write("\n")
    print(path, {k: len(v) for k, v in doc.items()}, file=sys.stderr)


if __name__ == "__main__":
    main()
