"""The call tree of a compiled region, as the consequence walk left it: which functions Dynamo
traces from the compiled entry, which of them it compiles as frames of their own and with what
outcome, and which calls gblint could not follow. The HTML report (:mod:`gblint.frontends.html_report`)
draws it; nothing here decides a consequence again.

Each node's outcome comes from the walk (:class:`gblint.dynamo.frame_report.FrameReport`):

- a frame Dynamo compiles on its own (the entry, a callee split by a nested break, a callee of
  a skipped frame) has a report: ``compiled``, ``pieces`` (more than one graph, or a compiled
  prefix and an eager tail), ``skipped`` or ``error``;
- a callee without a report is inlined into its caller's graph (``compiled``), or is called
  from a frame that runs eagerly or fails (``skipped``/``error``, the caller's: the walk predicts
  no graph for it); a ``torch.compiler.disable``d callee
  always runs eagerly (``skipped``);
- a call whose target gblint could not resolve is ``unresolved`` ("not followed"), except a
  call of a ``torch.nn`` module or another library class, which Dynamo traces as ops and gblint
  never reads (listed on its caller as a library call).

Each frame is expanded once, where it is first reached (depth first, calls in source order);
a later call of it is a leaf pointing to the first one, so the tree is as large as the calls.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Set, Tuple

from .calls import call_key
from ..abstract.gaps import partly
from ..core.model import ContainerValue, Dotted, Event, Frame, ModuleAttr, NnModuleAttr
from ..core.ops import Op
from ..core.semantics import DISABLE, EXTERNAL_HEADS
from ..abstract.tensors import PY_METHODS, TENSOR_METHOD_RESULTS, TENSOR_METHODS

#: node outcomes, in the order the legend shows them
OUTCOMES = ("compiled", "pieces", "skipped", "error", "unresolved")


@dataclasses.dataclass
class CallNode:
    """One node of a region's call tree, in preorder.

    ``index`` is its position, ``parent`` its parent's (-1 for a root), ``end`` the index of its
    last descendant (itself for a leaf). ``frame`` is None for a call gblint did not follow;
    ``call`` is the call event of the parent that leads here (None for the entry). ``report`` is
    the frame's :class:`gblint.dynamo.frame_report.FrameReport` when Dynamo compiles it as a frame of
    its own; ``how`` says in words how the node got its outcome. ``repeat_of`` is the index of
    the node that expands the same frame, for a frame called again. ``library`` lists the
    frame's calls of library code: ``(line, call text, dotted name)``."""

    index: int
    depth: int
    parent: int
    frame: Optional[Frame]
    call: Optional[Event]
    outcome: str
    how: str
    report: object = None
    repeat_of: Optional[int] = None
    end: int = 0
    library: List[Tuple[int, str, str]] = dataclasses.field(default_factory=list)

    @property
    def label(self) -> str:
        """The frame's qualified name, or the text of the call not followed."""
        if self.frame is not None:
            return self.frame.name
        return f"{self.call.call_text}(...)" if self.call is not None else "?"

    @property
    def key(self) -> Optional[Tuple[str, str]]:
        """``(path, qualname)`` of the frame (None for a call not followed)."""
        return (self.frame.path, self.frame.name) if self.frame is not None else None


@dataclasses.dataclass
class RegionTree:
    """A region's call tree and its counts. ``walk`` is the region's
    :class:`gblint.dynamo.consequences._RegionWalk`; ``nodes`` the tree in preorder."""

    walk: object
    nodes: List[CallNode]

    @property
    def region(self):
        """The :class:`gblint.core.model.Region`."""
        return self.walk.region

    @property
    def frames(self) -> int:
        """Distinct functions in the tree (the entry, everything it traces)."""
        return sum(1 for n in self.nodes if n.frame is not None and n.repeat_of is None)

    @property
    def dynamo_frames(self) -> int:
        """Frames Dynamo compiles on their own (each with a report)."""
        return len(self.walk.frames)

    @property
    def graphs(self) -> int:
        """Predicted FX graphs, over the region's frames (as ``--explain`` counts them): proven ones."""
        return sum(fr.graphs for fr in self.walk.frames)

    @property
    def graphs_at_most(self) -> int:
        """FX graphs if every conditional break happened."""
        return sum(fr.graphs_at_most for fr in self.walk.frames)

    @property
    def breaks(self) -> int:
        """Predicted graph breaks that split a frame and resume."""
        return sum(len(fr.splits) for fr in self.walk.frames)

    @property
    def skipped(self) -> int:
        """Frames predicted to be skipped (run eagerly)."""
        return sum(1 for fr in self.walk.frames if fr.status == "skipped")

    @property
    def unresolved(self) -> int:
        """Calls gblint could not follow."""
        return sum(1 for n in self.nodes if n.outcome == "unresolved")

    @property
    def unresolved_calls(self) -> Set[Tuple[str, int, str]]:
        """``(path, line, call text)`` of each call not followed, as :func:`unfollowed_events`
        keys them (the text summary and JSON ``coverage.unfollowed`` count these, once each)."""
        return {(self.nodes[n.parent].frame.path, n.call.span.line, n.call.call_text)
                for n in self.nodes if n.outcome == "unresolved" and n.call is not None and n.parent >= 0}

    @property
    def followed(self) -> int:
        """Calls gblint followed into a function of the analysed code."""
        return sum(1 for n in self.nodes if n.call is not None and n.frame is not None)

    @property
    def coverage(self) -> Optional[float]:
        """Followed calls over followed and unresolved ones (library calls do not count); None
        when the region makes no such call."""
        total = self.followed + self.unresolved
        return self.followed / total if total else None

    @property
    def outcome(self) -> str:
        """The entry's outcome (the colour of the region)."""
        return self.nodes[0].outcome if self.nodes else "compiled"


def call_tree(walk) -> RegionTree:
    """The call tree of one region's walk (:meth:`gblint.dynamo.consequences.Consequences.walk`),
    built from the calls the walk resolved (:meth:`gblint.dynamo.calls.CallValues.resolved_calls`)."""
    owner = walk.owner
    reports: Dict[Tuple[str, str], object] = {(fr.frame.path, fr.frame.name): fr for fr in walk.frames}
    nodes: List[CallNode] = []
    first: Dict[Tuple[str, str], int] = {}
    entry = walk.region.entry
    # (frame, call, caller node index, depth); a stack, children pushed in reverse source order
    todo: List[Tuple[Optional[Frame], Optional[Event], int, int]] = [(entry, None, -1, 0)]
    extra = [fr.frame for fr in walk.frames]  # frames the walk compiled, should a call to them not be recorded
    while todo or extra:
        if not todo:
            frame = extra.pop(0)
            if (frame.path, frame.name) not in first:
                todo.append((frame, None, -1, 0))
            continue
        frame, call, parent, depth = todo.pop()
        index = len(nodes)
        caller = nodes[parent] if parent >= 0 else None
        if frame is None:
            nodes.append(CallNode(index, depth, parent, None, call, "unresolved",
                                  "gblint could not tell what this call runs, so it was not followed"))
            continue
        key = (frame.path, frame.name)
        outcome, how = _outcome(frame, reports.get(key), caller, nodes)
        node = CallNode(index, depth, parent, frame, call, outcome, how, reports.get(key))
        nodes.append(node)
        if key in first:
            node.repeat_of = first[key]
            node.how = f"{how}; expanded where first called"
            continue
        first[key] = index
        children: List[Tuple[Optional[Frame], Optional[Event], int, int]] = []
        for ev, targets in owner.resolved_calls(frame):
            callees = [t for t in targets if isinstance(t, Frame)]
            if not targets:
                library = _library_name(owner.project, frame, ev)
                if library is None and owner.reasons.get(call_key(frame, ev), "") is None:
                    library = ev.call_text  # a library's own call (the standard library's): no gap
                if library is not None:
                    node.library.append((ev.span.line, ev.call_text, library))
                    continue
                children.append((None, ev, index, depth + 1))
            children.extend((t, ev, index, depth + 1) for t in callees)
        todo.extend(reversed(children))
    for node in reversed(nodes):  # the last descendant of each node, children before parents
        node.end = max(node.end, node.index)
        if node.parent >= 0:
            nodes[node.parent].end = max(nodes[node.parent].end, node.end)
    return RegionTree(walk, nodes)


def _outcome(frame: Frame, report, caller: Optional[CallNode], nodes: List[CallNode]) -> Tuple[str, str]:
    """``(outcome, how)`` of a frame node (see the module doc)."""
    if report is not None:
        status = report.status
        if status == "failed":
            return "error", "fails to compile"
        if status == "skipped":
            return "skipped", "skipped: runs eagerly"
        if status == "tail":
            return "pieces", "a prefix is compiled, the rest runs eagerly"
        own = "compiled as its own frame" if caller is not None else "compiled"
        if report.graphs > 1 or report.splits:
            return "pieces", f"{own}, in {max(report.graphs, 1)} graphs"
        return "compiled", own
    if frame.info.decorator(*DISABLE) is not None:
        return "skipped", "`torch.compiler.disable`d: runs eagerly, a graph break at the call"
    if caller is None:
        return "compiled", "compiled"
    if caller.outcome == "skipped":
        return "skipped", f"called from `{caller.label}`, which runs eagerly: no graph is predicted for it"
    if caller.outcome == "error":
        return "error", f"called from `{caller.label}`, which fails to compile"
    holder = caller
    while holder.report is None and holder.parent >= 0:  # the frame whose graph the inlined call joins
        holder = nodes[holder.parent]
    return "compiled", f"inlined: traced into the graph of `{holder.label}`"


def _library_name(project, frame: Frame, ev: Event) -> Optional[str]:
    """The dotted name of the library class or function a call runs (a ``torch.nn`` module held
    by ``self``, a layer of a container of them), when that is all the call can run; None for a
    call of unknown target. Library code is traced by Dynamo as ops and not read by gblint.
    ``self.name(...)`` and ``self.attr.name(...)`` (the call's function as the summary wrote it,
    :attr:`gblint.core.model.Event.func`) go by what the methods of the frame's class assign to
    ``self.name`` / ``self.attr`` (:meth:`gblint.dynamo.index.Project.attr`); any other call by what the
    interpreter finds it to be (:meth:`gblint.abstract.gaps.Gaps.library_name`)."""
    summary = project.by_path.get(frame.path)
    func, info = ev.func, frame.info
    if summary is None or func is None:
        return None
    path = []
    while func.op == Op.ATTR and func.parts:
        path.append(func.value)
        func = func.parts[0]
    if func.op == Op.PARAM and info.class_name and info.params and func.value == info.params[0].name \
            and info.decorator("staticmethod", "classmethod") is None:
        cls = summary.classes.get(info.class_name)
        if cls is None or len(path) not in (1, 2):
            return None
        attr = project.attr(summary, cls, path[-1])
        if isinstance(attr, NnModuleAttr):
            return attr.name if len(path) == 1 else f"{attr.name}.{path[0]}"
        if isinstance(attr, (ModuleAttr, ContainerValue)):
            return _external(attr.classes)
        return None
    return project.interp.gaps.library_name(frame, ev)


def _external(classes) -> Optional[str]:
    """The first name of ``classes`` when all are dotted names of libraries gblint does not follow."""
    names = [c.name for c in classes if isinstance(c, Dotted) and c.name]
    if names and len(names) == len(classes) and all(n.split(".")[0] in EXTERNAL_HEADS for n in names):
        return names[0]
    return None


def graph_boundaries(report) -> List[dict]:
    """The graphs and breaks of a frame compiled on its own, in source order: ``{"kind":
    "graph", "ops", "counted"}`` (``ops`` 0: an empty stretch, no graph), ``{"kind": "break", "line",
    "what", "sure"}`` (``sure``: a definite break, else one under a test gblint cannot decide), and last
    ``{"kind": "eager", "what"}`` for an eager tail, a skipped frame or a compile error (``"error"``), as
    if every conditional break happened. ``report`` is a :class:`gblint.dynamo.frame_report.FrameReport`; a
    graph stretch has ``counted`` when that count (its ``graphs_at_most``) counts it."""
    if report.status in ("skipped", "failed"):
        return [{"kind": "error" if report.status == "failed" else "eager", "what": report.reason}]
    end = report.tail_ops if report.tail_ops is not None else report.frame.info.ops_total
    bounds = [0] + list(report.split_ops) + [end]
    out: List[dict] = []
    for i, (line, what) in enumerate(report.splits):
        out.append({"kind": "graph", "ops": max(bounds[i + 1] - bounds[i], 0)})
        out.append({"kind": "break", "line": line, "what": what, "sure": report.split_sure[i]})
    out.append({"kind": "graph", "ops": max(bounds[-1] - bounds[-2], 0)})
    graphs = [b for b in out if b["kind"] == "graph"]
    for b in graphs:
        b["counted"] = b["ops"] > 0
    if report.status == "tail":
        if not any(b["counted"] for b in graphs):  # a compiled prefix is one graph however small
            graphs[-1]["counted"] = True
        out.append({"kind": "eager", "what": report.reason})
    return out


def unfollowed_records(events) -> List[Dict[str, object]]:
    """:func:`unfollowed_events` as JSON ``coverage.unfollowed`` lists them: ``{"path", "line",
    "function", "call", "reason", "undecided", "method_of"}`` (:func:`undecided`, :func:`method_of`)."""
    return [{"path": frame.path, "line": ev.span.line, "function": frame.name, "call": ev.call_text,
             "reason": reason, "undecided": undecided(reason), "method_of": method_of(ev, reason)}
            for frame, ev, reason in events]


#: the public method names of Python's builtin values, each with the first type of these that has it (read
#: from the running Python's own types, never a hand-kept list)
_BUILTIN_TYPES = (str, list, dict, set, tuple, bytes, frozenset, int, float, complex)
_BUILTIN_METHODS: Dict[str, str] = {name: t.__name__ for t in reversed(_BUILTIN_TYPES)
                                    for name in dir(t) if not name.startswith("_")}
#: the method names of ``torch.Tensor``: those of its stubs (``class TensorBase`` in ``torch/_C/__init__.pyi``,
#: packaged by ``scripts/update_torch_ops.py``) and those gblint knows the results of
_TENSOR_METHOD_NAMES = TENSOR_METHOD_RESULTS | TENSOR_METHODS | PY_METHODS


def method_of(ev: Event, reason: str) -> str:
    """For a call not followed because its target is known only at run time (``reason``), ``recv.name(...)`` (the
    call event ``ev``) whose ``name`` a method of ``torch.Tensor`` or of a Python builtin value also has: that
    type's name (``"Tensor"``, ``"str"``, ``"list"``...), the receiver then probably being one (its own method, no
    gap; gblint could not prove the receiver's kind); ``""`` for any other call. Such calls are listed after the
    others (:func:`gblint.frontends.output.unfollowed_text`): they seldom hide the call that matters."""
    if not undecided(reason) or ev.func is None or ev.func.op != Op.ATTR or not ev.func.parts:
        return ""
    name = ev.func.value
    if name in _TENSOR_METHOD_NAMES:
        return "Tensor"
    return _BUILTIN_METHODS.get(name, "")


def unfollowed_events(model, walks) -> List[Tuple[Frame, Event, str]]:
    """The calls the compiled regions reach that gblint could not follow (``model``: the walk's
    :class:`gblint.dynamo.consequences.Consequences`), as ``(caller frame, call event, reason)`` with why
    (:meth:`gblint.abstract.gaps.Gaps.unfollowed`, recorded by the walk), each call once, in call
    order. A call of a ``torch.nn`` module or another library class held by the frame's object
    (what the call tree lists as a library call, :func:`_library_name`) is no gap: Dynamo traces
    it as ops."""
    out, seen = [], set()
    for walk in walks:
        for frame, ev in walk.unresolved:
            key = (frame.path, ev.span.line, ev.call_text)
            if key in seen:
                continue
            seen.add(key)
            reason = model.reasons.get(call_key(frame, ev))
            # a library layer the class assigns is no gap, unless the code may put something else there
            if reason is not None and (partly(reason) or _library_name(model.project, frame, ev) is None):
                out.append((frame, ev, reason))
    for frame, ev, reason in model.cut.values():  # followed, but too deep in a chain of calls to analyse
        if (frame.path, ev.span.line, ev.call_text) not in seen:
            seen.add((frame.path, ev.span.line, ev.call_text))
            out.append((frame, ev, reason))
    return out


def undecided(reason: str) -> bool:
    """Whether a call not followed for ``reason`` (:meth:`gblint.abstract.gaps.Gaps.unfollowed`)
    has a target that cannot be decided before the code runs (a value known only at run time),
    rather than one in a package gblint was not asked to read (``--follow-imports`` reads it) or one
    too deep in a chain of calls (:data:`gblint.dynamo.consequences._MAX_CHAIN`)."""
    return not reason.startswith("package `") and not too_deep(reason)


def too_deep(reason: str) -> bool:
    """Whether a call was not followed for ``reason`` because the chain of calls to it is too deep."""
    return reason.startswith("the call chain is deeper")


def region_graphs(walks, region) -> Dict[str, Optional[int]]:
    """Predicted FX graphs of ``region`` (a :class:`gblint.core.model.Region`) over the frames of its walk in
    ``walks``, as ``--explain`` counts them: JSON ``coverage.regions[]``'s ``graphs`` (from definite breaks
    and skips) and ``graphs_at_most`` (if every conditional break happened); None when it has no walk."""
    walk = next((w for w in walks if w.region is region), None)
    if walk is None:
        return {"graphs": None, "graphs_at_most": None}
    return {"graphs": sum(fr.graphs for fr in walk.frames),
            "graphs_at_most": sum(fr.graphs_at_most for fr in walk.frames)}
