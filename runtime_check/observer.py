"""The observer: records what Dynamo really does, inside the child process.

Only :mod:`gblint.runtime_check.child` (and the pytest plugin, inside the user's own test
process) imports this module; it imports torch. Nothing here runs in the gblint process.

What is hooked, and the PyTorch 2.13 source each hook rests on (paths relative to
``torch/_dynamo/``):

- **graphs**: a recording backend (registered as ``"gblint"`` with
  ``torch._dynamo.register_backend``, and substituted for the ``backend=`` of every
  ``torch.compile`` call by wrapping ``torch.compile``). It counts the FX graph's ops
  (``call_function``/``call_method``/``call_module`` nodes, as ``OutputGraph.count_calls``),
  reads the source lines of its nodes from ``node.meta["stack_trace"]`` and hands the graph
  to ``inductor`` (``torch._inductor.compile_fx.compile_fx``), ``eager``, ``aot_eager`` or any
  registered backend. Under Inductor, ``GraphLowering.codegen`` (``torch/_inductor/graph.py``)
  is wrapped to record, per graph, its devices, the kernels generated
  (``wrapper_code.src_to_kernel``) and the scheduling classes that generated them
  (``scheduler.backends``: ``CppScheduling`` on CPU, ``TritonScheduling`` or
  ``CUDACombinedScheduling`` on CUDA), hence the code generator (:func:`codegen_name`).
- **graph breaks**: ``symbolic_convert.InstructionTranslatorBase.log_graph_break(code_options,
  reason, exc)``, called once per break (``exc.logged`` guards repeats) with ``exc.gb_type``
  and ``exc.real_stack``. The consequence is the fixed prefix Dynamo puts on ``reason``
  (:func:`outcome_of_reason`).
- **frames that fail**: ``convert_frame.format_error_msg(exc, code, ...)``, called by
  ``ConvertFrame.__call__`` exactly when a compile error is suppressed and the frame runs
  eagerly (a skipped frame, including GB0003 generators that never reach tracing).
- **compile errors, caught or not**: ``convert_frame.exception_handler(exc, code, ...)``, which
  ``convert_frame._compile`` calls for every exception raised while compiling a frame (a
  ``SkipFrame`` never gets there: ``_compile_inner`` turns it into a decline), after tracing
  failed and before the exception is re-raised. Each such exception is stamped with a sequence
  number (``compile_exception`` event, ``seq``); the ``frame_failed`` event of a suppressed one
  carries the numbers it suppressed (``seqs``, the exception and its ``__context__`` chain,
  since ``_compile`` may re-wrap it). One that no ``frame_failed`` suppressed reached the
  caller as a compile error (``fullgraph=True``, ``error_on_graph_break(True)``, a backend
  failure), even when the user's code then caught it.
- **functions traced** (only with ``record_traced = True``; the ecosystem harness uses it):
  ``symbolic_convert.InstructionTranslatorBase.__init__``, which every root and inlining
  translator runs with the ``f_code`` it traces; one ``traced`` event per code object and job.
- **frames Dynamo declines**: ``convert_frame.CatchErrorsWrapper._handle_skip(result, frame)``
  (``result.skip_reason``: no tensors, non-recursive ``disable``, empty graph...).
- **per-frame compile records**: ``utils._compilation_metrics`` (a deque filled by
  ``utils.record_compilation_metrics``) is replaced by a deque that reports each
  ``CompilationMetrics`` as it is appended: a skipped frame has ``has_guarded_code=False``
  and ``fail_type="Unsupported"``; a recompile has ``compile_id`` ``N/k`` with k > 0 and a
  ``recompile_reason`` (the first failed guard).

None of these adds a Python frame between the eval-frame callback and ``convert_frame.py``
(``convert_frame`` walks the stack to find ``disable(recursive=False)`` wrappers; see
``docs/semantics.md`` section 6).

The backend is checked at :meth:`Observer.install`: a name Dynamo does not know raises
:class:`BackendUnavailable` with Dynamo's own message and the registered names.

Every observation is handed at once to a *sink* (a callable taking one JSON-able dict), so a
crash or a kill loses nothing already seen.
"""
from __future__ import annotations

import os
import re
import sys
import sysconfig
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Sequence

Sink = Callable[[Dict[str, Any]], None]

#: Prefixes Dynamo 2.13 puts on the ``reason`` passed to ``log_graph_break``
#: (``symbolic_convert.py``: ``InstructionTranslatorBase.run`` when the root frame cannot handle
#: the break, ``InstructionTranslatorBase.step`` when it restarts from the last checkpoint).
REASON_SKIPPED = "Failed to handle graph break gracefully."
REASON_PREFIX = "Encountered graph break that we cannot resume from."

_STACK_LINE = re.compile(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<function>.+?)\s*$')
_RESUME = re.compile(r"^torch_dynamo_resume_in_(?P<name>.+)_at_(?P<line>\d+)$")

#: ``_handle_skip`` reasons that are not worth reporting at all (library and Dynamo frames).
_NOISE_SKIP = ("frame is in the Dynamo skipfiles list",)


def outcome_of_reason(reason: str) -> str:
    """Classify a ``log_graph_break`` reason: ``"skipped"`` (the frame falls back to eager),
    ``"prefix"`` (the graph up to the last checkpoint is compiled, the rest runs eagerly) or
    ``"resumed"`` (a resume function continues tracing). The prefixes are Dynamo's own fixed
    strings (``symbolic_convert.py``); anything else is a resumed break."""
    text = (reason or "").lstrip()
    if text.startswith(REASON_SKIPPED):
        return "skipped"
    if text.startswith(REASON_PREFIX):
        return "prefix"
    return "resumed"


def parse_stack_trace(text: Optional[str]) -> List[Dict[str, Any]]:
    """Parse a ``traceback.format_list``-style text (``node.meta["stack_trace"]``) into
    ``[{"path", "line", "function"}]``, outermost first. Lines that are not ``File ...``
    headers (source text, carets) are ignored."""
    out = []
    for raw in (text or "").splitlines():
        m = _STACK_LINE.match(raw)
        if m:
            out.append({"path": m.group("path"), "line": int(m.group("line")), "function": m.group("function")})
    return out


def resume_target(co_name: str):
    """``torch_dynamo_resume_in_fn_at_12`` -> ``("fn", 12)``; any other name -> ``(name, None)``."""
    m = _RESUME.match(co_name or "")
    if m:
        return m.group("name"), int(m.group("line"))
    return co_name, None


class _Roots:
    """Decides which files are user code: not torch, not the standard library, not gblint's
    runtime package, not a synthetic ``<...>`` file."""

    def __init__(self):
        import torch
        self.library = [os.path.realpath(os.path.dirname(torch.__file__)) + os.sep,
                        os.path.realpath(os.path.dirname(os.path.abspath(__file__))) + os.sep]
        for name in ("functorch", "triton", "numpy", "sympy"):  # torch's own dependencies
            mod = sys.modules.get(name)
            if getattr(mod, "__file__", None):
                self.library.append(os.path.realpath(os.path.dirname(mod.__file__)) + os.sep)
        paths = sysconfig.get_paths()
        self.stdlib = [os.path.realpath(paths[k]) + os.sep for k in ("stdlib", "platstdlib") if paths.get(k)]
        self._cache: Dict[str, bool] = {}

    def is_user(self, path: Optional[str]) -> bool:
        if not path or path.startswith("<"):
            return False
        hit = self._cache.get(path)
        if hit is None:
            real = os.path.realpath(path)
            hit = not any(real.startswith(r) for r in self.library)
            if hit and any(real.startswith(r) for r in self.stdlib):
                hit = "site-packages" in real or "dist-packages" in real
            self._cache[path] = hit
        return hit


def gb_id_lookup() -> Callable[[Optional[str]], Optional[str]]:
    """gb_type -> GB id, from ``torch._dynamo.exc._load_gb_type_to_gb_id_map()`` (PyTorch's own
    ``graph_break_registry.json``), falling back to gblint's ``data/gb_registry.json``."""
    from .registry import gb_id_for
    try:
        from torch._dynamo.exc import _load_gb_type_to_gb_id_map
        table = dict(_load_gb_type_to_gb_id_map() or {})
    except Exception:
        table = {}
    return lambda gb_type: (table.get(gb_type) or gb_id_for(gb_type)) if gb_type else None


def codegen_name(scheduling_class: str) -> str:
    """Inductor scheduling class -> code generator: ``CppScheduling`` -> ``cpp``;
    ``TritonScheduling`` and ``CUDACombinedScheduling`` (Triton plus CUDA templates) ->
    ``triton``; ``HalideScheduling`` -> ``halide``; others lower-cased without ``Scheduling``."""
    if "Triton" in scheduling_class or scheduling_class == "CUDACombinedScheduling":
        return "triton"
    if scheduling_class.startswith("Cpp"):
        return "cpp"
    return scheduling_class.replace("Scheduling", "").lower() or scheduling_class


def _frames(stack: Optional[Sequence[Any]]) -> List[Dict[str, Any]]:
    out = []
    for f in stack or ():
        try:
            out.append({"path": f.filename, "line": int(f.lineno), "function": f.name})
        except Exception:
            continue
    return out


def _first_line(text: Any) -> str:
    """The first line of ``str(text)``; a first line that ends with ``:`` (Dynamo's
    ``backend='inductor' raised:``, then the backend's own error on the next line) is joined
    with the next non-empty line, so that the message is never cut off after its colon."""
    lines = [ln.strip() for ln in str(text or "").strip().splitlines()]
    lines = [ln for ln in lines if ln]
    if not lines:
        return ""
    first = lines[0]
    if first.endswith(":") and len(lines) > 1:
        first = f"{first} {lines[1]}"
    return first


class BackendUnavailable(RuntimeError):
    """The backend asked for (``--backend NAME``) is not one Dynamo can look up. The message
    is Dynamo's own error, followed by the names it knows."""


def check_backend(name: str) -> None:
    """Raise :class:`BackendUnavailable` unless ``name`` is ``inductor``, ``keep`` or a backend
    ``torch._dynamo.backends.registry.lookup_backend`` finds (which also loads the backends
    registered through entry points). Imports torch."""
    if name in ("inductor", "keep"):
        return
    from torch._dynamo.backends.registry import list_backends, lookup_backend
    if name == "gblint":
        raise BackendUnavailable("backend 'gblint' is gblint's own recorder; name the backend it should hand "
                                 "graphs to (inductor, eager, aot_eager, ...)")
    try:
        lookup_backend(name)
    except Exception as exc:
        try:  # every name lookup_backend accepts (list_backends() alone hides the "debug" ones: eager...)
            known = ", ".join(n for n in sorted(list_backends(exclude_tags=())) if n != "gblint")
        except Exception:
            known = ""
        msg = f"backend {name!r} is not available: {_first_line(exc) or type(exc).__name__}"
        raise BackendUnavailable(msg + (f" Registered backends: {known}." if known else "")) from None


def _seqs(exc: Optional[BaseException]) -> List[int]:
    """The sequence numbers :meth:`Observer._on_compile_exception` stamped on ``exc`` and on the
    exceptions of its ``__context__``/``__cause__`` chain."""
    out: List[int] = []
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        seq = getattr(exc, "_gblint_seq", None)
        if isinstance(seq, int) and seq not in out:
            out.append(seq)
        exc = exc.__cause__ if exc.__cause__ is not None else exc.__context__
    return out


class Observer:
    """Installs the hooks (see the module docstring) and reports each observation to ``sink``.

    ``backend``: the backend each graph is handed to after it is recorded (``"inductor"``,
    ``"eager"``, ``"aot_eager"``, any name ``torch._dynamo.list_backends()`` knows, or
    ``"keep"``: the backend each ``torch.compile`` call asked for).
    ``job``: a label stamped on every event (the child sets it per entry).
    Raises ``RuntimeError`` from :meth:`install` when a hooked PyTorch function is missing
    (a PyTorch whose internals differ from 2.13's), and :class:`BackendUnavailable` (before
    hooking anything) when ``backend`` is not a backend Dynamo knows."""

    def __init__(self, sink: Sink, backend: str = "inductor", device: str = "cpu"):
        self.sink = sink
        self.backend = backend
        self.device = device
        self.job: Any = None
        self._local = threading.local()
        self._undo: List[Callable[[], None]] = []
        self.roots: Optional[_Roots] = None
        self.gb_id: Callable[[Optional[str]], Optional[str]] = lambda t: None
        self.installed = False
        self.record_traced = False
        self._traced_seen: set = set()
        self._seq = 0
        self._seq_lock = threading.Lock()

    # ------------------------------------------------------------------ events
    def emit(self, event: str, **data: Any) -> None:
        data["ev"] = event
        data["job"] = self.job
        data["t"] = round(time.time(), 3)
        try:
            self.sink(data)
        except Exception:  # a sink failure must never break the user's program
            pass

    def user_frames(self, frames: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
        roots = self.roots
        return [f for f in frames if roots is None or roots.is_user(f["path"])]

    # ------------------------------------------------------------------ install
    def install(self) -> "Observer":
        """Install every hook; idempotent. Imports torch."""
        if self.installed:
            return self
        import torch
        import torch._dynamo
        from torch._dynamo import convert_frame, symbolic_convert
        from torch._dynamo import utils as dynamo_utils

        check_backend(self.backend)
        self.roots = _Roots()
        self.gb_id = gb_id_lookup()
        obs = self

        # graph breaks -------------------------------------------------------
        itb = symbolic_convert.InstructionTranslatorBase
        orig_lgb = itb.log_graph_break

        def log_graph_break(tx, code_options, reason, exc):
            try:
                if not getattr(exc, "logged", False):
                    obs._on_break(tx, reason, exc)
            except Exception:
                pass
            return orig_lgb(tx, code_options, reason, exc)

        itb.log_graph_break = log_graph_break
        self._undo.append(lambda: setattr(itb, "log_graph_break", orig_lgb))

        # functions traced (a compiled frame's code or an inlined call) ------------
        if self.record_traced:
            orig_init = itb.__init__

            def __init__(tx, *args, **kwargs):
                orig_init(tx, *args, **kwargs)
                try:
                    obs._on_traced(tx)
                except Exception:
                    pass

            itb.__init__ = __init__
            self._undo.append(lambda: setattr(itb, "__init__", orig_init))

        # declined frames ----------------------------------------------------
        cew = convert_frame.CatchErrorsWrapper
        orig_skip = cew._handle_skip

        def _handle_skip(wrapper, result, frame):
            try:
                if result.skip_reason is not None and result.guarded_code is None:
                    obs._on_decline(frame.f_code, result.skip_reason)
            except Exception:
                pass
            return orig_skip(wrapper, result, frame)

        cew._handle_skip = _handle_skip
        self._undo.append(lambda: setattr(cew, "_handle_skip", orig_skip))

        # suppressed compile failures (frame skipped) -------------------------
        self._tap(convert_frame, "format_error_msg", obs._on_frame_failed)
        # every compile failure, suppressed or not (called after tracing failed; it returns) ---
        self._tap(convert_frame, "exception_handler", obs._on_compile_exception)

        # compilation metrics -------------------------------------------------
        import collections

        class _Reporting(collections.deque):
            def append(self, record):  # noqa: D401 - deque API
                super().append(record)
                try:
                    obs._on_metrics(record)
                except Exception:
                    pass

        orig_deque = dynamo_utils._compilation_metrics
        dynamo_utils._compilation_metrics = _Reporting(orig_deque, maxlen=orig_deque.maxlen)
        self._undo.append(lambda: setattr(dynamo_utils, "_compilation_metrics", orig_deque))

        # torch.compile: every region goes through the recording backend -----
        orig_compile = torch.compile

        def compile(model=None, **kwargs):
            requested = kwargs.get("backend", "inductor")
            if not isinstance(requested, RecordingBackend):
                kwargs["backend"] = RecordingBackend(obs, kwargs.pop("mode", None), kwargs.pop("options", None),
                                                     kwargs.get("dynamic"), requested)
            if model is None:
                return orig_compile(**kwargs)
            return orig_compile(model, **kwargs)

        compile.__doc__ = orig_compile.__doc__
        compile.__wrapped__ = orig_compile  # type: ignore[attr-defined]
        torch.compile = compile
        self._undo.append(lambda: setattr(torch, "compile", orig_compile))

        try:
            from torch._dynamo.backends.registry import _COMPILER_FNS, register_backend
            if "gblint" not in _COMPILER_FNS:
                register_backend(RecordingBackend(obs, None, None, None, "gblint"), name="gblint")
        except Exception:
            pass

        # Inductor: which code generator produced the kernels ------------------
        if self.backend in ("inductor", "keep"):
            self._hook_inductor()
        self.installed = True
        return self

    def _hook_inductor(self) -> None:
        try:
            from torch._inductor import config as inductor_config
            from torch._inductor.graph import GraphLowering
        except Exception:
            return
        obs = self
        orig_codegen = GraphLowering.codegen

        def codegen(graph, *args, **kwargs):
            result = orig_codegen(graph, *args, **kwargs)
            try:
                rec = getattr(obs._local, "graph", None)
                if rec is not None:
                    backends = getattr(getattr(graph, "scheduler", None), "backends", {}) or {}
                    kernels = getattr(getattr(graph, "wrapper_code", None), "src_to_kernel", {}) or {}
                    rec["devices"] = sorted(set(rec.get("devices", [])) | {str(d) for d in graph.device_types})
                    rec["kernels"] = rec.get("kernels", 0) + len(kernels)
                    gens = rec.setdefault("generators", [])
                    for sched in backends.values():
                        gen = codegen_name(type(sched).__name__)
                        if gen not in gens:
                            gens.append(gen)
            except Exception:
                pass
            return result

        GraphLowering.codegen = codegen
        self._undo.append(lambda: setattr(GraphLowering, "codegen", orig_codegen))
        # a cache hit would skip code generation, and with it the evidence of which ran
        try:
            inductor_config.fx_graph_cache = False
            import torch._functorch.config as functorch_config
            functorch_config.enable_autograd_cache = False
        except Exception:
            pass

    def uninstall(self) -> None:
        """Undo every hook, newest first."""
        while self._undo:
            try:
                self._undo.pop()()
            except Exception:
                pass
        self.installed = False

    # ------------------------------------------------------------------ handlers
    def _compile_id(self) -> Optional[str]:
        try:
            from torch._guards import CompileContext
            cid = CompileContext.current_compile_id()
            return str(cid) if cid is not None else None
        except Exception:
            return None

    def _on_break(self, tx, reason: str, exc: BaseException) -> None:
        stack = _frames(getattr(exc, "real_stack", None))
        if not stack:
            try:
                from torch._guards import TracingContext
                stack = _frames(TracingContext.extract_stack())
            except Exception:
                stack = []
        gb_type = getattr(exc, "gb_type", None) or (str(exc).strip().splitlines() or [""])[0]
        cause = exc.__cause__ if exc.__cause__ is not None else exc.__context__
        cause_type = getattr(cause, "gb_type", None) if cause is not None else None
        code = getattr(tx, "f_code", None)
        self.emit("break", compile_id=self._compile_id(), gb_type=gb_type, gb_id=self.gb_id(gb_type),
                  cause_gb_type=cause_type, cause_gb_id=self.gb_id(cause_type),
                  outcome=outcome_of_reason(reason), stack=stack, user_stack=self.user_frames(stack),
                  frame=getattr(code, "co_name", None), frame_path=getattr(code, "co_filename", None),
                  frame_line=getattr(code, "co_firstlineno", None))

    def _on_traced(self, tx) -> None:
        code = getattr(tx, "f_code", None)
        if code is None or not self.roots or not self.roots.is_user(code.co_filename):
            return
        key = (code.co_filename, code.co_firstlineno, code.co_name, self.job)
        if key in self._traced_seen:
            return
        self._traced_seen.add(key)
        name, _ = resume_target(code.co_name)
        qualname = getattr(code, "co_qualname", code.co_name)
        if name != code.co_name:  # a resume function continues the function it was cut from
            qualname = qualname[: -len(code.co_name)] + name if qualname.endswith(code.co_name) else name
        self.emit("traced", function=name, qualname=qualname, path=code.co_filename, line=code.co_firstlineno,
                  inlined=type(tx).__name__ != "InstructionTranslator")

    def _on_decline(self, code, reason: str) -> None:
        if reason in _NOISE_SKIP or not self.roots or not self.roots.is_user(code.co_filename):
            return
        self.emit("decline", function=code.co_name, path=code.co_filename, line=code.co_firstlineno,
                  reason=str(reason))

    def _tap(self, owner, name: str, hook) -> None:
        """Wrap ``owner.name`` (a Dynamo function called as ``f(exc, code, ...)``) so that
        ``hook(exc, code)`` sees every call first; a failing hook never disturbs Dynamo. Undone
        by :meth:`uninstall`."""
        orig = getattr(owner, name)

        def tapped(exc, code, *args, **kwargs):
            try:
                hook(exc, code)
            except Exception:
                pass
            return orig(exc, code, *args, **kwargs)

        setattr(owner, name, tapped)
        self._undo.append(lambda: setattr(owner, name, orig))

    def _on_frame_failed(self, exc: BaseException, code) -> None:
        stack = _frames(getattr(exc, "real_stack", None))
        gb_type = getattr(exc, "gb_type", None)
        self.emit("frame_failed", compile_id=self._compile_id(), function=code.co_name,
                  qualname=getattr(code, "co_qualname", None), path=code.co_filename,
                  first_line=code.co_firstlineno, exc_type=_qualname(type(exc)), gb_type=gb_type,
                  gb_id=self.gb_id(gb_type), message=_first_line(exc), stack=stack,
                  user_stack=self.user_frames(stack), seqs=_seqs(exc))

    def _on_compile_exception(self, exc: BaseException, code) -> None:
        """An exception raised while compiling ``code`` (before Dynamo decides whether to
        suppress it). Stamps it with a sequence number; see the module docstring. An exception
        already stamped (seen by an enclosing compilation) is reported once."""
        if isinstance(getattr(exc, "_gblint_seq", None), int):
            return
        with self._seq_lock:
            self._seq += 1
            seq = self._seq
        try:
            exc._gblint_seq = seq  # type: ignore[attr-defined]
        except Exception:
            return  # cannot be paired with its suppression: not reported
        stack = _frames(getattr(exc, "real_stack", None))
        gb_type = getattr(exc, "gb_type", None)
        self.emit("compile_exception", seq=seq, compile_id=self._compile_id(), function=code.co_name,
                  qualname=getattr(code, "co_qualname", None), path=code.co_filename,
                  first_line=code.co_firstlineno, exc_type=_qualname(type(exc)), gb_type=gb_type,
                  gb_id=self.gb_id(gb_type), message=_first_line(exc), stack=stack,
                  user_stack=self.user_frames(stack))

    def _on_metrics(self, m) -> None:
        if getattr(m, "is_runtime", False) or not getattr(m, "co_name", None):
            return
        fail_file = getattr(m, "fail_user_frame_filename", None)
        self.emit("frame", compile_id=str(m.compile_id) if m.compile_id is not None else None,
                  function=m.co_name, path=m.co_filename, first_line=m.co_firstlineno,
                  has_guarded_code=m.has_guarded_code, fail_type=m.fail_type,
                  fail_reason=_first_line(m.fail_reason), fail_path=fail_file,
                  fail_line=getattr(m, "fail_user_frame_lineno", None), graph_ops=m.graph_op_count,
                  recompile_reason=getattr(m, "recompile_reason", None),
                  user=bool(self.roots and self.roots.is_user(m.co_filename)))

    def record_graph(self, gm, example_inputs, requested, compile_fn: Callable[[], Any]):
        """Record one FX graph, then compile it with ``compile_fn()``; returns its result.
        The ``graph`` event is sent after compilation (it carries the code generator), or with
        ``compile_error`` when the delegate raised (the exception propagates)."""
        ops = 0
        lines: List[Dict[str, Any]] = []
        seen = set()
        for node in gm.graph.nodes:
            if node.op not in ("call_function", "call_method", "call_module"):
                continue
            ops += 1
            # the node's own line and the user call sites that inlined it
            for fr in self.user_frames(parse_stack_trace(node.meta.get("stack_trace"))):
                key = (fr["path"], fr["line"])
                if key not in seen:
                    seen.add(key)
                    lines.append({"path": key[0], "line": key[1]})
        devices = set()
        for t in example_inputs or ():
            dev = getattr(t, "device", None)
            if dev is not None:
                devices.add(str(getattr(dev, "type", dev)))
        rec: Dict[str, Any] = {"compile_id": self._compile_id(), "ops": ops, "lines": lines,
                               "input_devices": sorted(devices), "backend": self.backend,
                               "requested_backend": requested if isinstance(requested, str) else
                               getattr(requested, "__name__", type(requested).__name__)}
        self._local.graph = rec
        started = time.perf_counter()
        try:
            result = compile_fn()
        except BaseException as exc:
            rec["compile_error"] = f"{_qualname(type(exc))}: {_first_line(exc)}"
            raise
        finally:
            self._local.graph = None
            rec["compile_seconds"] = round(time.perf_counter() - started, 4)
            gens = rec.pop("generators", None)
            if gens is not None:  # Inductor lowered it
                rec["codegen"] = gens[0] if gens and rec.get("kernels") else None
                if gens and len(gens) > 1:
                    rec["codegens"] = gens
            else:
                rec["codegen"] = None
            self.emit("graph", **rec)
        return result


def _qualname(cls: type) -> str:
    mod = getattr(cls, "__module__", "") or ""
    return f"{mod}.{cls.__qualname__}" if mod and mod != "builtins" else cls.__qualname__


class RecordingBackend:
    """A ``torch.compile`` backend: records the graph with the observer, then hands it to the
    observer's backend (``inductor`` with the region's ``mode``/``options``, or another
    registered backend). ``requested`` is the backend the user's code asked for (kept for
    the record only)."""

    def __init__(self, observer: Observer, mode=None, options=None, dynamic=None, requested: Any = "inductor"):
        self.observer = observer
        self.mode = mode
        self.options = options
        self.dynamic = dynamic
        self.requested = requested
        self.__name__ = "gblint"

    def __call__(self, gm, example_inputs, **kwargs):
        return self.observer.record_graph(gm, example_inputs, self.requested,
                                          lambda: self._delegate(gm, example_inputs, **kwargs))

    def _delegate(self, gm, example_inputs, **kwargs):
        name = self.observer.backend
        mode = kwargs.get("mode", self.mode)
        options = kwargs.get("options", self.options)
        if name == "keep":  # the backend the user's code asked for ("gblint" itself means the default)
            name = self.requested if self.requested not in (None, "gblint") else "inductor"
            if not isinstance(name, str):
                return name(gm, example_inputs, **({"mode": mode} if mode else {}),
                            **({"options": options} if options else {}))
        if name == "inductor":
            if mode or options:
                import torch
                return torch._TorchCompileInductorWrapper(mode, options, self.dynamic)(gm, example_inputs)
            from torch._inductor.compile_fx import compile_fx
            return compile_fx(gm, example_inputs)
        from torch._dynamo.backends.registry import lookup_backend
        return lookup_backend(name)(gm, example_inputs)
