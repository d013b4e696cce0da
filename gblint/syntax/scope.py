"""Per-function state during the traversal: names, imports and the tensor kind of expressions.

A :class:`FunctionScope` is what rules receive as ``ctx``: it resolves names through the
file's imports (``T.compile`` -> ``torch.compile``), infers the kind of an expression (a tensor,
a Python value, a module... see :mod:`gblint.abstract.tensors`) from the bindings seen so far, and holds
the stack of blocks around the current statement and the events found in the function.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Protocol

import libcst as cst

from ..abstract import tensors
from ..core.model import (PARAM_PREFIX, Binding, Block, BlockKind, ClassInfo, ContainerValue, Event, Expr, FileSummary,
                          FunctionInfo, Kind, ModuleAttr, NnModuleAttr, Span, TensorAttr)
from ..core.ops import Op
from ..core.names import BUILTIN_NAMES, ImportTable, dotted
from ..core.semantics import COMPILING_PREDICATES, IS_COMPILING
from ..abstract.tensors import join, likely_tensor, maybe_tensor
from .cells import unstable_cells
from .self_stores import dominated_reads

_Attribute, _Name = cst.Attribute, cst.Name


def _dotted(node) -> Optional[str]:
    """:func:`gblint.core.names.dotted` for the hot path: exact type checks (a parsed tree holds no
    subclasses of libcst's node classes) instead of ``isinstance`` through their ABC metaclass."""
    parts = []
    while type(node) is _Attribute:
        parts.append(node.attr.value)
        node = node.value
    if type(node) is _Name:
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


class _Env(dict):
    """A scope's name -> kind table that forgets memoised expression kinds when it changes."""

    def __init__(self, memo: Dict[int, str], items=()):
        super().__init__(items)
        self._memo = memo

    def __setitem__(self, key, value):
        self._memo.clear()
        super().__setitem__(key, value)

    def pop(self, *args):
        """Remove ``key`` (forgetting memoised kinds), as :meth:`dict.pop`."""
        self._memo.clear()
        return super().pop(*args)


class FunctionScope:
    """Per-function state handed to rules as ``ctx``: names, tensor kinds, blocks.

    ``builder`` is the :class:`gblint.syntax.summary.SummaryBuilder` reading the file (for the Dynamo
    config and the module's bindings); ``info`` None is the module's own scope; ``params`` maps
    parameter names to their kinds before any use is seen.
    """

    def __init__(self, builder, info: Optional[FunctionInfo], imports: ImportTable,
                 params: Dict[str, str], parent: Optional["FunctionScope"], class_info: Optional[ClassInfo]):
        self.builder = builder
        self.info = info
        self.imports = imports
        self.parent = parent
        self.class_info = class_info
        self._kinds: Dict[int, str] = {}  # kind() of nodes since the last binding changed
        self._guards: Dict[int, Optional[bool]] = {}  # compiling_guard() of nodes
        self.env: Dict[str, str] = _Env(self._kinds, params)  # local name -> kind token
        self.values: Dict[str, Binding] = {}  # local name -> what it is bound to (manager, instance, layer)
        self.params = set(params)
        self.self_name: Optional[str] = None
        self.tensor_params: set = set()
        self.blocks: List[Block] = []
        self.ops = 0
        self.exits = 0  # `return`/`continue`/`break` statements read so far (Block.exits_at_entry, Event.exits)
        self.pending: List[Event] = []
        self.is_generator = False
        self.notes: Dict[str, object] = {}  # local name -> what a rule noted it holds (rules.notes)
        self.guessed: set = set()  # locals whose tensor kind is a guess (bound from a guessed self attribute)
        self.kind_gates: dict = {}  # local -> a tensor only when this test holds (gblint.syntax.arm_kinds.Gate)
        self.arm_stack: list = []  # the `if`/`match` statements being read (gblint.syntax.arm_kinds.ArmKinds)
        self.resolving: Optional[Dict[int, Optional[str]]] = None  # resolve() memo while the rules run (read only)
        self.masks: set = set()  # locals bound to a boolean mask tensor (gblint.abstract.tensors.mask_kind)
        self.numpy_locals: set = set()  # locals bound to a NumPy array made from Python values (tensors.numpy_made)
        self.store_targets: set = set()  # id() of subscripts assigned to (`x[m] = v` reads nothing)
        self.local_values: dict = {}  # local name -> gblint.abstract.values.Expr it was last bound to (outside loops)
        self.loop_values: dict = {}  # id() of a `for` loop's block -> {target name: its element} (value_syntax.loop_values)
        self.pending_loop: dict = {}  # the same for the `for` statement being entered
        self.comp_names: list = []  # (first CompFor, names, node) of the comprehensions around (value_syntax.COMP)
        self.comp_iter_blocks: list = []  # the comprehension block set aside while its first iterable is read
        self.outside: list = []  # value_syntax.outside_comprehension contexts entered (iterables being read)
        self.if_values: list = []  # the `if` statements around, whose arms' bindings are merged (bindings._IfValues)
        self.handed: dict = {}  # id() of a name handed to a call -> what it held then (summary.note_handed)
        self.mutated: set = set()  # names changed in place or handed to a call (see FunctionInfo.mutated)
        self.mutated_at: list = []  # (name, branch tests around) of each place (see FunctionInfo.mutated_when)
        self.mutated_keys: dict = {}  # name -> the gblint.abstract.keyed.Key of each change, None after one naming no key
        self.escaped: set = set()  # parameters another object may hold (`holder.d = kwargs`: gblint.abstract.keyed)
        self.escaped_locals: set = set()  # the same for locals, ``self.d = d`` included
        self.local_aliases: dict = {}  # local -> the other locals bound to its object (`a = b`, `a = [b]`)
        self.declared_global: set = set()  # names of a `global` statement in the body
        self.rebound: set = set()  # names assigned so far in the body: a parameter among them no longer holds the argument
        self.in_loop_values: list = []  # blocks and events with values recorded inside a loop (see values.forget)
        self.item_loop: Dict[int, int] = {}  # id() of an in_loop_values item -> id() of the outermost loop block around it
        self.loop_binds: Dict[int, Dict[str, list]] = {}  # id() of an outermost loop block -> name -> guards it is bound under
        self.loop_params: Dict[int, frozenset] = {}  # id() of an outermost loop block -> parameters not rebound above it
        self.loop_runs: Dict[int, tuple] = {}  # id() of a `for` loop block -> (test that it runs a step, names its body binds)
        self.returned_in_branch = False  # a `return` under an `if` was seen: a later top-level `raise` is a fallback
        self.bound_names: set = set()  # names the body assigns (FunctionInfo.locals), so far in the traversal
        self.written: set = set()  # id() of augmented and annotated assignment targets (no attribute read event)
        self.read_keys: set = set()  # attribute reads recorded as events (one per value and blocks)
        self.def_node: Optional[cst.FunctionDef] = None  # the def read (None for a lambda, the module)
        self._unstable: Optional[set] = None  # value_syntax.unstable_cells of def_node, when first asked
        self._dominated: Optional[Dict[int, int]] = None  # self_stores.dominated_reads of def_node, when first asked
        self.self_store_values: Dict[int, Expr] = {}  # id(a `self.X` store's target) -> the value it stored

    # -- names
    def resolve(self, node: cst.BaseExpression) -> Optional[str]:
        """Dotted name ``node`` stands for, through imports (``T.compile`` -> ``torch.compile``)."""
        memo = self.resolving
        if memo is None:
            return self._resolve(node)
        key = id(node)
        if key not in memo:
            memo[key] = self._resolve(node)
        return memo[key]

    def _resolve(self, node: cst.BaseExpression) -> Optional[str]:
        text = _dotted(node)
        if text is None:
            return None
        head, _, rest = text.partition(".")
        scope = self
        while scope is not None:
            if head in scope.env and head not in scope.imports.names:
                # a local variable, not a module path; unless what it holds here is one (`u = torch.unique`)
                bound = scope.local_values.get(head)
                if bound is not None and bound.op == Op.GLOBAL and "." in bound.value:
                    return f"{bound.value}.{rest}" if rest else bound.value
                return None
            scope = scope.parent
        target = self.imports.lookup(head)  # ImportTable.resolve, on the name already spelled out
        if target is None and head in BUILTIN_NAMES and head in self.builder.summary.module_names:
            module = self.builder.summary.module  # `def print(...)` of the module: no builtin (measured: kinds kd4)
            return f"{module}.{text}" if module else None
        if target is None:
            return text
        return f"{target}.{rest}" if rest else target

    def config(self, name: str, default=None):
        """The Dynamo config value ``name`` for this file (module-level overrides, then settings)."""
        return self.builder.config_value(name, default)

    def holds(self, fact: str) -> bool:
        """Whether the version-dependent fact ``fact`` (:data:`gblint.core.versions.FACTS`) holds for
        the torch and Python predicted for. Raises KeyError for an unknown fact."""
        return self.builder.holds(fact)

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
            if q.startswith("torch.jit."):  # TorchScript's own queries (`torch.jit.is_tracing`), not Dynamo's
                return None
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
            # `X and not is_compiling()` is False under Dynamo whatever X is (X is still evaluated)
            if isinstance(test.operator, cst.And) and right is False:
                return False
            if isinstance(test.operator, cst.Or) and right is True:
                return True
            if left is not None and right is not None:
                return (left and right) if isinstance(test.operator, cst.And) else (left or right)
        return None

    # -- tensor kinds
    def lookup(self, name: str) -> Optional[str]:
        """The kind of local ``name`` in this scope or an enclosing one, or None when unbound."""
        scope = self
        while scope is not None:
            if name in scope.env:
                if scope is not self and name in scope.unstable_cells():
                    return Kind.UNKNOWN  # the nested function reads whichever binding ran last
                return scope.env[name]
            scope = scope.parent
        return None

    def note_in_loop(self, item) -> None:
        """``item`` (a Block or an Event with values) is recorded inside a loop: a parameter it reads may hold
        what a later step of the outermost loop around it binds (:func:`gblint.abstract.loop_binds.loop_forget`)."""
        loop = next((b for b in self.blocks if b.kind == BlockKind.LOOP), None)
        if loop is not None:
            self.in_loop_values.append(item)
            self.item_loop[id(item)] = id(loop)

    def note_aliases(self, name: str, held) -> None:
        """``name = other`` (or ``[other]``...): from here the objects of the locals ``held`` (names) have ``name``
        too, or are held by what it names."""
        for other in held:
            if other != name and other in self.bound_names:
                self.local_aliases.setdefault(name, set()).add(other)
                self.local_aliases.setdefault(other, set()).add(name)

    def same_object(self, name: str) -> set:
        """The other locals that may name the object the local ``name`` holds (:meth:`note_alias`, followed)."""
        found, todo = set(), [name]
        while todo:
            for other in self.local_aliases.get(todo.pop(), ()):
                if other != name and other not in found:
                    found.add(other)
                    todo.append(other)
        return found

    def note_loop_entry(self) -> None:
        """A loop block was just entered: when it is the outermost, the parameters that hold their arguments there."""
        if sum(b.kind == BlockKind.LOOP for b in self.blocks) == 1:
            self.loop_params[id(self.blocks[-1])] = frozenset(p for p in self.params if p not in self.rebound)

    def note_loop_bind(self, name: str) -> None:
        """``name`` is bound here: inside a loop, under the tests of the branches around it in the outermost loop
        (:data:`loop_binds`; a binding in code that runs only eagerly is none)."""
        first = next((i for i, b in enumerate(self.blocks) if b.kind == BlockKind.LOOP), None)
        if first is None:
            return
        tests = []
        for b in self.blocks[first + 1:]:
            if b.kind == BlockKind.EAGER_ONLY:
                return
            if b.kind in (BlockKind.BRANCH, BlockKind.ERROR_PATH) and b.test is not None:
                tests.append(b.test)
        guard = None if not tests else tests[0] if len(tests) == 1 else Expr(Op.AND, parts=tuple(tests))
        self.loop_binds.setdefault(id(self.blocks[first]), {}).setdefault(name, []).append(guard)

    def unstable_cells(self) -> set:
        """Names of this function a nested function cannot take from one binding
        (:func:`gblint.syntax.value_syntax.unstable_cells`)."""
        if self._unstable is None:
            self._unstable = unstable_cells(self.def_node, self.params) if self.def_node is not None else set()
        return self._unstable

    def dominated_reads(self) -> Dict[int, int]:
        """``{id(read): id(store target)}``: the ``self.X`` reads of this function that the store just before decides
        (:func:`gblint.syntax.self_stores.dominated_reads`)."""
        if self._dominated is None:
            node = self.def_node
            self._dominated = dominated_reads(node.body, self.self_name) \
                if node is not None and self.self_name and self.info is not None else {}
        return self._dominated

    def stored_value(self, node: cst.Attribute) -> Optional[Expr]:
        """What the store just before the read ``node`` (``self.X``) put there, where it decides the read and the
        class defines no property or ``__setattr__`` of its own (None otherwise)."""
        target = self.dominated_reads().get(id(node))
        if target is None or target not in self.self_store_values or self.intercepted(node.attr.value):
            return None
        return self.self_store_values[target]

    def intercepted(self, attr: str) -> bool:
        """Whether the class of this method, as read so far, may make ``self.<attr>`` something else than what
        was stored: it defines ``__setattr__`` or ``__getattribute__`` (a method, or a class attribute set to a
        function), or makes ``attr`` a method, property or other class attribute than a constant (a descriptor,
        ``flag = AsBool()``, whose ``__set__``/``__get__`` may keep or give anything). A base class's hooks are not
        seen here (its file may not be read yet): the walk's value model sees them
        (:mod:`gblint.abstract.attr_hooks`), a kind this scan gives from the class's own stores does not."""
        info = self.class_info
        if info is None:
            return False
        hooks = ("__setattr__", "__getattribute__")
        if any(h in info.methods or h in info.values for h in hooks) or attr in info.methods:
            return True
        value = info.values.get(attr)
        return value is not None and value.op != Op.CONST

    def self_attr_ref(self, attr: str):
        """What ``self.<attr>`` was assigned in the class (a :class:`gblint.core.model.Binding`), or None where
        none was or the class intercepts the attribute (:meth:`intercepted`)."""
        if self.class_info is None or self.intercepted(attr):
            return None
        return self.class_info.attrs.get(attr)

    def kind(self, node: cst.BaseExpression) -> str:
        """Kind token of an expression (see :mod:`gblint.abstract.tensors`), memoised until a binding
        changes: long operator chains would otherwise be re-walked at every level."""
        key = id(node)
        found = self._kinds.get(key)
        if found is None:
            found = self._kinds[key] = self._kind(node)
        return found

    def _kind(self, node: cst.BaseExpression) -> str:
        """Kind token of an expression (see :mod:`gblint.abstract.tensors`)."""
        if isinstance(node, cst.Name):
            k = self.lookup(node.value)
            if k is not None:
                return k
            return Kind.UNKNOWN
        if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString,
                             cst.ConcatenatedString, cst.FormattedString)):
            return Kind.PYTHON
        if isinstance(node, cst.Attribute):
            attr = node.attr.value
            if isinstance(node.value, cst.Name) and node.value.value == self.self_name and self.class_info:
                ref = self.self_attr_ref(attr)
                if isinstance(ref, TensorAttr):
                    return Kind.TENSOR
                if isinstance(ref, (ModuleAttr, ContainerValue, NnModuleAttr)):
                    return Kind.MODULE
                return Kind.UNKNOWN
            base = self.kind(node.value)
            if likely_tensor(base):
                if attr in tensors.PY_ATTRS:
                    return Kind.PYTHON
                if attr in tensors.TENSOR_ATTRS:
                    return base
                return Kind.UNKNOWN
            q = self.resolve(node)
            if q and q.startswith("torch."):
                return Kind.PYTHON
            return Kind.UNKNOWN
        if isinstance(node, cst.Call):
            return self.call_kind(node)
        if isinstance(node, cst.Subscript):
            base = self.kind(node.value)
            if likely_tensor(base):
                return base
            if base == Kind.MODULE:
                return Kind.MODULE
            return Kind.PYTHON if base == Kind.PYTHON else Kind.UNKNOWN
        if isinstance(node, cst.BinaryOperation):
            return join(self.kind(node.left), self.kind(node.right))
        if isinstance(node, cst.UnaryOperation):
            return self.kind(node.expression)
        if isinstance(node, cst.Comparison):
            if all(isinstance(t.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) or _to_none(t, node)
                   for t in node.comparisons):
                return Kind.PYTHON
            return join(self.kind(node.left), *[self.kind(t.comparator) for t in node.comparisons])
        if isinstance(node, cst.BooleanOperation):
            return join(self.kind(node.left), self.kind(node.right))
        if isinstance(node, cst.IfExp):
            k = join(self.kind(node.body), self.kind(node.orelse))
            return k
        return Kind.UNKNOWN

    def known_tensor(self, node: cst.BaseExpression) -> Optional[str]:
        """The kind token of ``node`` when it is a tensor by inference rather than by a guess:
        ``"T"``, or ``"p:NAME"`` (a tensor if parameter NAME turns out to be one, see
        :meth:`resolve_token`); None when it is not, or may not be, a tensor. A ``self`` attribute
        assigned a value not known to be a tensor (``self.use_res = inp == oup``), and locals bound
        from one, are guesses: they are reported as tensors, never rewritten as ones."""
        k = self.kind(node)
        if not maybe_tensor(k) or self.guessed_expr(node):
            return None
        if tensors.numpy_made(node, self):
            return None  # traced as a tensor, but an ndarray when run: a torch rewrite does not apply
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
                    ref = self.self_attr_ref(n.attr.value)
                    if isinstance(ref, TensorAttr) and not ref.known:
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
        """Kind of the value a call returns (tensor methods, torch functions, builtins, modules)."""
        func = node.func
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            recv = self.kind(func.value)
            if likely_tensor(recv):
                if method == "item":
                    return Kind.SCALAR
                if method == "numpy" and self.config("trace_numpy", True):
                    return recv  # Dynamo traces the ndarray as a tensor (torch._numpy, semantics.md §7.1)
                if method in tensors.PY_METHODS:
                    return Kind.PYTHON
                return recv
            if recv == Kind.MODULE:
                return Kind.TENSOR if method in ("forward", "__call__") else Kind.UNKNOWN
        q = self.resolve(func)
        if q:
            k = tensors.torch_call_kind(q)
            if k != Kind.UNKNOWN:
                return k
            if q.startswith("numpy.") and self.config("trace_numpy", True):
                if tensors.numpy_scalar_call(q, node):
                    return Kind.PYTHON  # `np.random.rand()`: a Python float, after a break (measured: kinds kd2)
                if tensors.numpy_array_call(q):
                    return Kind.TENSOR  # an ndarray, whatever it is made from: traced as a tensor (tensors.NUMPY_MODULES)
                if q in tensors.NUMPY_PYTHON_RESULTS or q.rpartition(".")[2] in tensors.NUMPY_PY_FUNCS:
                    return Kind.PYTHON  # `np.ndim(t)`, `np.shape(t)`: a Python value (measured: tests/cases/kinds kc9)
                ks = [self.kind(a.value) for a in node.args]
                k = next((k for k in ks if maybe_tensor(k)), None)
                if k is not None:
                    return k  # NumPy on a traced ndarray is traced too (a tensor if the argument is one)
            if q in ("int", "float") and len(node.args) == 1 and likely_tensor(self.kind(node.args[0].value)):
                return Kind.SCALAR
            if q in ("len", "int", "float", "bool", "str", "isinstance", "range", "hasattr", "id", "type",
                     "repr", "tuple", "list", "dict", "set", "enumerate", "zip", "getattr", "callable"):
                if q == "getattr" and len(node.args) > 1 and maybe_tensor(self.kind(node.args[0].value)):
                    # as the attribute read `x.name` would be: a tensor's tensor attribute, else not known
                    name = node.args[1].value
                    name = name.evaluated_value if isinstance(name, cst.SimpleString) else None
                    if name in tensors.PY_ATTRS:
                        return Kind.PYTHON
                    return self.kind(node.args[0].value) if name in tensors.TENSOR_ATTRS else Kind.UNKNOWN
                return Kind.PYTHON
            if q in ("sum", "max", "min", "abs"):
                ks = [self.kind(a.value) for a in node.args]
                return Kind.TENSOR if Kind.TENSOR in ks else Kind.UNKNOWN
        fk = self.kind(func)
        if fk == Kind.MODULE:
            return Kind.TENSOR
        if q is None or not q.startswith(("torch.", "builtins.")):
            if any(likely_tensor(self.kind(a.value)) for a in node.args):
                return Kind.PROBABLE
        return Kind.UNKNOWN

    def note_tensor_param(self, node: cst.BaseExpression) -> None:
        """Record evidence that a parameter is a tensor (it is used as one)."""
        if isinstance(node, cst.Name) and node.value in self.params and self.env.get(node.value, "").startswith(PARAM_PREFIX):
            self.tensor_params.add(node.value)

    def resolve_token(self, token: Optional[str]) -> bool:
        """Whether a rule's ``needs`` token holds once the function has been read: None and
        ``TENSOR`` always, ``p:NAME`` when parameter NAME was used as a tensor."""
        if token is None:
            return True
        if token == Kind.TENSOR:
            return True
        if token.startswith(PARAM_PREFIX):
            return token[len(PARAM_PREFIX):] in self.tensor_params
        return False


class ReadingHost(Protocol):
    """What the summary builder's collaborators (:class:`gblint.syntax.flows.Flows`, :class:`gblint.syntax.bindings.Bindings`)
    read of the traversal (:class:`gblint.syntax.summary.SummaryBuilder`): the file's summary, the class bodies and the
    function being read, where a node is, and what a node's value is."""

    summary: FileSummary
    scope: Optional[FunctionScope]
    class_stack: List[ClassInfo]

    @property
    def ctx(self) -> FunctionScope: ...

    def in_function(self) -> bool: ...

    def suppressed(self) -> bool: ...

    def span(self, node: cst.CSTNode) -> Span: ...

    def value_of(self, node: cst.BaseExpression) -> Expr: ...


def _to_none(target: cst.ComparisonTarget, node: cst.Comparison) -> bool:
    """Whether ``target`` of the comparison ``node`` is ``== None`` or ``!= None`` (with ``None`` on either side of a
    one-operator comparison): a tensor's ``__eq__`` answers NotImplemented for None, so Python compares identities
    and the result is a bool, traced as a constant (measured: tests/cases/kinds kd1)."""
    if not isinstance(target.operator, (cst.Equal, cst.NotEqual)):
        return False
    sides = [target.comparator] + ([node.left] if len(node.comparisons) == 1 else [])
    return any(isinstance(s, cst.Name) and s.value == "None" for s in sides)
