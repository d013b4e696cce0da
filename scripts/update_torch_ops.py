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
carries into the helpers the result is handed to. Usage: ``python3 scripts/update_torch_ops.py``.
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
           "tensor_modules": sorted(tensor_modules(os.path.join(torch_dir, "nn", "modules")))}
    path = os.path.join(HERE, "..", "gblint", "data", f"torch_ops-{version}.json")
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=2)
        fh.write("\n")
    print(path, doc, file=sys.stderr)


if __name__ == "__main__":
    main()
