"""The project index: modules, classes and call resolution across the checked files.

Callee refs recorded by :mod:`gblint.summary` are resolved here to :class:`Frame` objects:
plain functions (also through ``from x import y``, relative imports and re-exports in
``__init__``), methods on ``self`` and ``super()``, ``nn.Module`` attributes assigned in
``__init__`` (``self.block(x)`` -> ``Block.forward``) and the contents of ``nn.ModuleList``
/ ``nn.Sequential`` iterated in ``forward``.
"""
from __future__ import annotations

import dataclasses
import os
from typing import Dict, Iterator, List, Optional, Tuple

from .consequences import RNN_MODULES, Frame
from .summary import ClassInfo, Event, FileSummary


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
        for s in summaries:
            self.add(s)

    def add(self, summary: FileSummary) -> None:
        self.by_path[summary.path] = summary
        self.by_module.setdefault(summary.module, summary)

    def module(self, name: str) -> Optional[FileSummary]:
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
            return None
        return None

    def function(self, summary: FileSummary, qual: str) -> Optional[Frame]:
        info = summary.functions.get(qual)
        return Frame(summary.path, info) if info else None

    def class_info(self, summary: FileSummary, ref: tuple) -> Optional[Tuple[FileSummary, ClassInfo]]:
        """The class a ref (``("qual", dotted)`` or ``("local", qual)``) names."""
        if ref is None:
            return None
        if ref[0] == "qual" and ref[1]:
            found = self.lookup(ref[1])
            if found and found[1] in found[0].classes:
                return found[0], found[0].classes[found[1]]
            if "." not in ref[1] and ref[1] in summary.classes:
                return summary, summary.classes[ref[1]]
        return None

    def mro(self, summary: FileSummary, cls: ClassInfo, depth: int = 0) -> Iterator[Tuple[FileSummary, ClassInfo]]:
        yield summary, cls
        if depth > 10:
            return
        for base in cls.bases:
            found = self.class_info(summary, ("qual", base))
            if found is not None:
                yield from self.mro(found[0], found[1], depth + 1)

    def method(self, summary: FileSummary, cls: ClassInfo, name: str, skip_first: bool = False) -> Optional[Frame]:
        for i, (s, c) in enumerate(self.mro(summary, cls)):
            if skip_first and i == 0:
                continue
            if name in c.methods:
                return self.function(s, c.methods[name])
        return None

    def is_module_class(self, summary: FileSummary, cls: ClassInfo) -> bool:
        for s, c in self.mro(summary, cls):
            for b in c.bases:
                if b.startswith("torch.nn.") or b in ("nn.Module", "Module"):
                    return True
        return False

    def attr(self, summary: FileSummary, cls: ClassInfo, name: str) -> Optional[tuple]:
        for s, c in self.mro(summary, cls):
            if name in c.attrs:
                return c.attrs[name]
        return None

    # ------------------------------------------------------------ call resolution
    def resolve_call(self, frame: Frame, ev: Event) -> List[Tuple[str, object]]:
        """Targets of a call event: ``("frame", Frame)`` or ``("break", Event)`` (the call breaks)."""
        return self.resolve_ref(frame, ev.callee, ev)

    def resolve_ref(self, frame: Frame, ref: Optional[tuple], ev: Optional[Event] = None) -> List[Tuple[str, object]]:
        if ref is None:
            return []
        summary = self.by_path.get(frame.path)
        if summary is None:
            return []
        kind = ref[0]
        out: List[Tuple[str, object]] = []
        if kind in ("local", "defined"):
            f = self.function(summary, ref[1])
            return [("frame", f)] if f else []
        if kind == "qual":
            return self.resolve_qual(summary, ref[1], ev)
        if kind in ("self", "super"):
            cls = summary.classes.get(ref[1]) if ref[1] else None
            if cls is None:
                return []
            if kind == "self":
                a = self.attr(summary, cls, ref[2])
                if a is not None:
                    return self.call_attr(summary, a, ev)
            m = self.method(summary, cls, ref[2], skip_first=(kind == "super"))
            return [("frame", m)] if m else []
        if kind == "self_attr_method":
            cls = summary.classes.get(ref[1]) if ref[1] else None
            a = self.attr(summary, cls, ref[2]) if cls else None
            if a and a[0] == "module":
                for r in a[1]:
                    found = self.class_info(summary, r)
                    if found:
                        m = self.method(found[0], found[1], ref[3])
                        if m:
                            out.append(("frame", m))
            return out
        if kind == "method":
            found = self.class_info(summary, ref[1])
            if found:
                m = self.method(found[0], found[1], ref[2])
                if m:
                    out.append(("frame", m))
            return out
        if kind == "instance_call":
            found = self.class_info(summary, ref[1])
            if found:
                m = self.method(found[0], found[1], "forward" if self.is_module_class(*found) else "__call__")
                if m:
                    out.append(("frame", m))
            return out
        if kind == "modules":
            for r in ref[1]:
                found = self.class_info(summary, r)
                if found:
                    m = self.method(found[0], found[1], "forward")
                    if m:
                        out.append(("frame", m))
                elif r and r[0] == "qual" and r[1] in RNN_MODULES and ev is not None:
                    out.append(("break", _rnn_break(ev, r[1])))
            return out
        return []

    def call_attr(self, summary: FileSummary, attr: tuple, ev: Optional[Event]) -> List[Tuple[str, object]]:
        """``self.x(...)`` where ``self.x`` was assigned in ``__init__``."""
        out: List[Tuple[str, object]] = []
        if attr[0] == "module":
            for r in attr[1]:
                found = self.class_info(summary, r)
                if found:
                    m = self.method(found[0], found[1], "forward" if self.is_module_class(*found) else "__call__")
                    if m:
                        out.append(("frame", m))
        elif attr[0] == "sequential":
            return self.resolve_ref(Frame(summary.path, None), ("modules", tuple(attr[2])), ev)  # type: ignore[arg-type]
        elif attr[0] == "nn" and attr[1] in RNN_MODULES and ev is not None:
            out.append(("break", _rnn_break(ev, attr[1])))
        return out

    def resolve_qual(self, summary: FileSummary, dotted: str, ev: Optional[Event]) -> List[Tuple[str, object]]:
        if not dotted:
            return []
        found = self.lookup(dotted)
        if found is None:
            return []
        s, rest = found
        if rest in s.functions:
            return [("frame", self.function(s, rest))]
        head = rest.split(".")[0]
        cls = s.classes.get(rest) or s.classes.get(head)
        if cls is None:
            return []
        if rest != cls.qualname:
            m = self.method(s, cls, rest.split(".")[-1])
            return [("frame", m)] if m else []
        if self.is_module_class(s, cls):
            if ev is None:
                return []
            return [("break", dataclasses.replace(
                ev, kind="break", code="GBL113", rule_name="module-construction", gb_ids=("GB0264",),
                detail=f"`{ev.call_text}(...)` constructs an nn.Module (and its nn.Parameters) inside the compiled "
                       "region",
                hint="Construct modules once in `__init__` and only call them in `forward`.", outcome="resume"))]
        init = self.method(s, cls, "__init__")
        return [("frame", init)] if init else []


def _rnn_break(ev: Event, q: str) -> Event:
    return dataclasses.replace(
        ev, kind="break", code="GBL118", rule_name="rnn-module", gb_ids=("GB0014",),
        detail=f"`{ev.call_text}(...)` calls a `{q.rsplit('.', 1)[-1]}` module, which Dynamo does not trace",
        hint="Compile the code around the RNN instead, or replace it with an explicit cell loop.",
        outcome="resume")
