"""What the values of a call decide in the frames it reaches (``docs/semantics.md`` §0, rule 6).

Dynamo traces only the branch the run's values take. :class:`CallValues` is the part of the
consequence model (:class:`gblint.consequences.Consequences`) that knows, for a frame walked
with its parameters holding some values (:mod:`gblint.values`): which events are never
reached, which lie on error paths, what a callee's parameters hold, what the compiled entry is
called with, and whether Dynamo compiles a callee alone when it runs eagerly after a break.
"""
from __future__ import annotations

from typing import Dict, Iterable, Iterator, List, Optional, Set, Tuple

from . import values
from .model import Block, BlockKind, Definition, Event, EventKind, Frame, FunctionInfo


class CallValues:
    """Value-dependent reach for the consequence walk. Needs ``self.project`` (a
    :class:`gblint.index.Project`), ``self.error_paths`` (bool), and the memo dicts
    ``self._reads``, ``self._entry_envs`` and ``self.calls``."""

    project = None
    error_paths = False
    _reads: Dict[Tuple[str, str], Set[str]]
    _entry_envs: Dict[Tuple[str, str], values.Env]
    _helpers: Dict[str, object]
    # (path, qualname) of a caller -> id(call event) -> (the event, its targets); see resolve
    calls: Dict[Tuple[str, str], Dict[int, Tuple[Event, tuple]]]

    def resolve(self, frame: Frame, ev: Event) -> list:
        """The targets of the call ``ev`` of ``frame`` (:meth:`gblint.index.Project.resolve_call`:
        frames, or the break the call itself is), recorded in :attr:`calls` so that a region's
        call tree can be drawn (:meth:`reached_calls`, :mod:`gblint.calltree`). No target means a
        call the walk could not follow."""
        targets = self.project.resolve_call(frame, ev)
        self.calls.setdefault((frame.path, frame.name), {})[id(ev)] = (ev, tuple(targets))
        return targets

    def resolved_calls(self, frame: Frame) -> List[Tuple[Event, tuple]]:
        """``(call event, targets)`` for each call of ``frame`` a walk resolved, in source order."""
        done = self.calls.get((frame.path, frame.name), {})
        return [done[id(ev)] for ev in frame.info.events if id(ev) in done]

    def reached_calls(self, entry: Frame) -> Iterator[Tuple[Frame, Event, tuple]]:
        """``(caller, call event, targets)`` for every call the walks resolved (:meth:`resolve`)
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
        frame was called with (``env``, :mod:`gblint.values`), or it lies on an error path (a
        branch that raises unless its test is known true, an ``except`` body; ``docs/semantics.md``
        §0) and error paths are not reported. Dynamo traces only the branch the values take,
        and a normal run does not take these."""
        env = env or {}
        for b in ev.blocks:
            if b.test is not None and values.decide(b.test, env) is False:
                return True
        return not self.error_paths and any(b.kind == BlockKind.ERROR_PATH and _undecided(b, env) for b in ev.blocks)

    @staticmethod
    def residual(blocks: Iterable[Block], env: values.Env) -> Tuple[str, ...]:
        """The tests around an event that ``env`` does not make true, as written (an error path
        as :data:`gblint.values.ERROR_PATH`)."""
        return tuple(values.ERROR_PATH if b.kind == BlockKind.ERROR_PATH else b.condition
                     for b in blocks if _undecided(b, env))

    @staticmethod
    def uncertain(blocks: Iterable[Block], env: values.Env) -> bool:
        """Whether a branch test around an event is not known to be true for ``env``."""
        return any(_undecided(b, env) for b in blocks)

    def relevant(self, frame: Frame, env: values.Env) -> values.Env:
        """``env`` cut to the parameters ``frame``'s tests and call arguments read (so that calls
        with values that change nothing share one walk)."""
        if not env:
            return env
        key = (frame.path, frame.name)
        reads = self._reads.get(key)
        if reads is None:
            reads = set()
            seen = set()
            for ev in frame.info.events:
                for b in ev.blocks:
                    if b.test is not None and id(b) not in seen:
                        seen.add(id(b))
                        reads.update(values.params_used(b.test))
                if ev.args is not None:
                    for a in ev.args.positional + tuple(v for _, v in ev.args.keywords):
                        reads.update(values.params_used(a))
            self._reads[key] = reads
        return {k: v for k, v in env.items() if k in reads or k == values.RESOLVER}

    def callee_values(self, ev: Event, callee: Frame, env: values.Env) -> Tuple[values.Env, bool]:
        """For the call ``ev`` of ``callee`` from a frame whose parameters hold ``env``: what
        ``callee``'s parameters hold (cut to what it reads), and whether Dynamo leaves ``callee``
        uncompiled when it runs eagerly after a break (:meth:`_runs_uncompiled`)."""
        bound = self._bind(ev, callee, env)
        return self.relevant(callee, bound), self._runs_uncompiled(ev, callee, bound)

    @staticmethod
    def _bind(ev: Event, callee: Frame, env: values.Env) -> values.Env:
        info = callee.info
        if any(d.qualname not in _TRANSPARENT_DECORATORS for d in info.decorators):
            return {}  # a wrapper may call it with other arguments
        parts = ev.call_text.split(".")
        # `Class.method(obj, ...)` passes the instance itself; a classmethod gets its class anyway
        explicit = len(parts) >= 2 and parts[-2] == (info.class_name or "").rsplit(".", 1)[-1] \
            and info.decorator("classmethod") is None
        bound = values.bind(ev.args, info.params, env, bound=_is_method(info) and not explicit)
        for name in info.mutated:  # a collection the function changes before (or while) testing it
            if name in bound and bound[name].op == "seq":
                del bound[name]
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
        return all(p.name in bound and values.is_constant(bound[p.name]) for p in info.params)

    def entry_env(self, region) -> values.Env:
        """What the compiled entry's parameters hold in every call of it the project makes (what
        all of those calls agree on): calls in functions that resolve to the entry, and calls at
        module level of a name that holds the compiled object (a driver's ``model(**inputs)``)
        or of the compiled function's own name. Empty when gblint sees no call of it.
        ``region`` is a :class:`gblint.model.Region`."""
        entry = region.entry
        key = (entry.path, entry.name)
        if key in self._entry_envs:
            return self._entry_envs[key]
        envs = []
        name = entry.info.name
        holders = set(region.holders)
        bound = _is_method(entry.info)
        for summary in list(self.project.by_path.values()):  # resolving calls may load more modules
            for held, args in summary.module_calls:
                if (summary.path, held) in holders or (held == name and summary.path == entry.path and not bound):
                    envs.append(values.bind(args, entry.info.params, {}, bound=bound))
            for info in summary.functions.values():
                for ev in info.events:
                    if ev.kind != EventKind.CALL or ev.call_text.rsplit(".", 1)[-1] != name:
                        continue
                    caller = Frame(summary.path, info)
                    if any(isinstance(t, Frame) and (t.path, t.name) == key for t in self.project.resolve_call(caller, ev)):
                        envs.append(self._bind(ev, entry, {}))
        env = values.merge(envs)
        env[values.RESOLVER] = values.Resolver(self.helper)
        self._entry_envs[key] = env
        return env

    def helper(self, dotted: str):
        """``(params, returned value)`` of the function ``dotted`` when its body is one
        ``return`` of its parameters (``def exists(v): return v is not None``); None otherwise."""
        if dotted not in self._helpers:
            found = self.project.lookup(dotted)
            info = found[0].functions.get(found[1]) if found is not None else None
            if found is not None and not isinstance(found[0].module_names.get(found[1], Definition()), Definition):
                info = None  # the name is rebound at module level (`exists = lambda v: True`)
            self._helpers[dotted] = (info.params, info.returns) if info is not None and info.returns is not None \
                else None
        return self._helpers[dotted]


# Decorators that call the function with the arguments it was called with.
_TRANSPARENT_DECORATORS = frozenset({"staticmethod", "classmethod", "functools.wraps", "torch.compile",
                                     "torch.compiler.disable", "torch._dynamo.disable", "torch.no_grad",
                                     "torch.inference_mode", "torch.enable_grad", "typing.overload", "abc.abstractmethod",
                                     "torch.jit.unused", "torch.jit.ignore", "torch.compiler.allow_in_graph"})


def _undecided(b: Block, env: values.Env) -> bool:
    """Whether ``b`` is a branch (or an error path) whose test ``env`` does not make true."""
    return b.kind in (BlockKind.BRANCH, BlockKind.OPERAND, BlockKind.ERROR_PATH) and \
        (b.test is None or values.decide(b.test, env) is not True)


def _is_method(info: FunctionInfo) -> bool:
    return info.class_name is not None and info.qualname == f"{info.class_name}.{info.name}" \
        and info.decorator("staticmethod") is None
