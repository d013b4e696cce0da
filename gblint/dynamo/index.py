"""The project index: modules and classes across the checked files.

What a call runs is the interpreter's answer (:mod:`gblint.abstract.interp`); the index looks modules,
functions, classes and their bases up by dotted name (also through ``from x import y``,
relative imports and re-exports in ``__init__``), and builds the break events a call itself is.
"""
from __future__ import annotations

import dataclasses
import os
from typing import Dict, Iterator, List, Optional, Tuple, Union

from ..core.codes import CODES
from ..core.model import Binding, CallTarget, ClassInfo, Dotted, Event, EventKind, FileSummary, Frame, Outcome, Span
from ..core.ops import Op
from ..core.semantics import DISABLE, NONSTRICT, OPAQUE, SUBSTITUTES

# What a call resolves to: a frame to inline, or the break the call itself is.
Resolved = Union[Frame, Event]

#: ``torch.nn`` classes whose construction makes no ``nn.Parameter`` (a subclass makes its own, if any)
_PARAMETERLESS = frozenset(("Module", "ModuleList", "ModuleDict", "Sequential", "Identity"))


def module_name(path: str) -> Tuple[str, bool]:
    """Dotted module name of a file, found by walking up through packages (``__init__.py``).

    Returns ``(name, is_package)``.
    """
    path = os.path.abspath(path)
    directory, filename = os.path.split(path)
    stem = os.path.splitext(filename)[0]
    is_package = stem == "__init__"
    parts = [] if is_package else [stem]
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        directory, pkg = os.path.split(directory)
        parts.insert(0, pkg)
        if not pkg:
            break
    return ".".join(parts), is_package


class Project:
    """All file summaries of one run, indexed by module name."""

    def __init__(self, summaries: List[FileSummary], loader=None):
        self.by_path: Dict[str, FileSummary] = {}
        self.by_module: Dict[str, FileSummary] = {}
        self.loader = loader  # loads modules of followed packages on first use (``--follow-imports``)
        self._interp = None
        self._lazy_active: set = set()  # (package, name) whose exporters lookup is reading
        self._substituted: set = set()  # global names of the functions a `substitute_in_graph` polyfill replaces
        for s in summaries:
            self.add(s)

    @property
    def interp(self):
        """The object interpreter over this project (:class:`gblint.abstract.interp.Interpreter`)."""
        if self._interp is None:
            from ..abstract.interp import Interpreter
            self._interp = Interpreter(self)
        return self._interp

    def add(self, summary: FileSummary) -> None:
        """Index one more file summary (the first summary of a module name wins)."""
        self.by_path[summary.path] = summary
        self.by_module.setdefault(summary.module, summary)
        for info in summary.functions.values():
            for d in info.decorators:
                if d.qualname in SUBSTITUTES and d.expr is not None and d.expr.op == Op.CALLV \
                        and len(d.expr.parts) > 1 and d.expr.parts[1].op == Op.GLOBAL:
                    self._substituted.add(d.expr.parts[1].value)
        self._substituted.update(summary.substitutes)

    def substituted(self, frame: Frame) -> bool:
        """Whether a ``@torch._dynamo.substitute_in_graph(f)`` polyfill (or ``substitute_in_graph(f)(polyfill)``) of
        a file read replaces the module-level function ``f`` that ``frame`` runs: Dynamo traces the polyfill in its
        place, never ``f``'s body (torch/_dynamo/decorators.py ``substitute_in_graph``; measured: tests/cases/kinds
        kd7, kd14, kd19)."""
        summary = self.by_path.get(frame.path)
        return summary is not None and (f"{summary.module}.{frame.name}" if summary.module else frame.name) \
            in self._substituted

    def untraced_body(self, frame: Frame) -> bool:
        """Whether Dynamo runs ``frame``'s function without tracing its body as compiled code: ``nonstrict_trace``, a
        decorator of :data:`gblint.core.semantics.OPAQUE`, or a polyfill in its place (:meth:`substituted`)."""
        return frame.info.decorator(*NONSTRICT, *OPAQUE) is not None or self.substituted(frame)

    def module(self, name: str) -> Optional[FileSummary]:
        """The summary of module ``name``, loading a followed package's module on first use."""
        found = self.by_module.get(name)
        if found is None and self.loader is not None:
            found = self.loader.load_module(name)
            if found is not None:
                self.add(found)
        return found

    # ------------------------------------------------------------ lookups
    def lookup(self, dotted: str, depth: int = 0) -> Optional[Tuple[FileSummary, str]]:
        """Find ``pkg.mod.Name.attr`` -> (file summary of pkg.mod, "Name.attr"), following re-exports."""
        if not dotted or depth > 8:
            return None
        parts = dotted.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            mod = ".".join(parts[:cut])
            summary = self.module(mod)
            if summary is None:
                continue
            rest = ".".join(parts[cut:])
            head = parts[cut]
            if rest in summary.functions or head in summary.classes or rest in summary.classes:
                return summary, rest
            target = summary.imports.get(head)
            if target and target != dotted:
                tail = ".".join(parts[cut + 1:])
                return self.lookup(f"{target}.{tail}" if tail else target, depth + 1)
            if summary.star_imports and self.module(f"{mod}.{head}") is not None and self.loader is not None \
                    and not any(self.loader.may_bind(star, head) for star in summary.star_imports if star != mod):
                # a submodule that no star import can rebind (`from .act import *` where act.py
                # defines `act` does): the package's attribute, and its star-imported siblings need
                # not be read (~400 in transformers)
                return None
            for star in summary.star_imports:  # `from M import *`: M's names, if M can bind `head`
                if star != mod and (self.loader is None or self.loader.may_define(star, head)):
                    found = self.lookup(f"{star}.{rest}", depth + 1)
                    if found is not None:
                        return found
            if head in summary.module_values:  # a module-level value (`model = Net()`)
                return summary, rest
            if self.loader is not None and (mod, head) not in self._lazy_active:
                # a lazy package: the one module under it that exports `head`, if only one does
                self._lazy_active.add((mod, head))  # an exporter importing it back from the package
                try:
                    found = {}
                    for module in self.loader.lazy_exporters(mod, head):
                        got = self.lookup(f"{module}.{rest}", depth + 1)
                        if got is not None:
                            found[(got[0].path, got[1])] = got
                finally:
                    self._lazy_active.discard((mod, head))
                if len(found) == 1:
                    return next(iter(found.values()))
            return None
        return None

    def function(self, summary: FileSummary, qual: str) -> Optional[Frame]:
        """The frame of function ``qual`` of ``summary``, or None."""
        info = summary.functions.get(qual)
        return Frame(summary.path, info) if info else None

    def class_info(self, summary: FileSummary, ref: Optional[CallTarget]) -> Optional[Tuple[FileSummary, ClassInfo]]:
        """The class a dotted name (:class:`Dotted`, resolved from ``summary``'s module) names."""
        if isinstance(ref, Dotted) and ref.name:
            found = self.lookup(ref.name)
            if found and found[1] in found[0].classes:
                return found[0], found[0].classes[found[1]]
            if "." not in ref.name and ref.name in summary.classes:
                return summary, summary.classes[ref.name]
        return None

    def mro(self, summary: FileSummary, cls: ClassInfo, depth: int = 0) -> Iterator[Tuple[FileSummary, ClassInfo]]:
        """``cls`` and its bases found in the project (as far as they resolve), in Python's method-resolution order:
        the C3 linearization (a base shared by two bases of a diamond comes after both: ``D(B, C)`` with ``B(A)``
        and ``C(A)`` is D, B, C, A), or depth first without repeats where the bases found admit none (Python would
        refuse to make such a class)."""
        return iter(self._linear(summary, cls, depth))

    def _linear(self, summary: FileSummary, cls: ClassInfo, depth: int) -> List[Tuple[FileSummary, ClassInfo]]:
        head = [(summary, cls)]
        if depth > 10:
            return head
        bases = [found for found in (self.class_info(summary, Dotted(b)) for b in cls.bases) if found is not None]
        lines = [self._linear(s, c, depth + 1) for s, c in bases] + [list(bases)]
        merged = _c3_merge([list(line) for line in lines])
        if merged is None:  # no consistent order: each class once, depth first
            merged, seen = [], set()
            for line in lines[:-1]:
                for s, c in line:
                    if (s.path, c.qualname) not in seen:
                        seen.add((s.path, c.qualname))
                        merged.append((s, c))
        return head + merged

    def method(self, summary: FileSummary, cls: ClassInfo, name: str, skip_first: bool = False) -> Optional[Frame]:
        """The frame of method ``name`` found along ``cls``'s bases (``skip_first``: from the
        first base on, as ``super()`` does), or None."""
        for i, (s, c) in enumerate(self.mro(summary, cls)):
            if skip_first and i == 0:
                continue
            if name in c.methods:
                return self.function(s, c.methods[name])
        return None

    def is_module_class(self, summary: FileSummary, cls: ClassInfo) -> bool:
        """Whether ``cls`` derives from a ``torch.nn`` class."""
        for s, c in self.mro(summary, cls):
            for b in c.bases:
                if b.startswith("torch.nn.") or b in ("nn.Module", "Module"):
                    return True
        return False

    def builds_parameters(self, summary: FileSummary, cls: ClassInfo) -> bool:
        """Whether constructing the ``nn.Module`` class ``cls`` makes ``nn.Parameter``s in torch's
        own code: a ``torch.nn`` base among its classes other than the parameterless containers
        (``class Proj(nn.Linear)``). Dynamo breaks at the Parameter constructor (GB0264,
        ``graph_break_on_nn_param_ctor`` in torch/_dynamo/variables/torch.py), which lies in torch,
        so the break is the construction call itself. Any other module class is built by running
        its ``__init__`` like any class: Dynamo traces a module made without parameters, and
        breaks where the program's own ``__init__`` makes one (measured on 2.13:
        tests/cases/harness/h07_module_built_in_region.py)."""
        return any(b.startswith("torch.nn.") and b.rsplit(".", 1)[-1] not in _PARAMETERLESS
                   for _s, c in self.mro(summary, cls) for b in c.bases)

    def attr(self, summary: FileSummary, cls: ClassInfo, name: str) -> Optional[Binding]:
        """What ``self.name`` was assigned in ``cls`` or a base, or None."""
        for s, c in self.mro(summary, cls):
            if name in c.attrs:
                return c.attrs[name]
        return None


def construct_break(ev: Event) -> Event:
    """The break of the call ``ev`` that builds an ``nn.Module`` inside the compiled region (GB0264)."""
    return dataclasses.replace(
        ev, kind=EventKind.BREAK, code="GBL113", rule_name="module-construction", gb_ids=("GB0264",),
        detail=f"`{ev.call_text}(...)` constructs an nn.Module (and its nn.Parameters) inside the compiled region",
        hint="Construct modules once in `__init__` and only call them in `forward`.", outcome=Outcome.RESUME)


def disabled_break(ev: Event, what: str) -> Event:
    """The break of the call ``ev`` of an object wrapped by ``torch.compiler.disable`` (GB0098)."""
    c = CODES["GBL119"]
    return dataclasses.replace(
        ev, kind=EventKind.BREAK, code=c.code, rule_name=c.name, gb_ids=(c.gb_ids[0],),
        detail=f"`{ev.call_text}(...)` calls `{what}`, wrapped by `torch.compiler.disable`",
        hint=c.hint, outcome=Outcome.RESUME)


def rnn_break(ev: Event, q: str) -> Event:
    """The break of the call ``ev`` of an RNN module, which Dynamo does not trace (GB0014)."""
    c = CODES["GBL118"]
    return dataclasses.replace(
        ev, kind=EventKind.BREAK, code=c.code, rule_name=c.name, gb_ids=c.gb_ids,
        detail=f"`{ev.call_text}(...)` calls a `{q.rsplit('.', 1)[-1]}` module, which Dynamo does not trace",
        hint=c.hint, outcome=Outcome.SKIP)  # measured on 2.13: the frame is skipped (measured/r04_lstm_module.py)


def cached_property_break(ev: Event, name: str) -> Event:
    """The break of reading (``ev``) the ``functools.cached_property`` ``name`` not computed yet, before Python 3.12:
    its ``__get__`` enters an ``RLock`` Dynamo cannot enter (GB0142), so the reading frame is skipped (measured:
    tests/cases/kinds kd7)."""
    c = CODES["GBL204"]
    return dataclasses.replace(
        ev, kind=EventKind.BREAK, code=c.code, rule_name=c.name, gb_ids=("GB0142",),
        detail=f"reading `{name}`, a `functools.cached_property` not computed yet, enters the lock of its `__get__`",
        hint="Compute it before the compiled code runs (read it in `__init__`), or make it a plain attribute.",
        outcome=Outcome.SKIP)


def rnn_first_read(brk: Event, frame: Frame) -> Event:
    """The break ``brk`` of calling the RNN module ``self.x`` (GBL118) where Dynamo reports it:
    at the frame's first read of ``self.x``, when that comes before the call and in no block.
    Dynamo fails to wrap the module when it loads the attribute (GB0014 is raised by
    ``VariableBuilder.wrap_module``), not when it calls it; measured:
    tests/fixtures/reach/o18_rnn_read_before_call.py."""
    f, info = brk.func, frame.info
    if f is None or f.op != Op.ATTR or not f.parts or f.parts[0].op != Op.PARAM or info is None \
            or not info.params or f.parts[0].value != info.params[0].name or info.class_name is None:
        return brk
    read = info.self_reads.get(f.value)
    if read is None or not read[0] or (read[0], read[1]) >= (brk.span.line, brk.span.column):
        return brk
    detail = brk.detail.replace(f"`{brk.call_text}(...)` calls", f"`self.{f.value}` reads", 1)
    return dataclasses.replace(brk, span=Span(*read), blocks=(), detail=detail)


def disabled_function_break(call: Event, callee: Frame) -> Event:
    """The break Dynamo reports at the call of a ``torch.compiler.disable``d function (GB0098;
    GB0099 with ``recursive=False``)."""
    dec = callee.info.decorator(*DISABLE)
    recursive = dec.kwargs.get("recursive", "True") != "False"
    c = CODES["GBL119"]
    gb = c.gb_ids[0] if recursive else c.gb_ids[1]  # GB0098, GB0099
    what = "calls" if recursive else "calls (recursive=False)"
    return dataclasses.replace(
        call, kind=EventKind.BREAK, code=c.code, rule_name=c.name, gb_ids=(gb,),
        detail=f"`{call.call_text}(...)` {what} a `torch.compiler.disable`d function",
        hint=c.hint, outcome=Outcome.RESUME)


def dirty_apply_break(call: Event) -> Event:
    """The break of ``Function.apply(...)`` whose ``forward`` marks an input dirty and does not return it
    (GB2464, torch/_dynamo/variables/higher_order_ops.py: AutogradFunctionApplyVariable)."""
    c = CODES["GBL142"]
    return dataclasses.replace(
        call, kind=EventKind.BREAK, code=c.code, rule_name=c.name, gb_ids=c.gb_ids,
        detail=f"`{call.call_text}(...)`: its `forward` marks an input dirty and does not return it",
        hint=c.hint, outcome=Outcome.RESUME)


def nonstrict_break(call: Event, callee: Frame) -> Event:
    """The break of calling a ``nonstrict_trace``d function that turns tensors into Python values (GB0251)."""
    c = CODES["GBL120"]
    return dataclasses.replace(
        call, kind=EventKind.BREAK, code=c.code, rule_name=c.name, gb_ids=c.gb_ids,
        detail=(f"`{call.call_text}(...)` is `nonstrict_trace`d but turns a tensor into a Python value inside; "
                "fake-tensor tracing fails (GB0251) and the call breaks"),
        hint=c.hint, outcome=Outcome.RESUME)


def _c3_merge(lines: List[list]) -> Optional[list]:
    """C3's merge of the linearizations ``lines`` of a class's bases and the list of the bases: the next class is
    the first head of a line that is in no line's tail; None where no such head is left."""
    key = lambda sc: (sc[0].path, sc[1].qualname)  # noqa: E731
    out: list = []
    lines = [line for line in lines if line]
    while lines:
        for line in lines:
            head = key(line[0])
            if not any(head in [key(sc) for sc in other[1:]] for other in lines):
                break
        else:
            return None
        out.append(line[0])
        lines = [[sc for sc in other if key(sc) != head] for other in lines]
        lines = [other for other in lines if other]
    return out
