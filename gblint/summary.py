"""One traversal per file: functions, classes, compiled regions and break events.

The :class:`SummaryBuilder` walks a libcst module once. For every function it records
*events* in source order — break sites found by the rules, calls, and ``with`` statements —
each with the stack of blocks around it (loop, ``try``, ``with`` and its manager,
comprehension, generator expression). The consequence model reads only these records;
the tree itself is released afterwards.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Tuple

import libcst as cst
from libcst.metadata import PositionProvider

from . import tensors
from .names import ImportTable, dotted
from .positions import INDEXED
from .source import describe_exception
from .tensors import join, likely_tensor, maybe_tensor

# ----------------------------------------------------------------------------- records


@dataclasses.dataclass
class Span:
    line: int
    column: int  # 1-based
    end_line: int
    end_column: int
    key: Optional[tuple] = dataclasses.field(default=None, compare=False, repr=False)  # (type, index) until filled


@dataclasses.dataclass
class Manager:
    """What a ``with`` item's manager is, as far as Dynamo cares (semantics.md §2).

    ``kind``: ``resumable`` (a break inside resumes), ``generic`` (GB0066: a break inside
    cannot resume), ``unsupported`` (GB0142: the frame is skipped even without a break).
    ``strict`` is the argument of ``error_on_graph_break(...)`` when that is the manager.
    """

    kind: str
    label: str
    gb_id: str = "GB0066"
    strict: Optional[bool] = None
    callee: Optional[tuple] = None  # a @contextmanager function of the checked code


@dataclasses.dataclass
class Block:
    kind: str  # loop | while_test | try | with | comp | genexpr | eager_only
    line: int
    ops_at_entry: int = 0
    manager: Optional[Manager] = None
    comp_kind: str = ""  # list | set | dict
    holds_tensor: bool = False
    over_items: bool = False
    column: int = 1


@dataclasses.dataclass
class Event:
    """A break site (``kind="break"``), a call (``"call"``) or an unsupported manager
    (``"with"``) inside a function, with the blocks around it (outermost first)."""

    kind: str
    span: Span
    blocks: Tuple[Block, ...]
    ops_index: int
    # break
    code: str = ""
    rule_name: str = ""
    gb_ids: Tuple[str, ...] = ()
    detail: str = ""
    hint: str = ""
    outcome: str = "resume"
    python_value: bool = False
    capturable: bool = False
    needs_capture: bool = False
    origin_line: int = 0  # a lazily formatted f-string: the line it was written on (the event is at its use)
    needs: Optional[str] = None
    fix_needs: Optional[Tuple[str, ...]] = None  # see BreakSite.fix_needs; resolved into `fixable`
    fixable: bool = False  # the rule's rewrite applies: every value it needs is known to be a tensor
    # call
    callee: Optional[tuple] = None
    call_text: str = ""
    # with
    manager: Optional[Manager] = None


@dataclasses.dataclass
class Decorator:
    qualname: str
    called: bool
    kwargs: Dict[str, str]
    args: Tuple[str, ...]


@dataclasses.dataclass
class FunctionInfo:
    qualname: str  # dotted within the module: "Class.method", "outer.inner"
    name: str
    class_name: Optional[str]
    span: Span
    decorators: List[Decorator]
    is_generator: bool = False
    is_async: bool = False
    ops_total: int = 0
    events: List[Event] = dataclasses.field(default_factory=list)
    local_defs: Dict[str, str] = dataclasses.field(default_factory=dict)

    def decorator(self, *names: str) -> Optional[Decorator]:
        for d in self.decorators:
            if d.qualname in names:
                return d
        return None


@dataclasses.dataclass
class ClassInfo:
    name: str
    qualname: str
    bases: List[str]
    methods: Dict[str, str]
    # self.attr -> ("module", [callee refs]) | ("sequential", [...]) | ("tensor", "T") known to be one
    # | ("tensor", "?") guessed (assigned a value that may be a tensor)
    attrs: Dict[str, tuple]
    span: Span


@dataclasses.dataclass
class RegionDecl:
    """A place that compiles something: ``@torch.compile``, ``torch.compile(x)``, ``x.compile()``."""

    target: tuple  # ("func", qualname) | ("class", ref) | ("instance", class ref)
    fullgraph: bool
    span: Span
    spelling: str
    function: Optional[str] = None  # the function the call sits in, for local names


@dataclasses.dataclass
class FileSummary:
    path: str
    module: str
    functions: Dict[str, FunctionInfo] = dataclasses.field(default_factory=dict)
    classes: Dict[str, ClassInfo] = dataclasses.field(default_factory=dict)
    regions: List[RegionDecl] = dataclasses.field(default_factory=list)
    config: Dict[str, object] = dataclasses.field(default_factory=dict)
    imports: Dict[str, str] = dataclasses.field(default_factory=dict)
    module_names: Dict[str, tuple] = dataclasses.field(default_factory=dict)  # global name -> value ref
    rule_errors: List[Tuple[str, int, str]] = dataclasses.field(default_factory=list)


# ----------------------------------------------------------------------------- tables

RESUMABLE_MANAGERS = frozenset({
    "torch.no_grad", "torch.enable_grad", "torch.set_grad_enabled", "torch.inference_mode",
    "torch.autograd.no_grad", "torch.autograd.enable_grad", "torch.autograd.set_grad_enabled",
    "torch.autograd.grad_mode.no_grad", "torch.autograd.grad_mode.enable_grad",
    "torch.autograd.grad_mode.set_grad_enabled", "torch.autograd.grad_mode.inference_mode",
    "torch.autocast", "torch.amp.autocast", "torch.cpu.amp.autocast", "torch.cuda.amp.autocast",
    "torch.amp.autocast_mode.autocast", "contextlib.nullcontext",
    "torch.profiler.record_function", "torch.autograd.profiler.record_function",
    "torch.profiler.profile", "torch.autograd.profiler.profile",
    "torch.autograd.graph.disable_saved_tensors_hooks", "torch.nn.attention.sdpa_kernel",
    "torch._dynamo.error_on_graph_break", "torch._dynamo.patch_dynamo_config",
    "torch._dynamo.dont_skip_tracing", "torch._C.DisableTorchFunction",
    "torch._C.DisableTorchFunctionSubclass", "torch.cuda.device", "torch.accelerator.device_index",
    "torch._dynamo.disable_nested_graph_breaks",
})
UNSUPPORTED_MANAGERS = frozenset({
    "torch.device", "open", "io.open", "builtins.open", "torch.random.fork_rng", "tempfile.TemporaryDirectory",
    "tempfile.NamedTemporaryFile", "os.scandir", "zipfile.ZipFile", "tarfile.open", "gzip.open",
})
NON_RESUMABLE_GB = {"warnings.catch_warnings": "GB0092", "torch.autograd.forward_ad.dual_level": "GB0092",
                    "torch.fx.traceback.annotate": "GB0279"}
CONTEXTMANAGER_DECORATORS = frozenset({"contextlib.contextmanager", "contextlib.asynccontextmanager"})
IS_COMPILING = frozenset({"torch.compiler.is_compiling", "torch._dynamo.is_compiling",
                          "torch.compiler.is_dynamo_compiling", "torch._utils.is_compiling"})
COMPILE_NAMES = frozenset({"torch.compile"})
# helpers that return torch.compiler.is_compiling() under another name (transformers, timm, ...)
COMPILING_PREDICATES = frozenset({"is_compiling", "is_dynamo_compiling", "is_torchdynamo_compiling", "is_tracing",
                                  "is_torchdynamo_exporting", "is_exporting", "is_dynamo_exporting"})
CONTAINER_CLASSES = {"torch.nn.ModuleList": "list", "torch.nn.Sequential": "sequential",
                     "torch.nn.ModuleDict": "dict", "torch.nn.modules.container.ModuleList": "list",
                     "torch.nn.modules.container.Sequential": "sequential"}
DYNAMO_CONFIG_PREFIXES = ("torch._dynamo.config.",)
ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.MatrixMultiply, cst.Power)


def _literal(node) -> Optional[object]:
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.value]
    if isinstance(node, cst.Integer):
        try:
            return int(node.value, 0)
        except ValueError:
            return None
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value
    if isinstance(node, (cst.List, cst.Tuple)):
        return tuple(_literal(e.value) for e in node.elements)
    return None


def _kwarg(call: cst.Call, name: str):
    for a in call.args:
        if a.keyword is not None and a.keyword.value == name:
            return a.value
    return None


def _code(node: cst.CSTNode) -> str:
    try:
        return cst.Module([]).code_for_node(node)
    except Exception:  # pragma: no cover - code generation of a valid tree does not fail
        return "<expr>"


# ----------------------------------------------------------------------------- per-function state


class _Env(dict):
    """A scope's name -> kind table that forgets memoised expression kinds when it changes."""

    def __init__(self, memo: Dict[int, str], items=()):
        super().__init__(items)
        self._memo = memo

    def __setitem__(self, key, value):
        self._memo.clear()
        super().__setitem__(key, value)

    def pop(self, *args):
        self._memo.clear()
        return super().pop(*args)


class FunctionScope:
    """Per-function state handed to rules as ``ctx``: names, tensor kinds, blocks."""

    def __init__(self, builder: "SummaryBuilder", info: Optional[FunctionInfo], imports: ImportTable,
                 params: Dict[str, str], parent: Optional["FunctionScope"], class_info: Optional[ClassInfo]):
        self.builder = builder
        self.info = info
        self.imports = imports
        self.parent = parent
        self.class_info = class_info
        self._kinds: Dict[int, str] = {}  # kind() of nodes since the last binding changed
        self._guards: Dict[int, Optional[bool]] = {}  # compiling_guard() of nodes
        self.env: Dict[str, str] = _Env(self._kinds, params)  # local name -> kind token
        self.values: Dict[str, tuple] = {}  # local name -> value ref (manager, instance, modules)
        self.params = set(params)
        self.self_name: Optional[str] = None
        self.tensor_params: set = set()
        self.blocks: List[Block] = []
        self.ops = 0
        self.pending: List[Event] = []
        self.is_generator = False
        self.deferred: Dict[str, Event] = {}  # name bound to a lazily formatted string -> its break
        self.guessed: set = set()  # locals whose tensor kind is a guess (bound from a guessed self attribute)

    # -- names
    def resolve(self, node: cst.BaseExpression) -> Optional[str]:
        """Dotted name ``node`` stands for, through imports (``T.compile`` -> ``torch.compile``)."""
        text = dotted(node)
        if text is None:
            return None
        head = text.split(".")[0]
        scope = self
        while scope is not None:
            if head in scope.env and head not in scope.imports.names:
                return None  # a local variable, not a module path
            scope = scope.parent
        return self.imports.resolve(node)

    def config(self, name: str, default=None):
        return self.builder.config_value(name, default)

    def compiling_guard(self, test: cst.BaseExpression) -> Optional[bool]:
        """The value ``test`` has under Dynamo when it only depends on an is-compiling check
        (``torch.compiler.is_compiling()``, transformers' ``is_tracing(x)``...), else None.
        ``not G and X`` is False and ``G or X`` is True whatever X is (short-circuit)."""
        key = id(test)
        if key not in self._guards:
            self._guards[key] = self._compiling_guard(test)
        return self._guards[key]

    def _compiling_guard(self, test: cst.BaseExpression) -> Optional[bool]:
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            inner = self.compiling_guard(test.expression)
            return None if inner is None else not inner
        if isinstance(test, cst.Call):
            q = self.resolve(test.func) or dotted(test.func) or ""
            if q in IS_COMPILING or q.rsplit(".", 1)[-1] in COMPILING_PREDICATES:
                return True
            return None
        if isinstance(test, cst.BooleanOperation):
            left = self.compiling_guard(test.left)
            if isinstance(test.operator, cst.And) and left is False:
                return False
            if isinstance(test.operator, cst.Or) and left is True:
                return True
            right = self.compiling_guard(test.right)
            if left is not None and right is not None:
                return (left and right) if isinstance(test.operator, cst.And) else (left or right)
        return None

    # -- tensor kinds
    def lookup(self, name: str) -> Optional[str]:
        scope = self
        while scope is not None:
            if name in scope.env:
                return scope.env[name]
            scope = scope.parent
        return None

    def kind(self, node: cst.BaseExpression) -> str:
        """Kind token of an expression (see :mod:`gblint.tensors`), memoised until a binding
        changes: long operator chains would otherwise be re-walked at every level."""
        key = id(node)
        found = self._kinds.get(key)
        if found is None:
            found = self._kinds[key] = self._kind(node)
        return found

    def _kind(self, node: cst.BaseExpression) -> str:
        """Kind token of an expression (see :mod:`gblint.tensors`)."""
        if isinstance(node, cst.Name):
            k = self.lookup(node.value)
            if k is not None:
                return k
            return "?"
        if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString,
                             cst.ConcatenatedString, cst.FormattedString)):
            return "P"
        if isinstance(node, cst.Attribute):
            attr = node.attr.value
            if isinstance(node.value, cst.Name) and node.value.value == self.self_name and self.class_info:
                ref = self.class_info.attrs.get(attr)
                if ref and ref[0] == "tensor":
                    return "T"
                if ref and ref[0] in ("module", "sequential", "container", "nn"):
                    return "M"
                return "?"
            base = self.kind(node.value)
            if likely_tensor(base):
                if attr in tensors.PY_ATTRS:
                    return "P"
                if attr in tensors.TENSOR_ATTRS:
                    return base
                return "?"
            q = self.resolve(node)
            if q and q.startswith("torch."):
                return "P"
            return "?"
        if isinstance(node, cst.Call):
            return self.call_kind(node)
        if isinstance(node, cst.Subscript):
            base = self.kind(node.value)
            if likely_tensor(base):
                return base
            if base == "M":
                return "M"
            return "P" if base == "P" else "?"
        if isinstance(node, cst.BinaryOperation):
            return join(self.kind(node.left), self.kind(node.right))
        if isinstance(node, cst.UnaryOperation):
            return self.kind(node.expression)
        if isinstance(node, cst.Comparison):
            if all(isinstance(t.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for t in node.comparisons):
                return "P"
            return join(self.kind(node.left), *[self.kind(t.comparator) for t in node.comparisons])
        if isinstance(node, cst.BooleanOperation):
            return join(self.kind(node.left), self.kind(node.right))
        if isinstance(node, cst.IfExp):
            k = join(self.kind(node.body), self.kind(node.orelse))
            return k
        return "?"

    def known_tensor(self, node: cst.BaseExpression) -> Optional[str]:
        """The kind token of ``node`` when it is a tensor by inference rather than by a guess:
        ``"T"``, or ``"p:NAME"`` (a tensor if parameter NAME turns out to be one, see
        :meth:`resolve_token`); None when it is not, or may not be, a tensor. A ``self`` attribute
        assigned a value not known to be a tensor (``self.use_res = inp == oup``), and locals bound
        from one, are guesses: they are reported as tensors, never rewritten as ones."""
        k = self.kind(node)
        if not maybe_tensor(k) or self.guessed_expr(node):
            return None
        return k

    def guessed_expr(self, node: cst.BaseExpression) -> bool:
        """Whether the kind of ``node`` rests on a guess (see :meth:`known_tensor`); follows the
        sub-expressions :meth:`kind` follows."""
        todo = [node]
        while todo:
            n = todo.pop()
            if isinstance(n, cst.Name):
                scope = self
                while scope is not None and n.value not in scope.env:
                    scope = scope.parent
                if scope is not None and n.value in scope.guessed:
                    return True
            elif isinstance(n, cst.Attribute):
                if isinstance(n.value, cst.Name) and n.value.value == self.self_name and self.class_info:
                    ref = self.class_info.attrs.get(n.attr.value)
                    if ref and ref[0] == "tensor" and ref[1:] != ("T",):
                        return True
                todo.append(n.value)
            elif isinstance(n, cst.Call):
                todo.append(n.func)
                todo.extend(a.value for a in n.args)
            elif isinstance(n, cst.Subscript):
                todo.append(n.value)
            elif isinstance(n, (cst.BinaryOperation, cst.BooleanOperation)):
                todo += [n.left, n.right]
            elif isinstance(n, cst.UnaryOperation):
                todo.append(n.expression)
            elif isinstance(n, cst.Comparison):
                todo.append(n.left)
                todo.extend(t.comparator for t in n.comparisons)
            elif isinstance(n, cst.IfExp):
                todo += [n.body, n.orelse]
        return False

    def call_kind(self, node: cst.Call) -> str:
        func = node.func
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            recv = self.kind(func.value)
            if likely_tensor(recv):
                if method == "item":
                    return "S"
                if method in tensors.PY_METHODS:
                    return "P"
                return recv
            if recv == "M":
                return "T" if method in ("forward", "__call__") else "?"
        q = self.resolve(func)
        if q:
            k = tensors.torch_call_kind(q)
            if k != "?":
                return k
            if q in ("int", "float") and len(node.args) == 1 and likely_tensor(self.kind(node.args[0].value)):
                return "S"
            if q in ("len", "int", "float", "bool", "str", "isinstance", "range", "hasattr", "id", "type",
                     "repr", "tuple", "list", "dict", "set", "enumerate", "zip", "getattr", "callable"):
                return "T" if q == "getattr" and node.args and maybe_tensor(self.kind(node.args[0].value)) \
                    and isinstance(node.args[1].value, cst.SimpleString) and node.args[1].value.evaluated_value \
                    not in tensors.PY_ATTRS else "P"
            if q in ("sum", "max", "min", "abs"):
                ks = [self.kind(a.value) for a in node.args]
                return "T" if "T" in ks else "?"
        fk = self.kind(func)
        if fk == "M":
            return "T"
        if q is None or not q.startswith(("torch.", "builtins.")):
            if any(likely_tensor(self.kind(a.value)) for a in node.args):
                return "~"
        return "?"

    def note_tensor_param(self, node: cst.BaseExpression) -> None:
        """Record evidence that a parameter is a tensor (it is used as one)."""
        if isinstance(node, cst.Name) and node.value in self.params and self.env.get(node.value, "").startswith("p:"):
            self.tensor_params.add(node.value)

    def resolve_token(self, token: Optional[str]) -> bool:
        if token is None:
            return True
        if token == "T":
            return True
        if token.startswith("p:"):
            return token[2:] in self.tensor_params
        return False


# ----------------------------------------------------------------------------- the builder


class SummaryBuilder(cst.CSTVisitor):
    """Builds a :class:`FileSummary` in one pass over a libcst module.

    ``rules`` maps libcst node types to the rule instances interested in them.
    """

    METADATA_DEPENDENCIES = (PositionProvider,)

    # libcst looks visitor methods up by formatted name for every node and attribute; on large
    # files that lookup costs more than the rules, so it is cached per node type here.
    _dispatch: Dict[tuple, object] = {}

    def _hook(self, kind: str, node_type: type, attribute: str = ""):
        key = (kind, node_type, attribute)
        try:
            return self._dispatch[key]
        except KeyError:
            name = f"{kind}_{node_type.__name__}" + (f"_{attribute}" if attribute else "")
            fn = getattr(type(self), name, None)
            self._dispatch[key] = fn
            return fn

    def on_visit(self, node) -> bool:
        if self.ast_positions is not None:
            self._enter_index(node)
        fn = self._hook("visit", type(node))
        return True if fn is None else fn(self, node) is not False

    def on_leave(self, original_node) -> None:
        fn = self._hook("leave", type(original_node))
        if fn is not None:
            fn(self, original_node)
        if self.ast_positions is not None:
            self._leave_index(original_node)

    def on_visit_attribute(self, node, attribute: str) -> None:
        fn = self._hook("visit", type(node), attribute)
        if fn is not None:
            fn(self, node)

    def on_leave_attribute(self, original_node, attribute: str) -> None:
        fn = self._hook("leave", type(original_node), attribute)
        if fn is not None:
            fn(self, original_node)

    def __init__(self, path: str, module: str, is_package: bool, rules_by_type, settings):
        super().__init__()
        self.summary = FileSummary(path, module)
        self.imports = ImportTable(module, is_package)
        self.rules_by_type = rules_by_type
        self.settings = settings
        self.scope: Optional[FunctionScope] = None
        self.class_stack: List[ClassInfo] = []
        self.func_stack: List[FunctionScope] = []
        self.module_scope = FunctionScope(self, None, self.imports, {}, None, None)
        self.module_scope.env = {}
        self.ast_positions = None
        self.positions_ok = True
        self._index: Dict[int, tuple] = {}
        self._counts: Dict[type, int] = {}
        self._open: List[tuple] = []
        self._open_ids: List[int] = []
        self._import_depth = 0
        self._pending_spans: List[Span] = []
        self._block_spans: List[tuple] = []
        self._def_quals: Dict[int, str] = {}
        self._event_nodes: Dict[int, Event] = {}
        self._local_classes: set = set()
        self._lambdas: Dict[int, str] = {}

    # -- helpers
    def config_value(self, name: str, default=None):
        if name in self.summary.config:
            return self.summary.config[name]
        return self.settings.dynamo_config.get(name, default)

    def span(self, node) -> Span:
        """The node's position: from libcst metadata, or (``ast_positions`` set) a placeholder
        filled by :meth:`fill_positions` once the whole module has been visited."""
        if self.ast_positions is None:
            r = self.get_metadata(PositionProvider, node)
            return Span(r.start.line, r.start.column + 1, r.end.line, r.end.column + 1)
        key = self._index.get(id(node))
        probe = node
        while key is None and isinstance(probe, cst.BooleanOperation):
            probe = probe.left  # `a and b` starts where its left operand does
            key = self._index.get(id(probe))
        if key is None:
            # not a node type matched against ast: the innermost open one that is
            key = self._open[-1] if self._open else None
        found = self.ast_positions.get(*key) if key is not None else None
        if found is None:
            self.positions_ok = False  # fill_positions() will send the file to PositionProvider
            return Span(1, 1, 1, 1)
        return Span(*found, key)

    def node_key(self, node) -> Optional[tuple]:
        return self._index.get(id(node))

    def fill_positions(self) -> bool:
        """Resolve placeholder spans from ``ast_positions``; False when the node counts of libcst
        and ast disagree (the caller then redoes the summary with libcst positions)."""
        pos = self.ast_positions
        if not self.positions_ok:
            return False
        for t, n in self._counts.items():
            if pos.count(t) != n:
                return False
        for t in pos.table:
            if pos.count(t) and self._counts.get(t, 0) != pos.count(t):
                return False
        return True

    # node indexing for ast positions (see gblint.positions)
    def _enter_index(self, node) -> None:
        t = type(node)
        if t in INDEXED and not (t is cst.Attribute and self._import_depth):
            n = self._counts.get(t, 0)
            self._counts[t] = n + 1
            key = (t, n)
            self._index[id(node)] = key
            self._open.append(key)
            self._open_ids.append(id(node))
        elif t is cst.Import or t is cst.ImportFrom:
            self._import_depth += 1

    def _leave_index(self, node) -> None:
        if self._open_ids and self._open_ids[-1] == id(node):
            self._open.pop()
            self._open_ids.pop()
        elif type(node) is cst.Import or type(node) is cst.ImportFrom:
            self._import_depth -= 1

    @property
    def ctx(self) -> FunctionScope:
        return self.scope if self.scope is not None else self.module_scope

    def in_function(self) -> bool:
        return self.scope is not None and self.scope.info is not None

    # -- module pre-pass: imports, globals, config set at module level
    def visit_Module(self, node: cst.Module) -> None:
        for stmt in node.body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.Import):
                        self.imports.add_import(small)
                    elif isinstance(small, cst.ImportFrom):
                        self.imports.add_import_from(small)
        for stmt in node.body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.Assign):
                        for t in small.targets:
                            if isinstance(t.target, cst.Name):
                                self.summary.module_names[t.target.value] = self.value_ref(small.value, self.module_scope)
                    elif isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) and small.value:
                        self.summary.module_names[small.target.value] = self.value_ref(small.value, self.module_scope)
            elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                self.summary.module_names[stmt.name.value] = ("def",)
        self.summary.imports = dict(self.imports.names)
        self.collect_config(node)

    def collect_config(self, node: cst.Module) -> None:
        """``torch._dynamo.config.X = value`` statements at module level (any import spelling)."""
        for stmt in node.body:
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            for small in stmt.body:
                if isinstance(small, cst.Assign):
                    for t in small.targets:
                        q = self.imports.resolve(t.target) if isinstance(t.target, cst.Attribute) else None
                        if q and q.startswith(DYNAMO_CONFIG_PREFIXES):
                            value = _literal(small.value)
                            if isinstance(small.value, (cst.Set, cst.List, cst.Tuple)):
                                value = tuple(self.imports.resolve(e.value) or "" for e in small.value.elements)
                            self.summary.config[q.rsplit(".", 1)[-1]] = value

    def value_ref(self, value: cst.BaseExpression, scope: FunctionScope) -> tuple:
        """A small description of what a name is bound to (manager, instance, logger...)."""
        if isinstance(value, cst.Call):
            q = scope.resolve(value.func)
            if q:
                if q in RESUMABLE_MANAGERS or q in UNSUPPORTED_MANAGERS or q in NON_RESUMABLE_GB:
                    return ("manager_call", q)
                if q in ("logging.getLogger", "logging.get_logger", "structlog.get_logger"):
                    return ("logger",)
                if q in COMPILE_NAMES:
                    return ("compiled",)
                if q == "functools.partial" and value.args:
                    ref = self.callee_ref(value.args[0].value, scope)
                    if ref is not None:
                        return ("partial", ref)
                if q in CONTAINER_CLASSES:
                    return ("container", CONTAINER_CLASSES[q], self.module_refs(value, scope))
                head = q.split(".")[0]
                if q[:1].isupper() or q.rsplit(".", 1)[-1][:1].isupper():
                    return ("instance", self.callee_ref(value.func, scope) or ("qual", q))
                return ("call", q, head)
            return ("call", None, None)
        return ("value",)

    def module_refs(self, call: cst.Call, scope: FunctionScope) -> List[tuple]:
        """Callee refs of the modules listed in ``nn.ModuleList([...])`` / ``nn.Sequential(...)``."""
        refs = []
        exprs: List[cst.BaseExpression] = []
        for a in call.args:
            if isinstance(a.value, (cst.List, cst.Tuple)):
                exprs.extend(e.value for e in a.value.elements)
            elif isinstance(a.value, (cst.ListComp, cst.GeneratorExp)):
                exprs.append(a.value.elt)
            elif isinstance(a.value, cst.Dict):
                exprs.extend(e.value for e in a.value.elements if isinstance(e, cst.DictElement))
            else:
                exprs.append(a.value)
        for e in exprs:
            if isinstance(e, cst.Call):
                ref = self.callee_ref(e.func, scope)
                if ref is not None:
                    refs.append(ref)
        return refs

    # -- imports inside functions
    def visit_Import(self, node: cst.Import) -> None:
        if self.in_function():
            self.scope.imports.add_import(node)
            for alias in node.names:
                bound = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) \
                    else dotted(alias.name).split(".")[0]
                self.scope.env.pop(bound, None)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if self.in_function():
            self.scope.imports.add_import_from(node)

    # -- classes
    def visit_ClassDef(self, node: cst.ClassDef) -> Optional[bool]:
        if self.in_function():
            self.record_rules(node)
            # a class statement inside a function: the rule reports it; nothing in its body runs here.
            # Its children are still walked (positions are matched node by node against ast).
            self.scope.blocks.append(Block("eager_only", 0, self.scope.ops))
            self._local_classes.add(id(node))
            return True
        qual = ".".join([c.name for c in self.class_stack] + [node.name.value])
        bases = [self.imports.resolve(b.value) or "" for b in node.bases]
        info = ClassInfo(node.name.value, qual, bases, {}, {}, self.span(node))
        self.summary.classes[qual] = info
        self.class_stack.append(info)
        return True

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        if id(node) in self._local_classes:
            self.pop()
            return
        if self.class_stack and self.class_stack[-1].name == node.name.value and not self.in_function():
            self.class_stack.pop()

    # -- functions
    def visit_FunctionDef(self, node: cst.FunctionDef) -> Optional[bool]:
        return True

    def visit_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        parent = self.scope
        cls = self.class_stack[-1] if (self.class_stack and parent is None) else None
        if parent is not None and parent.info is not None:
            qual = f"{parent.info.qualname}.{node.name.value}"
            parent.info.local_defs[node.name.value] = qual
            parent.env[node.name.value] = "?"
            parent.values[node.name.value] = ("local_def", qual)
        elif cls is not None:
            qual = f"{cls.qualname}.{node.name.value}"
            cls.methods[node.name.value] = qual
        else:
            qual = node.name.value
        decorators = [self.decorator(d) for d in node.decorators]
        info = FunctionInfo(qual, node.name.value, cls.qualname if cls else (parent.class_info.qualname if parent and parent.class_info else None),
                            self.span(node), decorators, is_async=node.asynchronous is not None)
        self.summary.functions[qual] = info
        self._def_quals[id(node)] = qual
        params: Dict[str, str] = {}
        all_params = list(node.params.posonly_params) + list(node.params.params) + list(node.params.kwonly_params)
        self_name = None
        if cls is not None and all_params and not info.decorator("staticmethod"):
            self_name = all_params[0].name.value
            all_params = all_params[1:]
        for i, p in enumerate(all_params):
            params[p.name.value] = self.param_kind(p, is_forward=(cls is not None and node.name.value == "forward" and i == 0))
        for star in (node.params.star_arg, node.params.star_kwarg):
            if isinstance(star, cst.Param):
                params[star.name.value] = "?"
        scope = FunctionScope(self, info, (parent.imports if parent else self.imports).child(), params,
                              parent if parent is not None and parent.info is not None else None,
                              cls or (parent.class_info if parent else None))
        scope.self_name = self_name or (parent.self_name if parent else None)
        if self_name:
            scope.env[self_name] = "self"
        self.func_stack.append(scope)
        self.scope = scope

    def leave_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        scope = self.func_stack.pop()
        info = scope.info
        info.is_generator = scope.is_generator
        info.ops_total = scope.ops
        for ev in scope.pending:
            if ev.kind != "break" or scope.resolve_token(ev.needs):
                ev.needs = None
                ev.fixable = ev.fix_needs is not None and all(scope.resolve_token(t) for t in ev.fix_needs)
                ev.fix_needs = None
                info.events.append(ev)
        self.scope = self.func_stack[-1] if self.func_stack else None

    def param_kind(self, p: cst.Param, is_forward: bool) -> str:
        name = p.name.value
        if p.annotation is not None:
            ann = dotted(p.annotation.annotation) or ""
            q = self.imports.resolve(p.annotation.annotation) or ann
            if q.endswith("Tensor") or ann.endswith("Tensor"):
                return "T"
            if ann:
                return "P" if ann.split(".")[-1] in ("int", "float", "bool", "str", "list", "dict", "tuple") else "?"
            return "?"
        if p.default is not None and not (isinstance(p.default, cst.Name) and p.default.value == "None"):
            return "P" if _literal(p.default) is not None else "?"
        if is_forward:
            return "T"
        return f"p:{name}"

    def decorator(self, d: cst.Decorator) -> Decorator:
        expr = d.decorator
        called = isinstance(expr, cst.Call)
        func = expr.func if called else expr
        q = self.ctx.resolve(func) or (dotted(func) or "")
        kwargs, args = {}, ()
        if called:
            for a in expr.args:
                val = _literal(a.value)
                text = "" if val is None and not isinstance(a.value, cst.Name) else repr(val)
                if a.keyword is not None:
                    kwargs[a.keyword.value] = text
                else:
                    args = args + (text,)
        return Decorator(q, called, kwargs, args)

    # -- lambdas and nested classes: their bodies do not run where they are defined
    def visit_Lambda(self, node: cst.Lambda) -> Optional[bool]:
        """A lambda's body runs when it is called, not where it is written: it is a function of
        its own (``outer.<lambda:LINE>``), callable through the name it is assigned to."""
        if not self.in_function():
            return True  # walked for positions only: no function records events at module level
        parent = self.scope
        span = self.span(node)
        qual = f"{parent.info.qualname}.<lambda:{span.line}:{span.column}>"
        info = FunctionInfo(qual, "<lambda>", parent.info.class_name, span, [])
        self.summary.functions[qual] = info
        params = {}
        for p in list(node.params.posonly_params) + list(node.params.params) + list(node.params.kwonly_params):
            params[p.name.value] = f"p:{p.name.value}" if p.default is None else "?"
        scope = FunctionScope(self, info, parent.imports.child(), params, parent, parent.class_info)
        scope.self_name = parent.self_name
        self._lambdas[id(node)] = qual
        self.func_stack.append(scope)
        self.scope = scope
        return True

    def leave_Lambda(self, node: cst.Lambda) -> None:
        if self._lambdas.get(id(node)) and self.scope is not None and self.scope.info is not None \
                and self.scope.info.qualname == self._lambdas[id(node)]:
            self.leave_FunctionDef_body(node)

    # -- blocks
    def push(self, kind: str, node, **kw) -> None:
        if self.in_function():
            span = self.span(node)
            block = Block(kind, span.line, self.scope.ops, column=span.column, **kw)
            self.scope.blocks.append(block)
            if span.key is not None:
                self._block_spans.append((block, span))

    def pop(self) -> None:
        if self.in_function() and self.scope.blocks:
            self.scope.blocks.pop()

    def visit_For_body(self, node: cst.For) -> None:
        self.push("loop", node)

    def leave_For_body(self, node: cst.For) -> None:
        self.pop()

    def visit_For(self, node: cst.For) -> None:
        if self.in_function() and isinstance(node.target, cst.Name):
            k = self.scope.kind(node.iter)
            target = node.target.value
            self.scope.env[target] = "M" if k == "M" else ("T" if k == "T" else "?")
            self._note_guess(target, node.iter, self.scope)
            self.scope.values.pop(target, None)
            it = node.iter
            if isinstance(it, cst.Call) and dotted(it.func) in ("enumerate", "reversed") and it.args:
                it = it.args[0].value
            ref = self.self_attr(it)
            if ref and ref[0] in ("container", "sequential"):
                self.scope.env[target] = "M"
                self.scope.values[target] = ("modules", tuple(ref[2]))
        elif self.in_function() and isinstance(node.target, cst.Tuple):
            it = node.iter
            elts = node.target.elements
            if isinstance(it, cst.Call) and dotted(it.func) == "zip" and len(it.args) == len(elts):
                for arg, elt in zip(it.args, elts):
                    ref = self.self_attr(arg.value)
                    if isinstance(elt.value, cst.Name):
                        name = elt.value.value
                        if ref and ref[0] in ("container", "sequential"):
                            self.scope.env[name] = "M"
                            self.scope.values[name] = ("modules", tuple(ref[2]))
                        else:
                            self.scope.env[name] = "?"
                            self.scope.values.pop(name, None)
            if isinstance(it, cst.Call) and dotted(it.func) == "enumerate" and it.args:
                ref = self.self_attr(it.args[0].value)
                elts = node.target.elements
                if ref and ref[0] in ("container", "sequential") and len(elts) == 2 and isinstance(elts[1].value, cst.Name):
                    self.scope.env[elts[1].value.value] = "M"
                    self.scope.values[elts[1].value.value] = ("modules", tuple(ref[2]))

    def visit_While_test(self, node: cst.While) -> None:
        self.push("while_test", node)

    def leave_While_test(self, node: cst.While) -> None:
        self.record_rules(node)
        self.pop()

    def visit_While_body(self, node: cst.While) -> None:
        self.push("loop", node)

    def leave_While_body(self, node: cst.While) -> None:
        self.pop()

    def visit_Try(self, node: cst.Try) -> None:
        self.push("try", node)

    def leave_Try(self, node: cst.Try) -> None:
        self.pop()

    def visit_TryStar(self, node) -> None:
        self.push("try", node)

    def leave_TryStar(self, node) -> None:
        self.pop()

    def visit_If_body(self, node: cst.If) -> None:
        self.push_guard(node, negate=False)

    def leave_If_body(self, node: cst.If) -> None:
        self.pop()

    def visit_If_orelse(self, node: cst.If) -> None:
        self.push_guard(node, negate=True)

    def leave_If_orelse(self, node: cst.If) -> None:
        self.pop()

    def push_guard(self, node: cst.If, negate: bool) -> None:
        """``if not torch.compiler.is_compiling():`` bodies run only in eager: ignore them."""
        value = self.ctx.compiling_guard(node.test) if self.in_function() else None
        eager_only = value is not None and value == negate
        self.push("eager_only" if eager_only else "branch", node)

    def visit_BooleanOperation_right(self, node: cst.BooleanOperation) -> None:
        # `not is_compiling() and X`: X never runs under Dynamo (short-circuit)
        value = self.ctx.compiling_guard(node.left) if self.in_function() else None
        skip = value is not None and value == isinstance(node.operator, cst.Or)
        if self.in_function():  # no position: nothing reports an operand block's line
            self.scope.blocks.append(Block("eager_only" if skip else "operand", 0, self.scope.ops))

    def leave_BooleanOperation_right(self, node: cst.BooleanOperation) -> None:
        self.pop()

    def visit_With_body(self, node: cst.With) -> None:
        if not self.in_function():
            return
        for item in node.items:  # the managers are built (visited) before the body is entered
            m = self.classify_manager(item.item)
            if m.kind == "unsupported":
                self.add_event(Event("with", self.span(item.item), tuple(self.scope.blocks), self.scope.ops,
                                     manager=m, gb_ids=(m.gb_id,), detail=f"`with {m.label}`"))
        for item in node.items:
            m = self.classify_manager(item.item)
            span = self.span(node)
            block = Block("with", span.line, self.scope.ops, manager=m, column=span.column)
            self.scope.blocks.append(block)
            if span.key is not None:
                self._block_spans.append((block, span))
            if m.kind == "resumable" and m.label.startswith(("torch.no_grad", "torch.enable_grad", "torch.set_grad",
                                                             "torch.inference_mode", "torch.autocast", "torch.amp",
                                                             "torch.cpu.amp", "torch.cuda.amp")):
                self.scope.ops += 1

    def leave_With_body(self, node: cst.With) -> None:
        if not self.in_function():
            return
        for _ in node.items:
            self.pop()

    def classify_manager(self, expr: cst.BaseExpression) -> Manager:
        scope = self.scope
        label = _code(expr)
        if isinstance(expr, cst.Call):
            q = scope.resolve(expr.func)
            if q in RESUMABLE_MANAGERS:
                strict = None
                if q == "torch._dynamo.error_on_graph_break" and expr.args:
                    strict = _literal(expr.args[0].value)
                return Manager("resumable", label, strict=strict if isinstance(strict, bool) else None)
            if q in UNSUPPORTED_MANAGERS:
                return Manager("unsupported", label, gb_id="GB0142")
            if q in NON_RESUMABLE_GB:
                return Manager("generic", label, gb_id=NON_RESUMABLE_GB[q])
            ref = self.callee_ref(expr.func, scope)
            return Manager("generic", label, callee=ref)
        if isinstance(expr, cst.Name):
            name = expr.value
            local = scope.values.get(name)
            if local is not None and local[0] == "manager_call":
                q = local[1]
                kind = "resumable" if q in RESUMABLE_MANAGERS else "unsupported" if q in UNSUPPORTED_MANAGERS else "generic"
                return Manager(kind, label, gb_id="GB0142" if kind == "unsupported" else "GB0066")
            if scope.lookup(name) is None and name in self.summary.module_names:
                return Manager("unsupported", label, gb_id="GB0142")
            if scope.lookup(name) is None and scope.parent is not None:
                return Manager("unsupported", label, gb_id="GB0142")
        return Manager("generic", label)

    # -- comprehensions and generator expressions
    def comp_block(self, node, kind: str) -> None:
        if not self.in_function():
            return
        holds = False
        over_items = False
        it = node.for_in.iter
        if isinstance(it, cst.Call) and isinstance(it.func, cst.Attribute) and it.func.attr.value in ("items",):
            over_items = True
        if isinstance(it, cst.Call) and dotted(it.func) == "enumerate":
            over_items = True
        bound = set()
        f = node.for_in
        while f is not None:
            for n in _names_in(f.target):
                bound.add(n)
            f = f.inner_for_in
        parts = [node.elt] if not isinstance(node, cst.DictComp) else [node.key, node.value]
        for part in parts:
            for n in _names_in(part):
                if n in bound:
                    continue
                k = self.scope.lookup(n)
                # Dynamo declines a comprehension frame that holds no tensor-related object; a
                # module (`self`, a layer) counts as one (measured on 2.13, tests/fixtures/measured)
                if k is not None and (maybe_tensor(k) or k in ("M", "self")):
                    holds = True
                elif k is None and (self.imports.lookup(n) or "").split(".")[0] == "torch":
                    holds = True
        span = self.span(node)
        block = Block("genexpr" if kind == "gen" else "comp", span.line, self.scope.ops,
                      comp_kind=kind, holds_tensor=holds, over_items=over_items, column=span.column)
        self.scope.blocks.append(block)
        if span.key is not None:
            self._block_spans.append((block, span))

    def visit_ListComp(self, node):
        self.comp_block(node, "list")

    def leave_ListComp(self, node):
        self.pop()

    def visit_SetComp(self, node):
        self.comp_block(node, "set")

    def leave_SetComp(self, node):
        self.pop()

    def visit_DictComp(self, node):
        self.comp_block(node, "dict")

    def leave_DictComp(self, node):
        self.pop()

    def visit_GeneratorExp(self, node):
        self.comp_block(node, "gen")

    def leave_GeneratorExp(self, node):
        self.pop()

    # -- generators
    def visit_Yield(self, node: cst.Yield) -> None:
        if self.in_function():
            self.scope.is_generator = True

    # -- assignments feed tensor inference
    def leave_Assign(self, node: cst.Assign) -> None:
        scope = self.ctx
        for t in node.targets:
            self.bind(t.target, node.value, scope)
        if self.in_function() and isinstance(node.value, cst.FormattedString) and len(node.targets) == 1 \
                and isinstance(node.targets[0].target, cst.Name) and scope.pending:
            ev = scope.pending[-1]
            if ev.kind == "break" and ev.code == "GBL123" and self._event_nodes.get(id(node.value)) is ev:
                # Dynamo formats f-strings lazily: the failure surfaces where the string is first used
                scope.deferred[node.targets[0].target.value] = ev

    def visit_Name(self, node: cst.Name) -> None:
        if self.in_function() and self.scope.deferred:
            ev = self.scope.deferred.pop(node.value, None)
            if ev is not None:
                ev.origin_line = ev.span.line
                ev.span = self.span(node)

    def leave_AnnAssign(self, node: cst.AnnAssign) -> None:
        scope = self.ctx
        if node.value is not None:
            self.bind(node.target, node.value, scope)
        if isinstance(node.target, cst.Name) and self.in_function():
            ann = dotted(node.annotation.annotation) or ""
            if ann.endswith("Tensor"):
                scope.env[node.target.value] = "T"

    def leave_AugAssign(self, node: cst.AugAssign) -> None:
        if self.in_function() and isinstance(node.target, cst.Name):
            scope = self.scope
            old = scope.lookup(node.target.value) or "?"
            new = join(old, scope.kind(node.value))
            scope.env[node.target.value] = new
            if likely_tensor(new) or likely_tensor(old):
                scope.ops += 1
            if scope.guessed_expr(node.value):
                scope.guessed.add(node.target.value)

    def bind(self, target, value, scope: FunctionScope) -> None:
        if isinstance(target, cst.Name):
            if scope is self.module_scope:
                return
            scope.env[target.value] = scope.kind(value)
            self._note_guess(target.value, value, scope)
            if isinstance(value, cst.Lambda) and id(value) in self._lambdas:
                scope.values[target.value] = ("local_def", self._lambdas[id(value)])
                scope.env[target.value] = "?"
                return
            ref = self.value_ref(value, scope)
            if ref[0] in ("manager_call", "instance", "container", "compiled", "logger", "partial"):
                scope.values[target.value] = ref
                if ref[0] in ("instance", "container"):
                    if ref[0] == "container" or self.is_module_class(ref):
                        scope.env[target.value] = "M"
            else:
                scope.values.pop(target.value, None)
        elif isinstance(target, (cst.Tuple, cst.List)):
            vk = scope.kind(value)
            if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(target.elements):
                for te, ve in zip(target.elements, value.elements):
                    self.bind(te.value, ve.value, scope)
            else:
                for te in target.elements:
                    if isinstance(te.value, cst.Name) and scope is not self.module_scope:
                        scope.env[te.value.value] = vk if maybe_tensor(vk) else "?"
                        self._note_guess(te.value.value, value, scope)
        elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and scope.self_name \
                and target.value.value == scope.self_name and scope.class_info is not None:
            cls = scope.class_info
            attr = target.attr.value
            ref = self.value_ref(value, scope)
            if ref[0] == "container":
                cls.attrs[attr] = ("container" if ref[1] != "sequential" else "sequential", ref[1], ref[2])
            elif ref[0] == "instance":
                callee = ref[1]
                q = callee[1] if callee and callee[0] == "qual" else ""
                if q.startswith("torch.nn.") and not q.startswith("torch.nn.Parameter"):
                    cls.attrs[attr] = ("nn", q)
                elif q.startswith("torch.nn.Parameter") or q == "torch.nn.parameter.Parameter":
                    cls.attrs[attr] = ("tensor", "T")
                else:
                    cls.attrs.setdefault(attr, ("module", [callee]))
            elif maybe_tensor(scope.kind(value)):
                # ("tensor", "T"): known to be a tensor; ("tensor", "?"): a guess (a parameter's value)
                cls.attrs.setdefault(attr, ("tensor", "T" if scope.known_tensor(value) == "T" else "?"))

    @staticmethod
    def _note_guess(name: str, value: cst.BaseExpression, scope: FunctionScope) -> None:
        """Record whether local ``name``, just bound from ``value``, is a tensor only by a guess."""
        if likely_tensor(scope.env.get(name, "?")) and scope.guessed_expr(value):
            scope.guessed.add(name)
        else:
            scope.guessed.discard(name)

    def is_module_class(self, ref: tuple) -> bool:
        callee = ref[1]
        if callee and callee[0] == "qual":
            q = callee[1]
            if q.startswith("torch.nn.") and q.rsplit(".", 1)[-1][:1].isupper():
                return True
            cls = self.summary.classes.get(q.rsplit(".", 1)[-1]) if "." not in q or q.startswith(self.summary.module + ".") else None
            return bool(cls and any("Module" in b for b in cls.bases))
        return False

    def self_attr(self, node) -> Optional[tuple]:
        scope = self.scope
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and scope.self_name \
                and node.value.value == scope.self_name and scope.class_info is not None:
            return scope.class_info.attrs.get(node.attr.value)
        return None

    # -- calls: events, regions, tensor evidence
    def callee_ref(self, func: cst.BaseExpression, scope: FunctionScope) -> Optional[tuple]:
        """Describe what a call's ``func`` refers to, for the consequence model to resolve."""
        if isinstance(func, cst.Name):
            name = func.value
            s = scope
            while s is not None and s.info is not None:
                if name in s.info.local_defs:
                    return ("local", s.info.local_defs[name])
                v = s.values.get(name)
                if v is not None:
                    if v[0] == "partial":
                        return v[1]
                    if v[0] == "modules":
                        return ("modules", v[1])
                    if v[0] == "instance":
                        return ("instance_call", v[1])
                    if v[0] == "local_def":
                        return ("local", v[1])
                if name in s.env and s.env[name] != "?":
                    return None
                s = s.parent
            q = self.imports.resolve(func) if not scope.imports.lookup(name) else scope.imports.resolve(func)
            if name in self.summary.module_names and not self.imports.is_imported(name):
                mv = self.summary.module_names[name]
                if mv[0] == "instance":
                    return ("instance_call", mv[1])
                if mv[0] == "partial":
                    return mv[1]
                return ("qual", f"{self.summary.module}.{name}" if self.summary.module else name)
            return ("qual", q) if q else None
        if isinstance(func, cst.Attribute):
            attr = func.attr.value
            base = func.value
            if isinstance(base, cst.Name) and scope.self_name and base.value == scope.self_name:
                return ("self", scope.class_info.qualname if scope.class_info else None, attr)
            if isinstance(base, cst.Call) and dotted(base.func) == "super" and scope.class_info:
                return ("super", scope.class_info.qualname, attr)
            if isinstance(base, cst.Attribute) and isinstance(base.value, cst.Name) and scope.self_name \
                    and base.value.value == scope.self_name:
                return ("self_attr_method", scope.class_info.qualname if scope.class_info else None, base.attr.value, attr)
            if isinstance(base, cst.Name):
                v = None
                s = scope
                while s is not None and v is None:
                    v = s.values.get(base.value)
                    s = s.parent
                if v is None and base.value in self.summary.module_names and not self.imports.is_imported(base.value):
                    v = self.summary.module_names[base.value]
                if v is not None and v[0] == "instance":
                    return ("method", v[1], attr)
                if v is not None:
                    return None
            q = scope.resolve(func)
            return ("qual", q) if q else None
        return None

    def visit_Call(self, node: cst.Call) -> None:
        scope = self.ctx
        func = node.func
        q = scope.resolve(func)
        if q in COMPILE_NAMES:
            self.record_compile(node)
        elif isinstance(func, cst.Attribute) and func.attr.value == "compile":
            self.record_method_compile(node)
        elif isinstance(func, cst.Call) and scope.resolve(func.func) in COMPILE_NAMES and node.args:
            # torch.compile(backend=...)(fn)
            self.record_compile(cst.Call(func=func.func, args=[node.args[0]] + list(func.args)), span_node=node)
        if not self.in_function():
            return
        if isinstance(func, cst.Attribute) and func.attr.value in tensors.TENSOR_METHODS:
            scope.note_tensor_param(func.value)
        if q and q.startswith("torch.") and node.args and tensors.torch_call_kind(q) == "T":
            scope.note_tensor_param(node.args[0].value)
        if scope.kind(func) == "M":
            for a in node.args:
                scope.note_tensor_param(a.value)

    def is_external(self, q: str) -> bool:
        head = q.split(".")[0]
        return head in ("torch", "builtins", "math", "numpy", "np", "functools", "itertools", "operator",
                        "typing", "collections", "print", "len", "range", "isinstance", "super", "sum",
                        "max", "min", "abs", "enumerate", "zip", "list", "tuple", "dict", "set", "int",
                        "float", "bool", "str", "getattr", "setattr", "hasattr", "sorted", "reversed",
                        "map", "filter", "any", "all", "round", "type", "id", "repr", "iter", "next",
                        "logging", "warnings", "time", "random", "os", "sys", "copy", "re", "inspect",
                        "dataclasses", "einops", "math")

    def leave_Call(self, node: cst.Call) -> None:
        # Dynamo breaks at the CALL instruction, after the arguments were traced: record here.
        if not self.in_function():
            return
        scope = self.scope
        self.record_rules(node)
        if not self.suppressed():
            ref = self.callee_ref(node.func, scope)
            if ref is not None and not (ref[0] == "qual" and ref[1] and self.is_external(ref[1])):
                self.add_event(Event("call", self.span(node), tuple(scope.blocks), scope.ops, callee=ref,
                                     call_text=_code(node.func)))
        if likely_tensor(scope.call_kind(node)):
            scope.ops += 1

    def leave_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if self.in_function():
            if isinstance(node.operator, cst.MatrixMultiply):
                self.scope.note_tensor_param(node.left)
                self.scope.note_tensor_param(node.right)
            lk, rk = self.scope.kind(node.left), self.scope.kind(node.right)
            if isinstance(node.operator, ARITHMETIC):
                # `x + 1`, `x * y_tensor`: arithmetic with a number or a tensor is evidence of a tensor
                if rk == "T" or isinstance(node.right, (cst.Integer, cst.Float)):
                    self.scope.note_tensor_param(node.left)
                if lk == "T" or isinstance(node.left, (cst.Integer, cst.Float)):
                    self.scope.note_tensor_param(node.right)
            if likely_tensor(lk) or likely_tensor(rk):
                self.scope.ops += 1
            self.record_rules(node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if self.in_function() and node.attr.value in ("shape", "dtype", "device", "ndim", "T", "mT", "grad", "is_cuda"):
            self.scope.note_tensor_param(node.value)

    def suppressed(self) -> bool:
        return any(b.kind == "eager_only" for b in self.scope.blocks)

    def add_event(self, ev: Event) -> None:
        if self.in_function() and not self.suppressed():
            self.scope.pending.append(ev)

    def record_rules(self, node) -> None:
        rules = self.rules_by_type.get(type(node))
        if not rules or not self.in_function() or self.suppressed():
            return
        for rule in rules:
            try:
                found = rule.check(node, self.scope)
            except Exception as exc:  # a broken rule must not stop the others (GBL000)
                self.summary.rule_errors.append((rule.name, self.span(node).line, describe_exception(exc)))
                continue
            if found is None:
                continue
            if not isinstance(found, (list, tuple)):
                found = (found,)
            for site in found:
                ev = Event(
                    "break", self.span(site.node), tuple(self.scope.blocks), self.scope.ops,
                    code=site.rule.code, rule_name=site.rule.name, gb_ids=tuple(site.gb_ids), detail=site.detail,
                    hint=site.rule.hint, outcome=site.outcome, python_value=site.python_value, needs=site.needs,
                    capturable=site.capturable, needs_capture=site.needs_capture, fix_needs=site.fix_needs)
                self.add_event(ev)
                self._event_nodes[id(site.node)] = ev

    # statements and expressions the rules look at
    def leave_If_test(self, node):
        self.record_rules(node)

    def leave_IfExp_test(self, node):
        self.record_rules(node)

    def leave_BooleanOperation_left(self, node):
        self.record_rules(node)

    def visit_UnaryOperation(self, node):
        self.record_rules(node)

    def visit_FormattedString(self, node):
        self.record_rules(node)

    def visit_Raise(self, node):
        self.record_rules(node)

    def visit_Subscript(self, node):
        self.record_rules(node)

    def visit_Assign(self, node):
        self.record_rules(node)

    # -- compiled regions
    def record_compile(self, call: cst.Call, span_node=None) -> None:
        scope = self.ctx
        fullgraph = _literal(_kwarg(call, "fullgraph")) is True
        if _literal(_kwarg(call, "disable")) is True:
            return
        span = self.span(span_node or call)
        if not call.args or call.args[0].keyword is not None:
            return  # decorator form with options: handled on the FunctionDef
        target = call.args[0].value
        fn = self.scope.info.qualname if self.in_function() else None
        if isinstance(target, cst.Call):
            ref = self.callee_ref(target.func, scope)
            if ref:
                self.summary.regions.append(RegionDecl(("class", ref), fullgraph, span, "torch.compile(Module())", fn))
            return
        ref = self.callee_ref(target, scope)
        if isinstance(target, cst.Name) and ref is not None:
            if ref[0] == "instance_call":
                self.summary.regions.append(RegionDecl(("class", ref[1]), fullgraph, span, "torch.compile(model)", fn))
            else:
                self.summary.regions.append(RegionDecl(("func", ref), fullgraph, span, "torch.compile(fn)", fn))
        elif ref is not None:
            if ref[0] == "self_attr_method" or ref[0] == "self":
                self.summary.regions.append(RegionDecl(("func", ref), fullgraph, span, "torch.compile(fn)", fn))
            elif ref[0] == "method":
                self.summary.regions.append(RegionDecl(("func", ref), fullgraph, span, "torch.compile(obj.method)", fn))

    def record_method_compile(self, call: cst.Call) -> None:
        func = call.func
        base = func.value
        scope = self.ctx
        span = self.span(call)
        fullgraph = _literal(_kwarg(call, "fullgraph")) is True
        fn = self.scope.info.qualname if self.in_function() else None
        if isinstance(base, cst.Name):
            if scope.self_name and base.value == scope.self_name and scope.class_info:
                self.summary.regions.append(RegionDecl(("class", ("qual", self.qual(scope.class_info.qualname))),
                                                       fullgraph, span, "self.compile()", fn))
                return
            v = None
            s = scope
            while s is not None and v is None:
                v = s.values.get(base.value)
                s = s.parent
            if v is None:
                v = self.summary.module_names.get(base.value)
            if v is not None and v[0] == "instance":
                self.summary.regions.append(RegionDecl(("class", v[1]), fullgraph, span, "model.compile()", fn))

    def qual(self, name: str) -> str:
        return f"{self.summary.module}.{name}" if self.summary.module else name

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        # decorator regions: @torch.compile / @torch.compile(...)
        for d in node.decorators:
            expr = d.decorator
            call = expr if isinstance(expr, cst.Call) else None
            q = self.ctx.resolve(call.func if call else expr)
            if q in COMPILE_NAMES:
                if call is not None and _literal(_kwarg(call, "disable")) is True:
                    continue
                fullgraph = call is not None and _literal(_kwarg(call, "fullgraph")) is True
                qual = self.function_qual(node)
                self.summary.regions.append(RegionDecl(("func", ("defined", qual)), fullgraph, self.span(d),
                                                       "@torch.compile", None))

    def function_qual(self, node: cst.FunctionDef) -> str:
        return self._def_quals.get(id(node), node.name.value)


def _names_in(node) -> List[str]:
    out = []

    class _V(cst.CSTVisitor):
        def visit_Name(self, n):
            out.append(n.value)

        def visit_Lambda(self, n):
            return False

    node.visit(_V())
    return out
