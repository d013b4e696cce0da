"""gblint's data model: what a file's summary holds, and the frames and regions built on it.

The summary stage (:mod:`gblint.syntax.summary`) produces these records in one traversal per file; the index
(:mod:`gblint.dynamo.index`) resolves their call targets to :class:`Frame` objects, and the consequence model
(:mod:`gblint.dynamo.consequences`) reads only them, never a syntax tree. The summary classes are plain data:
:mod:`gblint.project.cache` stores them as JSON and decodes them into exactly these classes (:data:`CACHED_TYPES`).
The words of the enums are gblint's output vocabulary: each member equals, hashes and prints as its word
(``Outcome.SKIP == "skip"``), so the output keeps its strings.
"""
from __future__ import annotations

import dataclasses
import enum
from typing import Dict, List, Optional, Tuple, Union

from .hashing import cached_eq, cached_hash, rebuild
from .ops import Op


class Words(str, enum.Enum):
    """An enum whose members are their words: equal to them, and printed as them."""

    def __str__(self) -> str:
        return str.__str__(self)

    def __format__(self, spec: str) -> str:
        return str.__format__(str.__str__(self), spec)


# ----------------------------------------------------------------------------- kinds and outcomes


class Kind(Words):
    """What a value is, as far as Dynamo cares (:mod:`gblint.abstract.tensors`). Besides these, a kind
    may be a parameter token ``"p:NAME"`` (:func:`param_kind`): a tensor if parameter NAME
    turns out to be one, resolved once the whole function has been read."""

    TENSOR = "T"
    PROBABLE = "~"  # probably a tensor: a user function's result when called with tensors
    SCALAR = "S"  # a Python scalar read out of tensor data (`.item()`, `float(t)`)
    PYTHON = "P"  # a Python value Dynamo guards on (sizes, dtypes, constants)
    MODULE = "M"  # an nn.Module object
    SELF = "self"  # the `self` of a method
    UNKNOWN = "?"


PARAM_PREFIX = "p:"


def param_kind(name: str) -> str:
    """The kind token of parameter ``name``: a tensor if the parameter turns out to be one."""
    return PARAM_PREFIX + name


class Outcome(Words):
    """What a graph break does to the frame that meets it (``docs/semantics.md`` rules 1-5).

    A break site's own outcome (what its rule says) is ``RESUME``, ``SKIP``, ``TAIL`` or
    ``RAISE``; the consequence model's verdict for a frame is ``RESUME``, ``TAIL``, ``SKIP`` or
    ``ERROR``. :attr:`status` and :attr:`effect` give the words the output uses for it.
    """

    RESUME = "resume"  # the graph is split, tracing resumes after the break (+1 graph)
    TAIL = "tail"  # the graph up to the last checkpoint is compiled, the rest of the frame runs eagerly
    SKIP = "skip"  # the frame gets no graph: Dynamo skips it and runs it eagerly
    ERROR = "error"  # a compile error (fullgraph=True, error_on_graph_break(True))
    RAISE = "raise"  # an uncaught `raise`: skips the frame unless a `try` on the way catches it

    @property
    def severity(self) -> int:
        """How bad a verdict is, for picking the worst of several (0 for ``RAISE``)."""
        return _SEVERITY[self]

    @property
    def status(self) -> str:
        """The word ``--explain`` uses for a frame with this verdict."""
        return _STATUS[self]

    @property
    def effect(self) -> str:
        """The ``effect`` of a diagnostic reporting this verdict (``Diagnostic.effect``): the
        frame keeps a graph (``break``), gets none (``skip``), or fails (``error``)."""
        return _EFFECT[self]


_SEVERITY = {Outcome.RESUME: 1, Outcome.TAIL: 2, Outcome.SKIP: 3, Outcome.ERROR: 4, Outcome.RAISE: 0}
_STATUS = {Outcome.RESUME: "compiled", Outcome.TAIL: "tail", Outcome.SKIP: "skipped", Outcome.ERROR: "failed",
           Outcome.RAISE: "skipped"}
_EFFECT = {Outcome.RESUME: "break", Outcome.TAIL: "break", Outcome.SKIP: "skip", Outcome.ERROR: "error",
           Outcome.RAISE: "skip"}


class EventKind(Words):
    """What an :class:`Event` records."""

    BREAK = "break"  # a break site found by a rule
    CALL = "call"  # a call gblint may follow
    WITH = "with"  # a `with` of a manager Dynamo cannot wrap (GB0142)
    COMP = "comp"  # a comprehension or generator expression (its block is the event's last one)


class BlockKind(Words):
    """A block around a statement, as Dynamo's frame semantics distinguish them."""

    LOOP = "loop"  # a for/while body
    WHILE_TEST = "while_test"  # a while condition
    TRY = "try"
    WITH = "with"
    BRANCH = "branch"  # an if/else body that runs under Dynamo
    OPERAND = "operand"  # the right operand of `and`/`or`
    COMP = "comp"  # a list, set or dict comprehension
    GENEXPR = "genexpr"
    EAGER_ONLY = "eager_only"  # code that never runs under Dynamo (`if not is_compiling():`, a local class)
    ERROR_PATH = "error_path"  # runs only when an exception is raised: a branch that raises, an `except` body
    AFTER_RETURN = "after_return"  # after an `if` whose body returns: runs only when its test was false
    HANDLER = "handler"  # an except/else/finally clause: a break there cannot resume, its try does not catch a raise
    TRY_ELSE = "try_else"  # the else clause of a try without finally: outside its exception table, a break resumes
    GATE = "gate"  # a break that happens only when its test (on the values called with) is known to hold


class ManagerKind(Words):
    """What a ``with`` item's manager does with a break inside (``docs/semantics.md`` §2)."""

    RESUMABLE = "resumable"  # a break inside resumes
    GENERIC = "generic"  # a break inside cannot resume (GB0066)
    UNSUPPORTED = "unsupported"  # Dynamo cannot wrap it: the frame is skipped even without a break (GB0142)
    FAILS = "fails"  # Dynamo's trace of it raises an internal error: the call raises (semantics §8.13)


# ----------------------------------------------------------------------------- call targets


@dataclasses.dataclass(frozen=True)
class CallTarget:
    """What a call's function (or a compiled object, or a value's class) refers to, as the
    summary records it from one file, by name. Calls are resolved by the interpreter
    (:mod:`gblint.abstract.interp`); these refs remain in the bindings, region declarations and the
    call tree's library names (issue 39: to be replaced by the interpreter's values)."""


@dataclasses.dataclass(frozen=True)
class LocalFunction(CallTarget):
    """A function defined in the same file, by qualified name (``f``, ``outer.inner``, a
    lambda ``outer.<lambda:LINE:COL>``)."""

    qualname: str


@dataclasses.dataclass(frozen=True)
class Dotted(CallTarget):
    """A dotted name, imports resolved (``pkg.mod.f``, ``pkg.mod.Class``, ``torch.nn.LSTM``)."""

    name: str


@dataclasses.dataclass(frozen=True)
class SelfMethod(CallTarget):
    """``self.name(...)`` in a method of class ``cls``: a method, or a module attribute."""

    cls: Optional[str]
    name: str


@dataclasses.dataclass(frozen=True)
class SuperMethod(CallTarget):
    """``super().name(...)`` in a method of class ``cls``."""

    cls: str
    name: str


@dataclasses.dataclass(frozen=True)
class SelfAttrMethod(CallTarget):
    """``self.attr.name(...)`` in a method of class ``cls``: a method of the module ``attr``."""

    cls: Optional[str]
    attr: str
    name: str


@dataclasses.dataclass(frozen=True)
class Method(CallTarget):
    """``obj.name(...)`` where ``obj`` was bound to an instance of class ``cls``."""

    cls: CallTarget
    name: str


@dataclasses.dataclass(frozen=True)
class InstanceCall(CallTarget):
    """``obj(...)`` where ``obj`` was bound to an instance of class ``cls`` (its ``forward`` for
    an ``nn.Module``, else its ``__call__``)."""

    cls: CallTarget


@dataclasses.dataclass(frozen=True)
class Modules(CallTarget):
    """A layer of an ``nn.ModuleList``/``nn.Sequential``: one of ``classes``."""

    classes: Tuple[CallTarget, ...]


# ----------------------------------------------------------------------------- bindings


@dataclasses.dataclass(frozen=True)
class Binding:
    """What a name, or a ``self`` attribute, is bound to, as far as gblint follows values."""


@dataclasses.dataclass(frozen=True)
class OtherValue(Binding):
    """A value gblint does not follow (not a call)."""


@dataclasses.dataclass(frozen=True)
class CallResult(Binding):
    """The result of calling dotted name ``name`` (whose first component is ``head``); both None
    when the function has no name."""

    name: Optional[str]
    head: Optional[str]


@dataclasses.dataclass(frozen=True)
class ManagerValue(Binding):
    """A context manager built by a constructor gblint knows (:mod:`gblint.core.semantics`)."""

    name: str


@dataclasses.dataclass(frozen=True)
class LoggerValue(Binding):
    """A ``logging.Logger`` (``logging.getLogger(...)``)."""


@dataclasses.dataclass(frozen=True)
class CompiledValue(Binding):
    """The result of ``torch.compile(...)``."""


@dataclasses.dataclass(frozen=True)
class PartialValue(Binding):
    """``functools.partial(f, ...)``: calling it calls ``target``."""

    target: CallTarget


@dataclasses.dataclass(frozen=True)
class InstanceValue(Binding):
    """An instance of class ``cls`` (a name that starts with a capital letter, called)."""

    cls: CallTarget


@dataclasses.dataclass(frozen=True)
class ContainerValue(Binding):
    """An ``nn.ModuleList`` (``kind`` ``list``), ``nn.Sequential`` (``sequential``) or
    ``nn.ModuleDict`` (``dict``) of modules of ``classes``."""

    kind: str
    classes: Tuple[CallTarget, ...]


@dataclasses.dataclass(frozen=True)
class LayerValue(Binding):
    """A layer taken from a container by a loop: a module of one of ``classes``."""

    classes: Tuple[CallTarget, ...]


@dataclasses.dataclass(frozen=True)
class LocalDefValue(Binding):
    """A function or lambda defined in the enclosing function, by qualified name."""

    qualname: str


@dataclasses.dataclass(frozen=True)
class Definition(Binding):
    """A module-level ``def`` or ``class``."""


@dataclasses.dataclass(frozen=True)
class ModuleAttr(Binding):
    """A ``self`` attribute assigned an instance of one of ``classes`` (a submodule, or any object)."""

    classes: Tuple[CallTarget, ...]


@dataclasses.dataclass(frozen=True)
class NnModuleAttr(Binding):
    """A ``self`` attribute assigned a ``torch.nn`` module, by dotted name."""

    name: str


@dataclasses.dataclass(frozen=True)
class TensorAttr(Binding):
    """A ``self`` attribute that holds a tensor: ``known`` (an ``nn.Parameter``, a value known to
    be a tensor), or a guess (a value that may be one: reported as a tensor, never rewritten)."""

    known: bool


# ----------------------------------------------------------------------------- fix requests


@dataclasses.dataclass(frozen=True)
class FixRequest:
    """What a diagnostic's fix would rewrite; :mod:`gblint.fixing.fixes` turns it into edits."""


@dataclasses.dataclass(frozen=True)
class ConfigFix(FixRequest):
    """Advice without edits: set ``torch._dynamo.config.<setting> = True``."""

    setting: str


@dataclasses.dataclass(frozen=True)
class LoopFix(FixRequest):
    """Unroll the loop at ``line``, or move it into a helper, for the break at ``anchor_line``
    of ``frame``."""

    line: int
    anchor_line: int
    frame: str


@dataclasses.dataclass(frozen=True)
class BlockFix(FixRequest):
    """Move the breaking statement at ``anchor_line`` out of the ``with`` or ``try`` block
    (``block``) at ``line`` of ``frame``."""

    block: BlockKind
    line: int
    anchor_line: int
    frame: str


@dataclasses.dataclass(frozen=True)
class DisableFix(FixRequest):
    """Decorate ``function`` (defined at ``line``) with ``@torch.compiler.disable``."""

    line: int
    function: str


@dataclasses.dataclass(frozen=True)
class WhereFix(FixRequest):
    """Replace the ``if`` on a tensor at ``line`` of ``frame``: by ``torch.where`` when it selects
    between tensors, by ``torch._assert_async`` when it only raises (a validation guard)."""

    line: int
    frame: str = ""


@dataclasses.dataclass(frozen=True)
class LogFix(FixRequest):
    """Remove the break of the logging call on ``line`` of ``frame``: list its function in
    ``torch._dynamo.config.reorderable_logging_functions`` when Dynamo can reorder it
    (``reorderable``: its arguments are literals and known tensors), else guard it with
    ``if not torch.compiler.is_compiling():``."""

    line: int
    frame: str
    reorderable: bool


@dataclasses.dataclass(frozen=True)
class MethodFix(FixRequest):
    """Call the method ``method`` of the object ``receiver`` (a local of ``frame``) on ``line`` through the
    object's class, ``type(receiver).method(receiver, ...)`` (``static``: a staticmethod, no receiver passed),
    so that Dynamo can rebuild the call at a break inside it (:mod:`gblint.dynamo.unrebuilt`)."""

    line: int
    frame: str
    receiver: str
    method: str
    static: bool = False


# ----------------------------------------------------------------------------- the summary


@dataclasses.dataclass(frozen=True)
class Expr:
    """A value or a test as far as gblint can evaluate it before the run (:mod:`gblint.abstract.values`
    decides tests; :mod:`gblint.abstract.interp` follows the objects a value may be, for calls).

    ``op`` says what it is (:class:`gblint.core.ops.Op`, whose members say what ``value`` and ``parts``
    hold for each). Its hash is computed once (:mod:`gblint.core.hashing`)."""

    op: Op
    value: Union[None, bool, int, float, str] = None
    parts: Tuple["Expr", ...] = ()
    __hash__, __eq__, __reduce__ = cached_hash, cached_eq, rebuild


@dataclasses.dataclass(frozen=True)
class Param:
    """A parameter of a function: its name, ``kind`` (``pos``, ``kwonly``, ``star`` for
    ``*args``, ``starstar`` for ``**kwargs``) and its default (None: it has none)."""

    name: str
    kind: str = "pos"
    default: Optional[Expr] = None
    annotation: Optional[Expr] = None  # the declared type as a value (``Cache | None``: a ``union``)


@dataclasses.dataclass(frozen=True)
class CallArgs:
    """The arguments of a call as values: positional ones in order, keywords by name, and
    whether a ``*x`` or ``**x`` passes more that gblint cannot see."""

    positional: Tuple[Expr, ...] = ()
    keywords: Tuple[Tuple[str, Expr], ...] = ()
    star: bool = False
    starstar: bool = False
    rest: Tuple[Expr, ...] = ()  # the values unpacked by ``*x``, in order
    rest_kw: Tuple[Expr, ...] = ()  # the values unpacked by ``**x``


@dataclasses.dataclass
class Span:
    """A node's position: 1-based lines and columns, ``end_column`` exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclasses.dataclass
class Manager:
    """What a ``with`` item's manager is, as far as Dynamo cares (``docs/semantics.md`` §2).

    ``label`` is its source text; ``gb_id`` the registry id of a break inside (or of the
    manager itself, when unsupported); ``strict`` the argument of ``error_on_graph_break(...)``
    when that is the manager. (What a manager built by a call of the checked code runs, a
    ``@contextmanager`` generator, is the interpreter's answer for that call.)
    """

    kind: ManagerKind
    label: str
    gb_id: str = "GB0066"
    strict: Optional[bool] = None


@dataclasses.dataclass
class Block:
    """A block around an event: where it starts, the traced ops before it, and what it is."""

    kind: BlockKind
    line: int
    ops_at_entry: int = 0
    manager: Optional[Manager] = None
    comp_kind: str = ""  # list | set | dict | gen
    holds_tensor: bool = False
    over_items: bool = False  # iterates a dict view, enumerate(...) or (a dict comprehension) maybe a dict
    reads_unknown: bool = False  # reads a local of the function whose kind is not known (maybe a tensor)
    eager_ok: bool = False  # iterates range(...) or a tuple display: Dynamo can iterate it in the comprehension's own frame
    column: int = 1
    condition: str = ""  # a branch's test as written (negated for an `else`), for diagnostics' certainty
    test: Optional[Expr] = None  # the same test as a value gblint may decide (None: not a branch)
    exits_at_entry: int = 0  # `return`/`continue`/`break` statements of the function read before the block
    # a loop: the line ranges of its body's statements a break in which meets a `return` before the jump back
    # (gblint.syntax.backedge; Dynamo's maybe_has_backedge finds no loop there on Python 3.11)
    returns_first: Tuple[Tuple[int, int], ...] = ()
    # a loop over a name or attribute (as written) whose value decides whether Dynamo rebuilds its iterator, which
    # resuming after those breaks needs: a list or tuple, yes; an nn.ModuleList, a dict view, no (GB0092)
    iterates: str = ""
    # the line ranges after which what comes first is a layout gblint does not read (a `return` in a `with`)
    unread_first: Tuple[Tuple[int, int], ...] = ()


@dataclasses.dataclass
class Event:
    """A break site (``kind=BREAK``), a call (``CALL``) or an unsupported manager (``WITH``)
    inside a function, with the blocks around it (outermost first) and the traced ops before it."""

    kind: EventKind
    span: Span
    blocks: Tuple[Block, ...]
    ops_index: int
    exits: int = 0  # `return`/`continue`/`break` statements read before it (a block's exits_at_entry: none inside)
    # break
    code: str = ""
    rule_name: str = ""
    gb_ids: Tuple[str, ...] = ()
    detail: str = ""
    hint: str = ""
    outcome: Outcome = Outcome.RESUME
    python_value: bool = False
    capturable: bool = False
    needs_capture: bool = False
    origin_line: int = 0  # a lazily formatted f-string: the line it was written on (the event is at its use)
    loop_tail: bool = False  # a "tail" outcome that a loop around does not make a skip (see rules.base.BreakSite)
    alone: bool = False  # breaks only where the frame is compiled on its own, never inlined (rules.base.BreakSite)
    needs: Optional[str] = None
    tensor_param: Optional[str] = None  # the parameter the break needs to be a tensor (a guess the walk may refute)
    passed_tensor: bool = False  # nothing says tensor_param is one: only a call passing a tensor reaches the break
    fix_needs: Optional[Tuple[str, ...]] = None  # see BreakSite.fix_needs; resolved into `fixable`
    fixable: bool = False  # the rule's rewrite applies: every value it needs is known to be a tensor
    # call
    call_text: str = ""
    args: Optional[CallArgs] = None
    func: Optional[Expr] = None  # what is called, as a value (:mod:`gblint.abstract.interp`); a read: the attribute read
    read: bool = False  # an attribute read, not a call: it calls only what the attribute runs (a property...)
    # with
    manager: Optional[Manager] = None


@dataclasses.dataclass
class Decorator:
    """A decorator: the dotted name it resolves to, and its literal arguments as source text."""

    qualname: str
    called: bool
    kwargs: Dict[str, str]
    args: Tuple[str, ...]
    expr: Optional[Expr] = None  # the decorator expression as a value (``deco`` or ``deco(args)``)


@dataclasses.dataclass
class FunctionInfo:
    """A function of a file (a lambda too) and the events of its body, in source order."""

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
    params: Tuple[Param, ...] = ()  # all of them, ``self`` included, in order
    uses_torch: bool = False  # the body names a global bound to the torch module or a submodule of it
    returns: Optional[Expr] = None  # a body that is one `return E` of its parameters: E (see gblint.abstract.values)
    mutated: Tuple[str, ...] = ()  # parameters changed in place (`opts.append(...)`, `kw["k"] = v`, passed on)
    # each place a parameter of ``mutated`` may be changed: (name, when: the tests of the branches
    # around it, and-ed; a const True when none), so that a call on which none of them holds keeps it
    mutated_when: Tuple[Tuple[str, Expr], ...] = ()
    # a parameter of ``mutated`` every change of which stores or removes one key: (name, ((key, removed, value
    # stored or None), ...)), gblint.abstract.keyed
    mutated_keys: Tuple[Tuple[str, Tuple[Tuple[Expr, bool, Optional[Expr]], ...]], ...] = ()
    # the same for a local every change of which names its key, no other local bound to it (``out = {}``,
    # ``out[name] = v`` in a loop): gblint.abstract.keyed.local_changed
    local_keys: Tuple[Tuple[str, Tuple[Tuple[Expr, bool, Optional[Expr]], ...]], ...] = ()
    locals: Dict[str, Tuple[Expr, ...]] = dataclasses.field(default_factory=dict)  # name -> what it is assigned
    results: Tuple[Expr, ...] = ()  # every value a `return` returns
    # ``self`` attribute -> where the body first reads it (line, column, end line, end column), when
    # that read is in no block (all 0 when it is in one)
    self_reads: Dict[str, Tuple[int, int, int, int]] = dataclasses.field(default_factory=dict)
    stores: Tuple[str, ...] = ()  # attributes the body stores on anything but its own ``self`` (FileSummary.stored_attrs)
    rebinds: Tuple[str, ...] = ()  # module globals the body assigns under ``global`` (FileSummary.global_stores)
    # attributes stored on a parameter: (parameter, attribute, value, on every path): `cls.forward = f`
    param_stores: Tuple[Tuple[str, str, Expr, bool], ...] = ()

    def decorator(self, *names: str) -> Optional[Decorator]:
        """The first decorator that resolves to one of ``names``, or None."""
        for d in self.decorators:
            if d.qualname in names:
                return d
        return None


@dataclasses.dataclass
class ClassInfo:
    """A class of a file: bases (resolved dotted names), methods, and what ``self`` attributes
    were assigned in its methods."""

    name: str
    qualname: str
    bases: List[str]
    methods: Dict[str, str]
    attrs: Dict[str, Binding]  # self.attr -> ModuleAttr, ContainerValue, NnModuleAttr or TensorAttr
    span: Span
    values: Dict[str, Expr] = dataclasses.field(default_factory=dict)  # class-body assignments (defaults of fields)
    fields: Tuple[str, ...] = ()  # annotated class-body names, in order (a dataclass's fields)
    decorators: List[Decorator] = dataclasses.field(default_factory=list)
    metaclass: str = ""  # the dotted name of ``metaclass=``
    assigned: Dict[str, Tuple[Tuple[str, Expr], ...]] = dataclasses.field(default_factory=dict)
    # ``self`` attributes some method changes in place (``self.d[k] = v``, ``self.items.append(x)``,
    # ``f(self.d)``): a collection assigned to one may hold more than it was built with
    mutated: List[str] = dataclasses.field(default_factory=list)
    # ^ self.attr -> (qualified name of the method assigning it, the value) for every such assignment
    unsure: Tuple[Tuple[str, str], ...] = ()  # (method, attr) of `self.attr = ...` not on every path of it
    # self.attr -> (method, value, test) for a store made only where the ``if`` tests around it hold (their arms'
    # tests, joined; no loop or ``try`` around it): a store under a test false for the instance never runs
    guards: Dict[str, Tuple[Tuple[str, Expr, Expr], ...]] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class RegionDecl:
    """A place that compiles something: ``@torch.compile``, ``torch.compile(x)``, ``x.compile()``.

    ``target`` is the compiled function, or with ``is_class`` the ``nn.Module`` class whose
    ``forward`` is compiled; ``function`` the function the call sits in, for local names."""

    target: Optional[CallTarget]
    is_class: bool
    fullgraph: bool
    span: Span
    spelling: str
    function: Optional[str] = None
    names: Tuple[str, ...] = ()  # module-level names that hold the compiled object
    value: Optional[Expr] = None  # what is compiled, as a value where the call is (:mod:`gblint.abstract.interp`)
    training: Optional[bool] = None  # the mode the code sets on it (`.train()` / `.eval()`); None: not known
    disable: Optional[Expr] = None  # its `disable=` where no literal: compiles nothing where it holds (dynamo.entries)
    unsure: Tuple[str, ...] = ()  # conditions under which its compiled object runs (kept in a container, say)


@dataclasses.dataclass
class FileSummary:
    """Everything the later stages know about one file."""

    path: str
    module: str
    functions: Dict[str, FunctionInfo] = dataclasses.field(default_factory=dict)
    classes: Dict[str, ClassInfo] = dataclasses.field(default_factory=dict)
    regions: List[RegionDecl] = dataclasses.field(default_factory=list)
    substitutes: List[str] = dataclasses.field(default_factory=list)  # `substitute_in_graph(f)(p)`: global names f
    config: Dict[str, object] = dataclasses.field(default_factory=dict)
    imports: Dict[str, str] = dataclasses.field(default_factory=dict)
    module_names: Dict[str, Binding] = dataclasses.field(default_factory=dict)  # global name -> its binding
    rule_errors: List[Tuple[str, int, str]] = dataclasses.field(default_factory=list)
    star_imports: List[str] = dataclasses.field(default_factory=list)  # ``from M import *``: the modules M
    module_calls: List[Tuple[str, CallArgs]] = dataclasses.field(default_factory=list)  # ``name(...)`` at module level
    module_values: Dict[str, Tuple[Expr, ...]] = dataclasses.field(default_factory=dict)  # global -> what it is assigned
    # calls ``torch.set_default_dtype``, ``set_default_device``, autocast or enters ``torch.device`` (the dtypes and
    # devices of factories' tensors are then not known)
    sets_default_dtype: bool = False
    # attributes assigned, deleted or ``setattr`` on anything at module level (in a function:
    # FunctionInfo.stores); methods called at module level (``model.enable()``)
    stored_attrs: Tuple[str, ...] = ()
    called_methods: Tuple[str, ...] = ()
    global_stores: Dict[str, Tuple[Expr, ...]] = dataclasses.field(default_factory=dict)  # `global x` in a function: x = ...
    # a module list or dict that functions of the file change in place -> their names (gblint.syntax.bindings.settle_grown)
    changed_by: Dict[str, Tuple[str, ...]] = dataclasses.field(default_factory=dict)
    # top-level modules a rule took as absent (gblint.core.fs.module_findable false when summarised): a cached
    # summary holds only while they still are
    absent_modules: List[str] = dataclasses.field(default_factory=list)


# Every type a cached summary may hold (gblint.project.cache decodes entries into these only).
CACHED_TYPES = (Outcome, EventKind, BlockKind, ManagerKind,
                LocalFunction, Dotted, SelfMethod, SuperMethod, SelfAttrMethod, Method, InstanceCall, Modules,
                OtherValue, CallResult, ManagerValue, LoggerValue, CompiledValue, PartialValue, InstanceValue,
                ContainerValue, LayerValue, LocalDefValue, Definition, ModuleAttr, NnModuleAttr, TensorAttr,
                Expr, Param, CallArgs, Span, Manager, Block, Event, Decorator, FunctionInfo, ClassInfo, RegionDecl, FileSummary)


# ----------------------------------------------------------------------------- frames and regions


@dataclasses.dataclass(frozen=True)
class Frame:
    """A function of some file of the project."""

    path: str
    info: FunctionInfo

    @property
    def name(self) -> str:
        """The function's qualified name within its module."""
        return self.info.qualname


@dataclasses.dataclass
class Region:
    """A compiled entry and the options it is compiled with."""

    entry: Frame
    fullgraph: bool
    nested_graph_breaks: bool
    python_version: Tuple[int, int]
    spelling: str
    holders: Tuple[Tuple[str, str], ...] = ()  # (path, module-level name) that hold the compiled object
    env: Optional["Env"] = None  # gblint.abstract.env.Env: what the entry's parameters and closure hold (the instance as ``self``...)
    compiled: Optional[object] = None  # the compiled object, as gblint.abstract.interp found it (None: not through it)
    torch_version: str = ""  # the torch predicted for (gblint.core.versions); "": the newest measured release
    training: Optional[bool] = None  # ``self.training`` in what it runs (the mode the code sets); None: not known
    site: Optional[Tuple[str, str]] = None  # (path, function) of the compile call: a driver's `main()`
    unsure: Tuple[str, ...] = ()  # conditions under which Dynamo compiles it at all (the file switches it off somewhere)
