"""A call Dynamo cannot rebuild at a break: a method of an object the frame itself built.

At a graph break met while inlining a call, Dynamo compiles the graph so far and emits bytecode that
rebuilds the frame's stack, the called object first, so that the call runs in Python and the frame
resumes after it (``create_call_resume_at`` in ``torch/_dynamo/symbolic_convert.py``). An object built
inside the traced code has no source to load it from; Dynamo rebuilds such an object itself, but not a
method bound to it: ``UserMethodVariable`` (and ``UserFunctionVariable``, a staticmethod read from it)
has no ``reconstruct``, so ``PyCodegen`` fails with GB0092 "Reconstruction failure ... sourceless
variable UserMethodVariable" (``torch/_dynamo/codegen.py``, the same in 2.13 and 2.14). The break
cannot resume: like a break in a ``try`` block, the graph up to the last checkpoint (at least 2 ops)
is kept and the rest of the frame runs eagerly, or with no checkpoint the frame is skipped; the
method then runs as a frame of its own. Measured on torch 2.13 (``tests/cases/kinds/kb57_*``): a
method of ``S(x)``, of a dataclass, of an abstract base's subclass, of a class picked from a dict, of
the object a helper returns, and a staticmethod read from the object all skip the frame; a
classmethod, ``S.step(s, x)``, ``s(x)`` (``__call__``), a nested function, a ``functools.partial``
and a method of an object passed in resume.
"""
from __future__ import annotations

import dataclasses
from typing import List, NamedTuple, Optional, Sequence, Tuple

from ..core.model import BlockKind, Dotted, Event, EventKind, Expr, Frame, MethodFix, Outcome
from ..abstract.objects import Bound, Closure, Cls, Func, Inst
from ..core.namespace import ANY
from ..core.ops import Op
from .resumed import Checkpoint, resumed_tail
from .walk_api import Reporter

#: bases that leave a class plain: its instance is a ``UserDefinedObjectVariable`` Dynamo builds itself
PLAIN_BASES = frozenset({"object", "abc.ABC", "ABC", "typing.Generic", "Generic"})
_MAX_DEPTH = 3  # helpers that return what another helper built, followed this deep

BRIEF_TAIL = "{subject}, a method of an object built here, breaks: the rest of `{frame}` runs eagerly (GB0092)"
HINT = ("Build the object outside the compiled function and pass it in, call the method through its class "
        "(`Cls.method(obj, ...)`), or remove the break from the method.")


class Unrebuilt(NamedTuple):
    """A call of a method of an object the frame built (:func:`fresh_method`): ``built``, the construction
    that builds the object, as text (``"`Stepper(...)`"``); ``fix``, the rewrite that calls it through the
    object's class, where that provably calls the same function (None: no such rewrite)."""

    built: str
    fix: Optional[MethodFix] = None
    # the condition that no break met after the object is built resumes the frame (the object would be an
    # argument of the resume function, which has a source); empty where none may
    unsure: Tuple[str, ...] = ()
    # (line, ops) of each construction: the frame's op count takes the call that builds the object and its
    # binding for tensor ops (its result is not known to the syntax), which Dynamo does not trace
    made_ops: Tuple[Tuple[int, int], ...] = ()


def fresh_method(interp, frame: Frame, ev: Event, env, splits: Sequence[Tuple[int, bool]] = ()) -> Optional[Unrebuilt]:
    """What the call ``ev`` of ``frame`` (parameters holding ``env``, a :class:`gblint.abstract.values.Env`)
    calls when it is a method (or staticmethod) read from an object ``frame`` builds itself, for
    every value the object may be; else None. ``interp`` is the project's :class:`gblint.abstract.interp.Interpreter`;
    ``splits``, ``(line, sure)`` of the frame's breaks met so far that resume: one between the construction and the
    call hands the object to the resume function as an argument, which has a source (None where it surely happens;
    a condition, :attr:`Unrebuilt.unsure`, where it may).

    None too where the call may read something else than the class's function: a method of the class stores
    ``self.name`` (or attributes by a run-time name, or in ``__dict__``), the program stores ``name`` on some
    object, a class defines ``__getattribute__`` or ``__new__`` (which may return an object built elsewhere)."""
    func = ev.func
    if func is None or func.op != Op.ATTR or ev.read:
        return None
    env = interp.frame_env(frame, env)
    made: List[Expr] = []
    built = _built_here(interp, frame, func.parts[0], env, 0, made)
    if built is None:
        return None
    events = frame.info.events
    index = next((i for i, e in enumerate(events) if e is ev), len(events))
    where = [max((i for i in range(index) if events[i].kind == EventKind.CALL and events[i].func == m), default=None)
             for m in made]
    if not where or None in where:
        return None
    since = [sure for line, sure in splits if line >= min(events[i].span.line for i in where)]
    if any(since):
        return None
    unsure = (f"no break before `{ev.call_text}(...)` resumes `{frame.name}`",) if since else ()
    made_ops = tuple((events[i].span.line, min(2, events[i + 1].ops_index - events[i].ops_index)) for i in where)
    value = interp.evaluate(func.parts[0], env, None)
    parts = value.parts if value.op == Op.UNION else (value,)
    static = set()
    for inst in parts:
        if not isinstance(inst, Inst) or not _class_lookup_is_instance_lookup(interp, inst.cls, func.value):
            return None
        method = interp.class_attr(inst.cls, func.value, inst, None)
        static.add(not isinstance(method, Bound))
        if isinstance(method, Bound):
            if not isinstance(method.recv, Inst):  # a classmethod: bound to the class, which has a source
                return None
            method = method.func
        if not isinstance(method, (Func, Closure)) or interp.changed(func.value, method, inst.cls.path) != method:
            return None
    receiver, _, name = ev.call_text.partition(".")
    fix = MethodFix(ev.span.line, frame.name, receiver, name, static.pop()) \
        if len(static) == 1 and receiver.isidentifier() and name == func.value else None
    return Unrebuilt(built, fix, unsure=unsure, made_ops=made_ops)


def _class_lookup_is_instance_lookup(interp, cls: Cls, name: str) -> bool:
    """Whether ``type(obj).name`` is what ``obj.name`` reads for an instance ``obj`` of ``cls``, built by ``cls``:
    no method assigns ``self.name``, attributes by a run-time name (``setattr(self, k, v)``) or in ``__dict__``
    (an instance attribute would come first), no class on the way defines ``__getattribute__`` or ``__new__``,
    and its metaclass, if any, is ``abc.ABCMeta`` (another may make ``cls(...)`` return anything)."""
    for _summary, info in interp.class_mro(cls):
        if name in info.attrs or name in info.assigned or ANY in info.assigned or "__dict__" in info.mutated \
                or "__getattribute__" in info.methods or "__new__" in info.methods:
            return False
        if info.metaclass and info.metaclass.rsplit(".", 1)[-1] != "ABCMeta":
            return False
    return True


def _built_here(interp, frame: Frame, recv: Expr, env, depth: int, made: List[Expr]) -> Optional[str]:
    """How ``recv`` (an expression of ``frame``) is an object built by the traced code itself: the
    construction that builds it, as text; None when it may come from elsewhere. The calls of ``frame`` that
    build it go into ``made``."""
    if recv.op == Op.LOCAL:
        if any(p.name == recv.value for p in frame.info.params):
            return None
        bindings = frame.info.locals.get(recv.value, ())
        found = [_built_here(interp, frame, b, env, depth, made) for b in bindings]
        return found[0] if found and all(found) else None
    if recv.op != Op.CALLV or depth > _MAX_DEPTH:
        return None
    if depth == 0:
        made.append(recv.parts[0])
    fn = interp.evaluate(recv.parts[0], env, None)
    parts = fn.parts if fn.op == Op.UNION else (fn,)
    texts = []
    for part in parts:
        if isinstance(part, Cls):
            if not _plain(interp, part):
                return None
            texts.append(f"`{part.qualname.rsplit('.', 1)[-1]}(...)`")
            continue
        called, _ = interp.calls.program_function(part)
        if called is None or not called.info.results or called.info.is_generator:
            return None
        inner = interp.frame_env(called, None)
        got = [_built_here(interp, called, r, inner, depth + 1, made) for r in called.info.results]
        if not all(got):
            return None
        texts.append(f"`{called.name}(...)`")
    return " or ".join(dict.fromkeys(texts)) if texts else None


def _plain(interp, cls: Cls) -> bool:
    """Whether ``cls`` and each of its bases are classes of the project or :data:`PLAIN_BASES` (no
    ``nn.Module``, tuple, exception or other library class, whose instances Dynamo models otherwise)."""
    mro = interp.class_mro(cls)
    if not mro:
        return False
    known = {info.qualname for _, info in mro}
    for summary, info in mro:
        for base in info.bases:
            if base.split("[", 1)[0] in PLAIN_BASES:
                continue
            found = interp.project.class_info(summary, Dotted(base))
            if found is None or found[1].qualname not in known:
                return False
    return True


def unrebuilt_call(walk: Reporter, frame: Frame, site: Event, site_line: int, anchor: Event, checkpoint: Checkpoint,
                   trace, unrebuilt: Unrebuilt) -> Outcome:
    """Report through ``walk`` what the call ``anchor`` of ``frame``, a method of an object built as ``unrebuilt``
    says (:func:`fresh_method`), does when it reaches the break ``site`` (at ``site_line`` of its file): Dynamo
    breaks at the call (GB0092). After a checkpoint of at least 2 ops, ``TAIL`` (GBL208); else the frame, or the
    resume function it surely resumed in (:func:`gblint.dynamo.resumed.resumed_tail`), is skipped (GBL209). Each carries
    the rewrite through the object's class (``unrebuilt.fix``), where there is one."""
    what = unrebuilt.built
    reaches = f"`{anchor.call_text}(...)` reaches {site.detail}"
    why = (f"`{anchor.call_text}` is a method of an object built in `{frame.name}` by {what}; at the break (line "
           f"{site_line}) Dynamo cannot rebuild a method bound to an object the traced code built (GB0092 "
           "Reconstruction failure), so it cannot resume after the call")
    call = dataclasses.replace(anchor, detail=reaches, gb_ids=("GB0092",), hint=HINT)
    # the graph a checkpoint keeps ends before the outermost `with` around the call (measured: kb57 in_no_grad)
    withs = [b for b in anchor.blocks if b.kind == BlockKind.WITH]
    end = (withs[0].line, withs[0].ops_at_entry) if withs else (anchor.span.line + 1, anchor.ops_index)
    ops = end[1] - checkpoint.ops - sum(n for line, n in unrebuilt.made_ops if checkpoint.line < line < end[0])
    if ops >= 2:
        walk.emit("GBL208", Outcome.TAIL, frame.name, frame.path, anchor.span,
                  f"{reaches}: {why}; it compiles the graph up to the last checkpoint before the call (about {ops} "
                  f"ops) and runs the rest of `{frame.name}` eagerly.", HINT, call.gb_ids, trace,
                  subject=f"`{anchor.call_text}(...)`", brief=BRIEF_TAIL, fix_request=unrebuilt.fix)
        return Outcome.TAIL
    if checkpoint.line:
        return resumed_tail(walk, frame, dataclasses.replace(call, detail=f"`{anchor.call_text}(...)`"),
                            f"(a method of an object built by {what}, it reaches {site.detail} at line {site_line}: "
                            "GB0092)", checkpoint, frame.path, call.gb_ids, trace, unrebuilt.fix, "GBL209")
    walk.emit("GBL209", Outcome.SKIP, frame.name, frame.path, anchor.span,
              f"{reaches}: {why}; no checkpoint (>= 2 ops) precedes the call, so frame `{frame.name}` is skipped and "
              f"runs eagerly (the method is compiled as a frame of its own).", HINT, call.gb_ids, trace,
              subject=f"`{anchor.call_text}(...)`", fix_request=unrebuilt.fix)
    return Outcome.SKIP


__all__: Tuple[str, ...] = ("Unrebuilt", "fresh_method", "unrebuilt_call")
