"""The shape of the code: no import cycle between gblint's modules, no module over 700 lines.

The pipeline runs one way (parse -> summarise -> index -> consequences -> diagnostics -> fixes
-> output, front ends on top); an import cycle, even one hidden inside a function, means two
stages know each other. Every import counts: at module level, inside functions, under
``TYPE_CHECKING``.
"""
import ast
import os
from typing import Dict, List, Optional, Set

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# source folder -> the package it installs as (pyproject.toml: package-dir)
PACKAGES = {"gblint": "gblint", "rules": "gblint.rules", "runtime_check": "gblint.runtime_check"}
MAX_LINES = 700


def project_modules() -> Dict[str, str]:
    """Dotted module name -> file, for every module of the installed packages."""
    out = {}
    for folder, package in PACKAGES.items():
        base = os.path.join(ROOT, folder)
        for directory, dirs, files in os.walk(base):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
            rel = os.path.relpath(directory, base)
            prefix = package if rel == "." else package + "." + rel.replace(os.sep, ".")
            for name in files:
                if name.endswith(".py"):
                    stem = name[:-3]
                    out[prefix if stem == "__init__" else f"{prefix}.{stem}"] = os.path.join(directory, name)
    return out


def _absolute(module: str, is_package: bool, level: int, name: Optional[str]) -> str:
    """The absolute name of ``from <level dots><name> import ...`` written in ``module``."""
    if not level:
        return name or ""
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    base = base[:len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def imports_of(module: str, path: str, modules: Set[str]) -> Set[str]:
    """The project modules that ``module`` imports anywhere in its file. ``from p import x``
    counts as importing ``p.x`` when that is a module, else ``p``; the parent packages Python
    runs on the way are not counted (a package's ``__init__`` importing its own submodules is
    not a cycle)."""
    with open(path, encoding="utf-8") as fh:
        tree = ast.parse(fh.read(), path)
    is_package = os.path.basename(path) == "__init__.py"
    found: Set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules:
                    found.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, is_package, node.level, node.module)
            for alias in node.names:
                full = f"{base}.{alias.name}" if base else alias.name
                if full in modules:
                    found.add(full)
                elif base in modules:
                    found.add(base)
    found.discard(module)
    return found


def import_graph() -> Dict[str, Set[str]]:
    modules = project_modules()
    names = set(modules)
    return {m: imports_of(m, p, names) for m, p in modules.items()}


def find_cycle(graph: Dict[str, Set[str]]) -> Optional[List[str]]:
    """One import cycle as ``[a, b, ..., a]``, or None."""
    state: Dict[str, int] = {}  # 1 on the current path, 2 done
    path: List[str] = []

    def visit(node: str) -> Optional[List[str]]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_graph_sees_the_packages():
    graph = import_graph()
    assert "gblint.project.engine" in graph and "gblint.rules.base" in graph and "gblint.runtime_check.cli" in graph
    assert "gblint.settings.config" in graph["gblint.project.engine"]
    assert "gblint.rules" in graph["gblint.project.engine"]  # an import inside a function counts


def test_no_import_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_find_cycle_reports_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


#: gblint's layers, lowest first: a module may import its own layer's modules and lower layers' (and the root
#: package, which holds only ``__version__``), never a higher layer's. Each is a package (``rules/`` and
#: ``runtime_check/`` install as ``gblint.rules`` and ``gblint.runtime_check``).
LAYERS = (
    ("gblint.core",),  # records and tables: the summary's model, ops, names, Dynamo's semantics, diagnostics, files
    ("gblint.abstract",),  # the value model and the interpreter
    ("gblint.syntax",),  # one file's summary from its libcst tree
    ("gblint.rules",),  # the rules, on the summary's traversal
    ("gblint.settings",),  # configuration, the rule catalogue, the files a run checks
    ("gblint.dynamo",),  # the index, calls followed, the consequence walk, the verdicts' sink
    ("gblint.fixing",),  # rewrites applied and predicted
    ("gblint.project",),  # one run: the engine, the caches, stored reports, noqa
    ("gblint.frontends", "gblint.runtime_check"),  # the CLI, fix, flake8, LSP, output formats; confirm
)
ROOT_MODULES = {"gblint", "gblint.__main__"}


def layer_of(module: str) -> Optional[int]:
    """The index in :data:`LAYERS` of the layer ``module`` belongs to; None for the root modules or
    a module outside every layer."""
    for i, packages in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in packages):
            return i
    return None


def layer_violations(graph: Dict[str, Set[str]]) -> List[str]:
    """``a -> b`` for every import of a higher layer's module, and every module in no layer."""
    out = []
    for module in sorted(graph):
        here = layer_of(module)
        if module in ROOT_MODULES:
            continue
        if here is None:
            out.append(f"{module} is in no layer")
            continue
        for dep in sorted(graph[module]):
            there = layer_of(dep)
            if dep != "gblint" and (there is None or there > here):
                out.append(f"{module} -> {dep}")
    return out


def test_every_module_in_a_layer_and_imports_only_down():
    graph = import_graph()
    assert not layer_violations(graph), "\n".join(layer_violations(graph))
    assert {m for m in graph if layer_of(m) is None} == ROOT_MODULES
    assert all(layer_of(m) is not None for m in graph if m not in ROOT_MODULES)
    for packages in LAYERS:  # every layer exists and holds modules
        assert all(any(m.startswith(p + ".") for m in graph) for p in packages), packages


def test_layer_violations_reports_upward_imports():
    graph = {"gblint.core.model": {"gblint.syntax.scope"}, "gblint.syntax.scope": {"gblint.core.model", "gblint"},
             "gblint.stray": set(), "gblint.frontends.cli": {"gblint.project.engine", "gblint.runtime_check.cli"}}
    assert layer_violations(graph) == ["gblint.core.model -> gblint.syntax.scope", "gblint.stray is in no layer"]


def test_no_module_over_700_lines():
    long = {}
    for module, path in project_modules().items():
        with open(path, encoding="utf-8") as fh:
            n = sum(1 for _ in fh)
        if n > MAX_LINES:
            long[module] = n
    assert not long, f"modules over {MAX_LINES} lines: {long}"


# classes still built from mixins that use each other's attributes (issue 39): this list may only shrink; every
# other class is composed of collaborators it holds and calls (e.g. gblint.dynamo.consequences._RegionWalk)
MIXIN_BUILT: Set[str] = set()


def mixin_built_classes() -> Dict[str, List[str]]:
    """``module.Class`` -> its bases that are project classes named ``...Mixin``, for every class
    of the installed packages that has one."""
    trees = {}
    for module, path in project_modules().items():
        with open(path, encoding="utf-8") as fh:
            trees[module] = ast.parse(fh.read(), path)
    mixins = {node.name for tree in trees.values() for node in ast.walk(tree)
              if isinstance(node, ast.ClassDef) and node.name.endswith("Mixin")}
    out = {}
    for module, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                names = [b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else ""
                         for b in node.bases]
                found = [n for n in names if n in mixins]
                if found:
                    out[f"{module}.{node.name}"] = found
    return out


def test_no_new_class_built_from_mixins():
    built = mixin_built_classes()
    assert set(built) <= MIXIN_BUILT, f"classes built from mixins: {sorted(set(built) - MIXIN_BUILT)}"
    gone = MIXIN_BUILT - set(built)
    assert not gone, f"no longer built from mixins, drop from MIXIN_BUILT: {sorted(gone)}"


def test_the_consequence_walk_has_no_mixins():
    """The region walk (gblint.dynamo.consequences._RegionWalk) and its collaborators define no mixin and
    have none as a base: each collaborator is constructed with, or given, what it reads."""
    walk = {"gblint.dynamo.consequences", "gblint.dynamo.compile_errors", "gblint.dynamo.frame_context",
            "gblint.dynamo.comp_frames", "gblint.dynamo.skip_cover"}
    modules = project_modules()
    assert walk <= set(modules)
    defined = []
    for module in sorted(walk):
        with open(modules[module], encoding="utf-8") as fh:
            defined += [f"{module}.{node.name}" for node in ast.walk(ast.parse(fh.read()))
                        if isinstance(node, ast.ClassDef) and node.name.endswith("Mixin")]
    built = [c for c in mixin_built_classes() if c.rsplit(".", 1)[0] in walk]
    assert not defined and not built, f"mixins in the consequence walk: {defined + built}"


#: the classes allowed to have mixin bases (a base class of the packages whose methods use ``self`` attributes
#: that neither it nor its own bases define: the subclass supplies them), and those bases. Issue 39: compose
#: instead (a collaborator given what it calls); this table only shrinks.
MIXIN_BASES_ALLOWED = {
    "gblint.syntax.summary.SummaryBuilder": {"gblint.syntax.traversal.PositionedVisitor"},  # libcst's get_metadata
}


def mixin_bases(sources: Dict[str, str]) -> Dict[str, List[str]]:
    """``module.Class`` -> its mixin bases, of the classes defined at module level in ``sources``
    (module name -> source); a base is resolved where its module defines or imports it (``from .m import X``)."""
    classes, names = {}, {}
    for module, text in sources.items():
        tree = ast.parse(text)
        names[module] = {n.name: f"{module}.{n.name}" for n in tree.body if isinstance(n, ast.ClassDef)}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = _absolute(module, False, node.level, node.module)
                names[module].update((a.asname or a.name, f"{base}.{a.name}") for a in node.names)
        classes.update((f"{module}.{n.name}", (module, n)) for n in tree.body if isinstance(n, ast.ClassDef))

    def bases(key: str) -> List[str]:
        module, node = classes[key]
        found = (names[module].get(b.id) for b in node.bases if isinstance(b, ast.Name))
        return [b for b in found if b in classes]

    def defined(key: str) -> Set[str]:
        node = classes[key][1]
        out = {n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):  # class attributes (and locals: harmless)
                out.add(n.id)
            elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self" \
                    and isinstance(n.ctx, ast.Store):
                out.add(n.attr)
            elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name):
                out.add(n.target.id)
            elif isinstance(n, ast.Constant) and isinstance(n.value, str):  # __slots__, object.__setattr__(self, "x")
                out.add(n.value)
        return out.union(*(defined(b) for b in bases(key)))

    def is_mixin(key: str) -> bool:
        node = classes[key][1]
        used = {n.attr for n in ast.walk(node)
                if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self"}
        return bool(used - defined(key) - {"__class__", "__dict__"})

    return {key: mixins for key in classes if (mixins := [b for b in bases(key) if is_mixin(b)])}


def test_mixin_bases_only_where_allowed():
    sample = {"p.a": "class M:\n    def f(self):\n        return self.g()\n",
              "p.b": "from .a import M\nclass C(M):\n    def g(self):\n        return 1\n"
                     "class Own:\n    def g(self):\n        return self.h\n    h = 1\nclass D(Own):\n    pass\n"}
    assert mixin_bases(sample) == {"p.b.C": ["p.a.M"]}
    sources = {}
    for module, path in project_modules().items():
        with open(path, encoding="utf-8") as fh:
            sources[module] = fh.read()
    found = mixin_bases(sources)
    extra = {k: sorted(set(v) - MIXIN_BASES_ALLOWED.get(k, set())) for k, v in found.items()}
    assert not any(extra.values()), f"mixin bases (compose instead): { {k: v for k, v in extra.items() if v} }"
