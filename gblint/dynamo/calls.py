"""What the values of a call decide in the frames it reaches (``docs/semantics.md`` §0, rule 6).

Dynamo traces only the branch the run's values take. :class:`CallValues` is the part of the
consequence model (:class:`gblint.dynamo.consequences.Consequences`) that knows, for a frame walked
with its parameters holding some values (:mod:`gblint.abstract.values`): which events are never
reached, which lie on error paths, what a callee's parameters hold, what the compiled entry is
called with, and whether Dynamo compiles a callee alone when it runs eagerly after a break.
"""
from __future__ import annotations

import dataclasses

from typing import Dict, Iterable, Iterator, List, Optional, Set, Tuple

from ..abstract import grads, keyed, ndarrays, values
from .branch_cover import Way, way_to
from ..abstract.certainty import NONEMPTY
from ..abstract.env import Env
from ..abstract.sizes import nonempty_test
from .index import (Resolved, cached_property_break, construct_break, dirty_apply_break, disabled_break, rnn_break,
                    rnn_first_read)
from ..core.model import Block, BlockKind, Event, EventKind, Expr, Frame, FunctionInfo, Outcome
from ..core.ops import Op
from ..core.semantics import CALLERS_RESUME
from ..core.fix_requests import tensor_condition

# What a call runs: a frame (with what its parameters hold, when the interpreter says) or a
# break the call itself is, and whether it runs as a higher-order op's body (``checkpoint``).
CallTarget = Tuple[Resolved, Optional[values.Env], bool]

# blocks where Dynamo does not resume after a break: it skips the frame (docs/semantics.md §0)
_NOT_RESUMING = frozenset({BlockKind.LOOP, BlockKind.WHILE_TEST, BlockKind.TRY, BlockKind.WITH, BlockKind.COMP,
                           BlockKind.GENEXPR, BlockKind.HANDLER})


def call_key(frame: Frame, ev: Event) -> Tuple[str, str, int]:
    """``(path, qualname, position)`` of the event ``ev`` among the events of ``frame``: a key that
    outlives the event object (an :class:`gblint.core.model.Event` is not hashable, and an ``id`` may be
    reused); -1 for an event not in the frame's list."""
    return frame.path, frame.name, next((i for i, e in enumerate(frame.info.events) if e is ev), -1)


class CallValues:
    """Value-dependent reach for the consequence walk. Needs ``self.project`` (a
    :class:`gblint.dynamo.index.Project`), ``self.error_paths`` (bool), and the memo dicts
    ``self._reads``, ``self._entry_envs`` and ``self.calls``; ``self.rnn_calls_resume``: whether the
    torch predicted makes an RNN module's call a break it resumes after (``rnn-call-resumes``);
    ``self.cached_property_locks``: whether a ``functools.cached_property`` read locks (``cached-property-locks``)."""

    project = None
    error_paths = False
    rnn_calls_resume = False
    cached_property_locks = False
    _reads: Dict[Tuple[str, str], Set[str]]
    _entry_envs: Dict[tuple, values.Env]  # (path, qualname, the wrapper closure's frame or None)
    _helpers: Dict[str, object]
    # (path, qualname) of a caller -> id(call event) -> (the event, its targets); see call_targets
    calls: Dict[Tuple[str, str], Dict[int, Tuple[Event, tuple]]]
    # call_key of a call resolved to nothing -> why (gblint.abstract.gaps.Gaps.unfollowed)
    reasons: Dict[Tuple[str, str, int], Optional[str]]

    def resolved_calls(self, frame: Frame) -> List[Tuple[Event, tuple]]:
        """``(call event, targets)`` for each call of ``frame`` a walk resolved, in source order."""
        done = self.calls.get((frame.path, frame.name), {})
        return [done[id(ev)] for ev in frame.info.events if id(ev) in done]

    def reached_calls(self, entry: Frame) -> Iterator[Tuple[Frame, Event, tuple]]:
        """``(caller, call event, targets)`` for every call the walks resolved (:meth:`call_targets`)
        in the frames reachable from ``entry`` through them: each frame once, depth first in
        source order, its calls in source order. Calls a false test guards were never resolved
        and are not listed."""
        seen = {(entry.path, entry.name)}
        todo: List[Frame] = [entry]
        while todo:
            frame = todo.pop()
            found = self.resolved_calls(frame)
            for ev, targets in found:
                yield frame, ev, targets
            for ev, targets in reversed(found):
                for t in reversed(targets):
                    if isinstance(t, Frame) and (t.path, t.name) not in seen:
                        seen.add((t.path, t.name))
                        todo.append(t)

    def skips(self, ev: Event, env: Optional[values.Env] = None) -> bool:
        """Whether the walk leaves ``ev`` out: a test around it is false for the values the
        frame was called with (``env``, :mod:`gblint.abstract.values`), or it lies on an error path (a
        branch that raises unless its test is known true, an ``except`` body; ``docs/semantics.md``
        §0) and error paths are not reported. Dynamo traces only the branch the values take,
        and a normal run does not take these. A gate (a break that happens only for some values,
        such as iterating a set of tensors passed in) is left out unless its test is known true."""
        env = env or Env()
        for b in ev.blocks:
            if b.test is None:
                continue
            truth = values.decide(b.test, env)
            if truth is False or (truth is None and b.kind == BlockKind.GATE):
                return True
        if ev.tensor_param is not None and values.not_tensor(env.bindings.get(ev.tensor_param)):
            return True  # a break on the parameter as a tensor, and the call passes something else
        if ev.passed_tensor and not _tensor_passed(ev, env):
            return True  # only a tensor passed in makes it a break, and none is
        return not self.error_paths and any(b.kind == BlockKind.ERROR_PATH and _undecided(b, env) for b in ev.blocks)

    def event_conditions(self, ev: Event, env: Optional[values.Env]) -> Tuple[str, ...]:
        """The conditions of the break ``ev`` in a frame whose parameters hold ``env``: the kind it
        needs (:meth:`kind_conditions`), then the tests around it (:meth:`residual`)."""
        return self.kind_conditions(ev, env) + self.residual(ev.blocks, env or Env())

    @staticmethod
    def kind_conditions(ev: Event, env: Optional[values.Env]) -> Tuple[str, ...]:
        """The kind the break ``ev`` needs that the walk has not proven, as a condition: a break
        on a parameter because the function uses it as a tensor (``ev.tensor_param``, a guess
        from how the name is used) holds only when it is one; a call that passes a value known to
        be a tensor (:func:`gblint.abstract.values.holds_tensor`) makes it a fact. (A value known not to be
        one leaves the break out: :meth:`skips`.)"""
        if ev.tensor_param is None or _tensor_passed(ev, env, arrays=False):  # an array: no torch rewrite
            return ()
        return (tensor_condition(ev.tensor_param),)

    def residual(self, blocks: Iterable[Block], env: values.Env) -> Tuple[str, ...]:
        """The tests around an event that ``env`` does not make true, as written (an error path
        as :data:`gblint.abstract.values.ERROR_PATH`; in a method of an ``nn.Module`` class whose mode the
        code does not set, a test the mode alone decides as :data:`gblint.abstract.values.TRAIN_MODE` or
        :data:`gblint.abstract.values.EVAL_MODE`)."""
        found = tuple(b for b in blocks if _undecided(b, env))
        mode = env.mode is None and any(b.test is not None and values.mentions(b.test, Op.TRAINING) for b in found) \
            and self._in_module_method(env)
        return tuple(values.ERROR_PATH if b.kind == BlockKind.ERROR_PATH
                     else (mode and b.test is not None and values.mode_condition(b.test, env)) or _sizes(b, env)
                     for b in found)

    def _in_module_method(self, env: values.Env) -> bool:
        """Whether ``env`` is the frame of a method of an ``nn.Module`` class (``self.training`` is its mode)."""
        here = env.frame
        summary = self.project.by_path.get(here.path) if here is not None else None
        info = summary.functions.get(here.qualname) if summary is not None else None
        return info is not None and info.class_name is not None and self._module_method(Frame(here.path, info))

    @staticmethod
    def via(callee_env: Optional[values.Env]) -> Tuple[str, ...]:
        """The test a call target runs under because the called value may be another one
        (``Env.via``, set by :meth:`call_targets`), as a condition."""
        return (callee_env.via,) if callee_env and callee_env.via else ()

    @staticmethod
    def may_skip_frame(ev: Event) -> bool:
        """Whether the break ``ev`` may leave the rest of its frame untraced (a break that does not resume, or one
        in a loop, ``try``, ``with`` or comprehension): where it happens, a later break of the frame is not met."""
        return ev.outcome != Outcome.RESUME or any(b.kind in _NOT_RESUMING for b in ev.blocks)

    def way(self, frame: Frame, ev: Event, env: Optional[values.Env]) -> Optional[Way]:
        """The undecided tests on the way to the break ``ev`` of ``frame`` as choices
        (:func:`gblint.dynamo.branch_cover.way_to`); None where its kind is not proven either (:meth:`kind_conditions`)."""
        return None if self.kind_conditions(ev, env) else way_to(ev, env, frame.path)

    @staticmethod
    def uncertain(blocks: Iterable[Block], env: values.Env) -> bool:
        """Whether a branch test around an event is not known to be true for ``env``."""
        return any(_undecided(b, env) for b in blocks)

    def relevant(self, frame: Frame, env: values.Env) -> values.Env:
        """``env`` cut to the parameters ``frame``'s tests and call arguments read (so that calls
        with values that change nothing share one walk); of its other fields, the resolver, the frame, the
        closure's frame and the mode."""
        if env is None:
            return env
        key = (frame.path, frame.name)
        reads = self._reads.get(key)
        if reads is None:
            reads = set()
            seen = set()
            info = frame.info
            for ev in info.events:
                for b in ev.blocks:
                    if b.test is not None and id(b) not in seen:
                        seen.add(id(b))
                        reads.update(values.params_used(b.test))
                if ev.args is not None:
                    for a in ev.args.positional + tuple(v for _, v in ev.args.keywords) + ev.args.rest \
                            + ev.args.rest_kw:
                        reads.update(values.params_used(a))
                reads.update(values.params_used(ev.func))
                if ev.tensor_param is not None:
                    reads.add(ev.tensor_param)
            for assigned in info.locals.values():
                for v in assigned:
                    reads.update(values.params_used(v))
            for v in info.results:
                reads.update(values.params_used(v))
            reads.update(p.name for p in info.params if p.name in info.locals)  # a `local` reads its argument too
            if info.local_defs:  # what closures made here read of this frame
                summary = self.project.by_path.get(frame.path)
                prefix = info.qualname + "."
                for qual, inner in (summary.functions.items() if summary is not None else ()):
                    if qual.startswith(prefix):
                        reads.update(_free_names(inner))
            self._reads[key] = reads
        return Env({k: v for k, v in env.bindings.items() if k in reads}, resolver=env.resolver, frame=env.frame,
                   outer=env.outer, mode=env.mode)

    def callee_values(self, ev: Event, callee: Frame, env: values.Env,
                      bound: Optional[values.Env] = None) -> Tuple[values.Env, bool]:
        """For the call ``ev`` of ``callee`` from a frame whose parameters hold ``env``: what
        ``callee``'s parameters hold (cut to what it reads; ``bound``: what the interpreter
        bound them to, else they are bound here), and whether Dynamo leaves ``callee``
        uncompiled when it runs eagerly after a break (:meth:`_runs_uncompiled`)."""
        if bound is None:
            bound = self._bind(ev, callee, env)
        if env.mode is not None and self._module_method(callee):  # `.eval()` sets every submodule's mode
            bound = bound.replace(mode=env.mode)
        return self.relevant(callee, bound), self._runs_uncompiled(ev, callee, bound)

    def _module_method(self, frame: Frame) -> bool:
        """Whether ``frame`` is a method of an ``nn.Module`` class (whose ``self.training`` is
        the mode) or a function outside any class; not a method of another class."""
        if frame.info.class_name is None:
            return True
        summary = self.project.by_path.get(frame.path)
        cls = summary.classes.get(frame.info.class_name) if summary is not None else None
        return cls is not None and self.project.is_module_class(summary, cls)

    def call_targets(self, frame: Frame, ev: Event, env: Optional[values.Env]) -> List[CallTarget]:
        """What the call ``ev`` of ``frame`` (its parameters holding ``env``) runs: the frames
        the interpreter finds its function to be (:mod:`gblint.abstract.interp`), with what their
        parameters hold, or the break the call itself is. A call whose function the interpreter
        cannot decide runs nothing here: it is listed as not followed (:attr:`reasons`), never
        given a default target. Each call is recorded in :attr:`calls`, so that a region's call
        tree can be drawn (:meth:`reached_calls`)."""
        out: List[CallTarget] = []
        seen = set()
        if ev.func is not None:
            for t in self.project.interp.calls.targets(frame, ev, env):
                via = f"{ev.call_text} is {t.maybe}" if t.maybe else None
                if t.frame is not None:
                    if t.kind == "cached_getter" and self.cached_property_locks:
                        continue  # the read skips the frame at `__get__`'s lock, before the getter runs
                    marks = dict({"via": via} if via else {}, **({"read": True} if t.read else {}))
                    callee_env = (t.env or Env()).replace(**marks) if marks else t.env
                    key = (t.frame.path, t.frame.name, values.env_key(callee_env or Env()))
                    if key not in seen:
                        seen.add(key)
                        out.append((t.frame, callee_env, t.flat))
                elif t.kind == "construct":
                    out.append((construct_break(ev), Env(via=via) if via else None, False))
                elif t.kind == "disabled":
                    out.append((disabled_break(ev, t.name), Env(via=via) if via else None, False))
                elif t.kind == "rnn":
                    out.append((rnn_break(ev, t.name), Env(via=via) if via else None, False))
                elif t.kind == "cached_property" and self.cached_property_locks:  # computed before: a plain read
                    out.append((cached_property_break(ev, t.name), Env(via=f"{t.name} was not computed before"),
                                False))
        out = _dirty_apply(ev, out, self.project) + (without_grad(out) if grad_off(ev) else
                                                      out + _backward(out, self.project))
        if self.rnn_calls_resume:
            out = [(rnn_resumes(t), e, f) if isinstance(t, Event) and t.code in CALLERS_RESUME else (t, e, f)
                   for t, e, f in out]
        else:  # before 2.15 the module is not wrapped at all: the first read breaks
            out = [(rnn_first_read(t, frame), e, f) if isinstance(t, Event) and t.code == "GBL118" else (t, e, f)
                   for t, e, f in out]
        if out or not ev.read:  # recorded for the call tree (gblint.dynamo.calltree); no target: not followed
            self.calls.setdefault((frame.path, frame.name), {})[id(ev)] = (ev, tuple(t for t, _, _ in out))
        if not ev.read and (key := call_key(frame, ev)) not in self.reasons:
            if not out:
                self.reasons[key] = self.project.interp.gaps.unfollowed(frame, ev, env)
            elif (partly := self.project.interp.gaps.partly_unfollowed(frame, ev, env)) is not None:
                self.reasons[key] = partly
        return out

    @staticmethod
    def _bind(ev: Event, callee: Frame, env: values.Env) -> values.Env:
        info = callee.info
        if any(d.qualname not in _TRANSPARENT_DECORATORS for d in info.decorators):
            return Env()  # a wrapper may call it with other arguments
        parts = ev.call_text.split(".")
        # `Class.method(obj, ...)` passes the instance itself; a classmethod gets its class anyway
        explicit = len(parts) >= 2 and parts[-2] == (info.class_name or "").rsplit(".", 1)[-1] \
            and info.decorator("classmethod") is None
        bound = values.bind(ev.args, info.params, env, bound=_is_method(info) and not explicit)
        here = bound.resolver.frame_env(callee, bound) if bound.resolver is not None else bound
        changed = [name for name in info.mutated if name in bound.bindings and values.changed_by(info, name, here)]
        for name in changed:  # a collection the function changes before (or while) testing it
            if bound.bindings[name].op == Op.SET:
                del bound.bindings[name]
            else:
                bound.bindings[name] = keyed.changed(bound.bindings[name], info, name,
                                                     lambda k: values.evaluate(k, here))
        return bound

    @staticmethod
    def _runs_uncompiled(ev: Event, callee: Frame, bound: values.Env) -> bool:
        """Whether Dynamo leaves ``callee``, its parameters holding ``bound`` from the call
        ``ev``, uncompiled when it runs eagerly after a break: no tensor-related object in its
        frame (``has_tensor_in_frame`` in torch/_dynamo/convert_frame.py): it names no torch
        module and every argument is a known constant (``docs/semantics.md`` §0 rule 7)."""
        info = callee.info
        if info.uses_torch or _is_method(info) or info.is_generator or ev.args is None:
            return False
        return all(p.name in bound.bindings and values.is_constant(bound.bindings[p.name]) for p in info.params)

    def _site_calls(self, region, key) -> List[values.Env]:
        """What the entry's parameters hold in the calls of the compiled object made in the
        function that compiles it (a driver's ``torch.compile(Net())(torch.randn(2, 4))``)."""
        summary = self.project.by_path.get(region.site[0]) if region.site and region.compiled is not None else None
        info = summary.functions.get(region.site[1]) if summary is not None else None
        if info is None:
            return []
        interp = self.project.interp
        caller = interp.frame_env(Frame(summary.path, info), None)
        envs = []
        for ev in info.events:
            if ev.kind == EventKind.CALL and ev.func is not None and ev.args is not None \
                    and interp.value(ev.func, caller) == region.compiled:
                envs.extend(self._compiled_call_envs(region, key, interp.calls.event_args(ev, caller, None)))
        return envs

    def _compiled_call_envs(self, region, key, args) -> List[values.Env]:
        """What the entry ``key`` (path, qualname, ...) is run with when the compiled object is
        called with ``args`` (through its wrappers, the instance as ``self``); ``[Env()]`` when the
        call does not reach it in a way gblint can bind."""
        found = [t.env for t in self.project.interp.calls.calls_of(region.compiled, args)
                 if (t.frame.path, t.frame.name) == key[:2]]
        return found or [Env()]

    def entry_env(self, region) -> values.Env:
        """What the compiled entry's parameters hold in every call of it the project makes (what
        all of those calls agree on): calls in functions that the interpreter resolves to the entry
        (with what it binds the parameters to; a call it cannot decide is not counted), and calls at
        module level of a name that holds the compiled object (a driver's ``model(**inputs)``)
        or of the compiled function's own name. Empty when gblint sees no call of it.
        ``region`` is a :class:`gblint.core.model.Region`."""
        entry = region.entry
        key = (entry.path, entry.name, region.env.outer if region.env else None)  # a wrapper closure per function
        if key in self._entry_envs:
            return self._entry_envs[key]
        envs = []
        name = entry.info.name
        holders = set(region.holders)
        bound = _is_method(entry.info)
        interp = self.project.interp
        for summary in list(self.project.by_path.values()):  # resolving calls may load more modules
            for held, args in summary.module_calls:
                if (summary.path, held) in holders or (held == name and summary.path == entry.path and not bound):
                    caller = interp.module_env(summary.path)
                    if region.compiled is not None:  # through its wrappers, the instance as `self`
                        envs.extend(self._compiled_call_envs(region, key, interp.calls.call_args(args, caller)))
                    else:
                        envs.append(values.bind(args, entry.info.params, caller, bound=bound))
            for info in summary.functions.values():
                for ev in info.events:
                    if ev.kind != EventKind.CALL or ev.call_text.rsplit(".", 1)[-1] != name:
                        continue
                    caller = Frame(summary.path, info)
                    for t in interp.calls.targets(caller, ev, None):
                        if t.frame is not None and (t.frame.path, t.frame.name) == key[:2]:
                            envs.append(t.env if t.env is not None
                                        else self._bind(ev, entry, interp.frame_env(caller, None)))
                            break
        envs.extend(self._site_calls(region, key))
        env = values.merge(envs) if envs else (region.env.replace() if region.env else Env())
        env = interp.frame_env(entry, env)
        if region.training is not None:
            env.mode = values.const(region.training)
        self._entry_envs[key] = env
        return env


# Decorators that call the function with the arguments it was called with.
_TRANSPARENT_DECORATORS = frozenset({"staticmethod", "classmethod", "functools.wraps", "torch.compile",
                                     "torch.compiler.disable", "torch._dynamo.disable", "torch.no_grad",
                                     "torch.inference_mode", "torch.enable_grad", "typing.overload", "abc.abstractmethod",
                                     "torch.jit.unused", "torch.jit.ignore", "torch.compiler.allow_in_graph"})


def _free_names(info: FunctionInfo) -> Set[str]:
    """The names of enclosing functions that ``info``'s recorded values read (``free``)."""
    found: Set[str] = set()

    def walk(e: Optional[Expr]) -> None:
        if e is None:
            return
        if e.op == Op.FREE:
            found.add(e.value)
        for p in e.parts:
            walk(p)

    for ev in info.events:
        walk(ev.func)
        for b in ev.blocks:
            walk(b.test)
        if ev.args is not None:
            for a in ev.args.positional + tuple(v for _, v in ev.args.keywords) + ev.args.rest + ev.args.rest_kw:
                walk(a)
    for assigned in info.locals.values():
        for v in assigned:
            walk(v)
    for v in info.results:
        walk(v)
    return found


def _tensor_passed(ev: Event, env: Optional[values.Env], arrays: bool = True) -> bool:
    """Whether the call gives ``ev.tensor_param`` a value proven to be (or hold) a tensor; a NumPy array is one to
    Dynamo (``arrays``) but not to a torch rewrite of the break (gblint.abstract.ndarrays)."""
    value = env.bindings.get(ev.tensor_param) if env else None
    return value is not None and values.holds_tensor(value) is True and (arrays or not ndarrays.is_ndarray(value))


def _undecided(b: Block, env: values.Env) -> bool:
    """Whether ``b`` is a branch (or an error path) whose test ``env`` does not make true."""
    return b.kind in (BlockKind.BRANCH, BlockKind.OPERAND, BlockKind.ERROR_PATH, BlockKind.AFTER_RETURN) and \
        (b.test is None or values.decide(b.test, env) is not True)


def _is_method(info: FunctionInfo) -> bool:
    return info.class_name is not None and info.qualname == f"{info.class_name}.{info.name}" \
        and info.decorator("staticmethod") is None


def rnn_resumes(ev: Event) -> Event:
    """The break of an RNN module's call as torch 2.15 makes it: a graph break it resumes after
    (GB0148), not a skip of the calling frame (``rnn-call-resumes``, docs/semantics.md §8.11)."""
    return dataclasses.replace(ev, gb_ids=("GB0148",), outcome=Outcome.RESUME)


def _sizes(block: Block, env: values.Env) -> str:
    """The condition of the undecided test of ``block`` in ``env``: as written, marked as a test that inputs are not
    empty (:data:`gblint.abstract.certainty.NONEMPTY`) where it is one of values that hold tensors there."""
    tensor = lambda r: values.holds_tensor(values.evaluate(r, env)) is True  # noqa: E731
    return NONEMPTY + block.condition if block.test is not None and nonempty_test(block.test, tensor) \
        else block.condition


def grad_off(ev: Event) -> bool:
    """Whether the call ``ev`` runs with grad off: under ``torch.no_grad()``, ``inference_mode()`` or
    ``set_grad_enabled(False)`` in its function."""
    return grads.off_in(ev.blocks)


def without_grad(out: List[CallTarget]) -> List[CallTarget]:
    """The targets ``out`` of a call made with grad off: ``Function.apply``'s ``forward`` gets the context
    :data:`gblint.abstract.nn_overlay.NO_GRAD_CTX`, so that ``mark_dirty`` in it is known to break (GB2019)."""
    from ..abstract.nn_overlay import NO_GRAD_CTX
    found = []
    for target, env, flat in out:
        if _applied_forward(target, env):
            env = env.replace()
            env.bindings[target.info.params[0].name] = NO_GRAD_CTX
        found.append((target, env, flat))
    return found


def _backward(out: List[CallTarget], project) -> List[CallTarget]:
    """The ``backward`` of a ``Function.apply(...)`` call whose targets are ``out`` (its ``forward`` bound to the
    context of :func:`gblint.abstract.nn_overlay.function_apply`), where an input may require grad: Dynamo traces
    it too (``AutogradFunctionVariable.call_apply`` speculates the backward graph), and a break in it breaks at the
    call (measured: tests/cases/kinds kd10). Grad on where the compiled code is called is not followed: it is the
    condition, with the input's ``requires_grad`` where that is not known; none where no input requires grad."""
    from ..abstract.nn_overlay import FUNCTION_CTX
    found: List[CallTarget] = []
    for target, env, _flat in out:
        via = _grad_condition(target, env) if _applied_forward(target, env) else None
        if via is None or target.info.class_name is None:
            continue
        summary = project.by_path.get(target.path)
        cls = summary.classes.get(target.info.class_name) if summary is not None else None
        backward = project.method(summary, cls, "backward") if cls is not None else None
        if backward is None or not backward.info.params:
            continue
        bindings = {backward.info.params[0].name: FUNCTION_CTX}
        bindings.update({p.name: Expr(Op.TENSOR) for p in backward.info.params[1:]})
        found.append((backward, Env(bindings, via=via), False))
    return found


def _marks_through_helper(forward: Frame, project) -> Optional[str]:
    """The call text of a function ``forward`` hands its context to (``_mark(ctx, x)``) that calls its
    ``mark_dirty`` (a GBL141 event there), else None."""
    ctx = Expr(Op.PARAM, forward.info.params[0].name)
    for e in forward.info.events:
        if e.kind == EventKind.CALL and e.args is not None and ctx in e.args.positional + tuple(
                v for _, v in e.args.keywords):
            for t in project.interp.calls.targets(forward, e, None):  # the functions the interpreter finds it runs
                if t.frame is not None and any(h.code == "GBL141" for h in t.frame.info.events):
                    return e.call_text
    return None


def _dirty_apply(ev: Event, out: List[CallTarget], project=None) -> List[CallTarget]:
    """The break at the call ``ev`` when it is ``Function.apply(...)`` (its ``forward`` bound to the
    context object of :func:`gblint.abstract.nn_overlay.function_apply`) and ``forward`` marks an input dirty
    that it does not return as itself (the GBL141 event without a gate): Dynamo breaks at the call where
    an argument requires grad (``AutogradFunctionVariable.call_apply``); left out where none does,
    conditional on it where that is not known (:func:`gblint.abstract.grads.requires_grad`)."""
    if grad_off(ev):
        return []  # torch.is_grad_enabled() is false: forward is inlined and breaks at mark_dirty instead
    for target, env, _flat in out:
        if not _applied_forward(target, env):
            continue
        helper = None
        if not any(e.code == "GBL141" and not any(b.kind == BlockKind.BRANCH and b.line == e.span.line for b in e.blocks)
                   for e in target.info.events):
            helper = _marks_through_helper(target, project) if project is not None else None
            if helper is None:
                continue
        via = _grad_condition(target, env)
        if via is not None:  # whether forward returns what a helper marks as itself is not seen: that is the condition
            return [(dirty_apply_break(ev), Env(via=f"{helper}(...) leaves an input dirty" if helper else via), False)]
    return []


def _applied_forward(target, env: Optional[values.Env]) -> bool:
    """Whether the call target ``target`` (its parameters holding ``env``) is a ``Function``'s ``forward`` run by
    ``Function.apply``: its first parameter bound to the context of :func:`gblint.abstract.nn_overlay.function_apply`."""
    from ..abstract.nn_overlay import FUNCTION_CTX
    return isinstance(target, Frame) and env is not None and bool(target.info.params) \
        and env.bindings.get(target.info.params[0].name) == FUNCTION_CTX


def _grad_condition(forward: Frame, env: values.Env) -> Optional[str]:
    """The condition under which an input of the ``Function.apply`` call running ``forward`` with ``env`` requires
    grad: grad being on where the compiled code is called (not followed: no fact) where one surely requires grad, the
    ``requires_grad`` of the first whose is not known, None where none does
    (:func:`gblint.abstract.grads.requires_grad`)."""
    needs_grad = {p.name: grads.requires_grad(env.bindings[p.name]) for p in forward.info.params[1:]
                  if p.name in env.bindings}
    if True in needs_grad.values():
        return "grad is on where the compiled code is called"
    unknown = [n for n, g in needs_grad.items() if g is None]
    return f"{unknown[0]}.requires_grad" if unknown else None
