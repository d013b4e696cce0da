"""The fixes stage: a diagnostic's fix request becomes a :class:`gblint.core.diagnostics.Fix`.

A diagnostic from :mod:`gblint.dynamo.consequences` may carry a ``fix_request`` (which block or
function to rewrite, :mod:`gblint.core.model`). :func:`attach_fixes` turns it into a fix with text
edits, using the rewrites of :mod:`gblint.rules.rewrites`; a rewrite that declines, or whose
result libcst or CPython rejects, gives no fix. Applying fixes is :mod:`gblint.frontends.fix`.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Sequence, Tuple

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ..settings.config import Settings
from ..core.diagnostics import DISPLAY_ONLY, Diagnostic, Edit, Fix
from .fix_effects import together, with_graphs
from ..core.names import dotted
from ..core.model import BlockFix, BlockKind, ConfigFix, DisableFix, FixRequest, LogFix, LoopFix, MethodFix, WhereFix
from ..rules import check_rewrite, item_rewrite, log_rewrites, rewrites, where_rewrite
from ..rules.builtins import LOGGER_METHODS
from ..core.source import compile_error, restore_line_endings, split_lines
from ..syntax.traversal import caught_types

CONFIG_ADVICE = {
    "capture_scalar_outputs": "Set `torch._dynamo.config.capture_scalar_outputs = True` to trace `.item()` "
                              "as a symbolic scalar instead of breaking",
    "capture_dynamic_output_shape_ops": "Set `torch._dynamo.config.capture_dynamic_output_shape_ops = True` to "
                                        "trace data-dependent output shapes instead of breaking",
    "nested_graph_breaks": "Set `torch._dynamo.config.nested_graph_breaks = True`: one break and 2 graphs "
                           "instead of 2 per frame",
}


class _Positions:
    """Statements of a module indexed by their first line."""

    def __init__(self, text: str):
        self.module = cst.parse_module(text)
        wrapper = MetadataWrapper(self.module, unsafe_skip_copy=True)
        self.pos = wrapper.resolve(PositionProvider)
        self.by_line: Dict[Tuple[type, int], cst.CSTNode] = {}
        self.functions: List[cst.FunctionDef] = []
        for node, rng in self.pos.items():
            if isinstance(node, (cst.For, cst.While, cst.With, cst.Try, cst.If, cst.Assert, cst.FunctionDef,
                                 cst.SimpleStatementLine)):
                self.by_line.setdefault((type(node), rng.start.line), node)
                if isinstance(node, cst.FunctionDef):
                    self.functions.append(node)
            elif isinstance(node, cst.Decorator):
                pass

    def node(self, kinds, line: int) -> Optional[cst.CSTNode]:
        """The first statement of one of ``kinds`` that starts at ``line``."""
        for k in kinds:
            n = self.by_line.get((k, line))
            if n is not None:
                return n
        return None

    def lines(self, node) -> Tuple[int, int]:
        """The first and last line of ``node``."""
        r = self.pos[node]
        return r.start.line, r.end.line

    def enclosing_function(self, line: int) -> Optional[cst.FunctionDef]:
        """The innermost function whose lines contain ``line``."""
        best = None
        for f in self.functions:
            a, b = self.lines(f)
            if a <= line <= b and (best is None or self.lines(best)[0] < a):
                best = f
        return best

    def statement_at(self, block, line: int) -> Optional[cst.BaseStatement]:
        """The statement of ``block``'s body whose lines contain ``line``."""
        body = block.body.body if isinstance(block.body, cst.IndentedBlock) else []
        for stmt in body:
            a, b = self.lines(stmt)
            if a <= line <= b:
                return stmt
        return None

    def top_statement(self, line: int) -> Optional[cst.BaseStatement]:
        """The module-level statement whose lines contain ``line``."""
        for stmt in self.module.body:
            a, b = self.lines(stmt)
            if a - len(getattr(stmt, "decorators", ())) <= line <= b:
                return stmt
        return None

    def def_at(self, line: int) -> Optional[cst.FunctionDef]:
        """The function defined at ``line``."""
        for f in self.functions:
            r = self.pos[f]
            if r.start.line == line:
                return f
        return None


def edit_for(old: str, new: str) -> Optional[Edit]:
    """One edit replacing the changed lines of ``old`` by those of ``new`` (None when equal)."""
    if old == new:
        return None
    a, b = split_lines(old), split_lines(new)
    p = 0
    while p < len(a) and p < len(b) and a[p] == b[p]:
        p += 1
    s = 0
    while s < len(a) - p and s < len(b) - p and a[len(a) - 1 - s] == b[len(b) - 1 - s]:
        s += 1
    return Edit(line=p + 1, column=1, end_line=len(a) - s + 1, end_column=1, text="".join(b[p:len(b) - s]))


def build_fix(request: FixRequest, text: str, settings: Settings, positions: Optional[_Positions] = None
              ) -> Optional[Fix]:
    """The Fix for one request on a file's text, or None when the rewrite declines."""
    if isinstance(request, ConfigFix):
        return Fix(CONFIG_ADVICE[request.setting], "unsafe", ())
    try:
        pos = positions or _Positions(text)
    except Exception:
        return None
    # Rewrite only the module-level statement that holds the target: a fix costs a statement's
    # codegen and parse, not the whole file's (the LSP asks for fixes as you type).
    top = pos.top_statement(request.line)
    alias = None
    if top is not None:
        alias = rewrites.existing_torch_alias(pos.module)
    needs_torch = isinstance(request, (DisableFix, WhereFix, LogFix))
    # the config line goes after the file's imports
    whole = top is None or (needs_torch and alias is None) or (isinstance(request, LogFix) and request.reorderable)
    if whole:
        module = pos.module
    else:
        module = cst.Module(body=[top], default_indent=pos.module.default_indent,
                            default_newline=pos.module.default_newline, header=[], footer=[],
                            encoding=pos.module.encoding, has_trailing_newline=True)
    rewrite = _REWRITES[type(request)](request, module, pos, settings, alias)
    if rewrite is None:
        return None
    new, title, applicability = rewrite
    old_code = module.code
    offset = 0 if whole else pos.lines(top)[1] - len(split_lines(old_code))
    # new lines take the ending of the line they are inserted next to, not the file's first line's
    new_code = restore_line_endings(old_code, _bare_newlines(new.code), pos.module.default_newline, loose=True)
    try:
        cst.parse_module(new_code)
    except Exception:
        return None
    if compile_error(new_code, "<fix>") is not None:  # libcst accepts code that CPython rejects
        return None
    edit = edit_for(old_code, new_code)
    if edit is None:
        return None
    edit = Edit(edit.line + offset, edit.column, edit.end_line + offset, edit.end_column, edit.text)
    return Fix(title, applicability, (edit,))


# Each rewrite returns (new module, title, applicability), or None when it declines.
Rewrite = Optional[Tuple[cst.Module, str, str]]


def _loop(request: LoopFix, module: cst.Module, pos: _Positions, settings: Settings, alias) -> Rewrite:
    """Unroll a constant-range ``for`` loop, else move the loop into a helper."""
    loop = pos.node((cst.For, cst.While), request.line)
    if loop is None:
        return None
    new, title = None, ""
    if isinstance(loop, cst.For) and not rewrites.rebinds_range(pos.module) \
            and not log_rewrites.holds_logging(loop.body, LOGGER_METHODS):  # the whole file decides range
        new = rewrites.unroll(module, loop, settings.max_unroll)
        title = f"Unroll the loop at line {request.line}"
    if new is None:
        func = pos.enclosing_function(request.line)
        if func is not None:
            helper = rewrites.helper_name(func, "loop")
            new = rewrites.isolate_loop(module, func, loop, helper)
            title = f"Move the loop at line {request.line} into a helper `{helper}` so only the helper's frame is skipped"
    return (new, title, "safe") if new is not None else None


def _block(request: BlockFix, module: cst.Module, pos: _Positions, settings: Settings, alias) -> Rewrite:
    """Split a ``with`` or ``try`` block around the breaking statement."""
    is_with = request.block == BlockKind.WITH
    block = pos.node((cst.With,) if is_with else (cst.Try,), request.line)
    if block is None:
        return None
    stmt = pos.statement_at(block, request.anchor_line)
    if stmt is None:
        return None
    if not is_with:  # `.item()` alone in a `try` whose handlers cannot catch what it raises: no `try` needed
        new = item_rewrite.hoist_item(module, pos.module, block)
        if new is not None:
            return new, (f"Move `.item()` out of the `try` block at line {request.line}: its handlers catch only "
                         "errors `.item()` does not raise"), "safe"
        new = item_rewrite.drop_handlers(module, block)
        if new is not None:
            return new, (f"Move `.item()` out of the `try` block at line {request.line} (its handlers no longer run: "
                         "what the statement raises propagates, such as RuntimeError for a tensor that has not one "
                         "element or AttributeError for a value without `.item()`)"), "unsafe"
    if is_with:
        new = rewrites.split_with(module, block, stmt)
        title = f"Move the breaking statement out of the `with` block at line {request.line}"
    elif _handles_assert(block, stmt):
        new = None  # the handler is there for the assertion: moved out, a failed check would propagate
        title = ""
    else:
        new = rewrites.split_try(module, block, stmt)
        title = f"Move the breaking statement out of the `try` block at line {request.line}"
    if new is not None:
        return new, title, "unsafe"
    # the statement is all the block holds: splitting would drop the manager or the handlers, so the
    # whole block (handlers included) moves into a helper whose frame alone is skipped
    func = pos.enclosing_function(request.line)
    if func is None or not isinstance(block.body, cst.IndentedBlock) or len(block.body.body) != 1:
        return None
    what = "with" if is_with else "try"
    helper = rewrites.helper_name(func, what)
    new = rewrites.isolate_statement(module, func, block, helper)
    title = (f"Move the `{what}` block at line {request.line} into a helper `{helper}` so only the helper's "
             "frame is skipped")
    return (new, title, "safe") if new is not None else None


def _disable(request: DisableFix, module: cst.Module, pos: _Positions, settings: Settings, alias) -> Rewrite:
    """Decorate a callee with ``@torch.compiler.disable``."""
    func = pos.def_at(request.line)
    if func is None:
        return None
    new = rewrites.add_disable(module, func, alias)
    title = f"Decorate `{request.function}` with `@torch.compiler.disable` (one clean break, runs eagerly)"
    return (new, title, "safe") if new is not None else None


def _where(request: WhereFix, module: cst.Module, pos: _Positions, settings: Settings, alias) -> Rewrite:
    """Replace ``if c: x = a`` by ``x = torch.where(c, a, x)``, or ``if c: raise E("msg")`` by
    ``torch._assert_async(torch.logical_not(c), "msg")``."""
    func = pos.enclosing_function(request.line)
    if func is not None and _shadows(func, alias or "torch"):
        return None  # `torch` there is a local (`torch = x.new_zeros(())`): the rewrite would call it
    check = pos.node((cst.Assert,), request.line)
    if check is not None and func is not None and check.msg is not None and not check_rewrite.literal(check.msg):
        new = _with_torch(lambda name: check_rewrite.assert_async(module, check, name), alias)
        title = ("Check with `torch._assert_async` instead of `assert` with a message built at run time (a failed check "
                 "raises RuntimeError with the message, not AssertionError; `python -O` keeps it)")
        return (new, title, "unsafe") if new is not None else None
    if check is not None and func is not None:
        new = _with_torch(lambda name: check_rewrite.negated_assert(module, check, name), alias)
        title = ("Assert `torch.logical_not(...)` instead of `not ...`: Dynamo keeps that assertion in the graph "
                 "(compiled, a failed check raises RuntimeError with the same message, not AssertionError)")
        return (new, title, "unsafe") if new is not None else None
    node = pos.node((cst.If,), request.line)
    if node is None or func is None:
        return None
    if check_rewrite.raise_guard(node, gated=True) is not None:
        new = _with_torch(lambda name: check_rewrite.to_assert_async(module, node, name), alias)
        title = ("Check with `torch._assert_async` instead of branching on a tensor (bad data raises RuntimeError "
                 "with the same message, not the exception raised now)")
        return (new, title, "unsafe") if new is not None else None
    body = list(func.body.body) if isinstance(func.body, cst.IndentedBlock) else []
    start = pos.lines(node)[0]
    before = [s for s in body if pos.lines(s)[1] < start]
    bound = set(rewrites.param_names(func)) | rewrites.scan(before).binds
    new = where_rewrite.to_where(module, node, bound, alias)
    title = "Select with `torch.where` instead of branching on a tensor"
    return (new, title, "unsafe") if new is not None else None


def _handles_assert(block: cst.Try, stmt) -> bool:
    """Whether ``stmt`` is an ``assert`` and a handler of ``block`` may catch the ``AssertionError``
    it raises (bare, ``AssertionError``, ``Exception``, ``BaseException``, or a name not known)."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and any(isinstance(b, cst.Assert) for b in stmt.body)):
        return False
    for handler in block.handlers:
        types = caught_types(handler)
        if types is None:
            return True
        for value in types:
            if not isinstance(value, cst.Name) or value.value in ("AssertionError", "Exception", "BaseException"):
                return True
    return False


def _shadows(func: cst.FunctionDef, name: str) -> bool:
    """Whether ``func`` binds ``name`` itself (a parameter, an assignment, an import, a loop target):
    a rewrite that calls ``name.f(...)`` there would call the local."""
    body = list(func.body.body) if isinstance(func.body, cst.IndentedBlock) else []
    return name in set(rewrites.param_names(func)) | rewrites.scan(body).binds


def _with_torch(rewrite, alias: Optional[str]) -> Optional[cst.Module]:
    """``rewrite(name)`` with ``name`` the name torch is bound to; where the file binds none, the
    rewrite uses ``torch`` and ``import torch`` is added after it (nodes are found by identity)."""
    new = rewrite(alias or "torch")
    if new is not None and alias is None:
        new = rewrites.torch_name(new)[0]
    return new


def _log(request: LogFix, module: cst.Module, pos: _Positions, settings: Settings, alias) -> Rewrite:
    """List the logging function in ``reorderable_logging_functions``, or guard its call with
    ``if not torch.compiler.is_compiling():``."""
    stmt = pos.node((cst.SimpleStatementLine,), request.line)
    call = log_rewrites.expression_call(stmt)
    if call is None:
        return None
    func = dotted(call.func) or ""
    if func != "print" and not (isinstance(call.func, cst.Attribute) and call.func.attr.value in LOGGER_METHODS):
        return None  # str(t), time.time(): not logging
    enclosing = pos.enclosing_function(request.line)
    if enclosing is not None and _shadows(enclosing, alias or "torch"):
        return None
    if request.reorderable:
        # the line uses no node of the module: `import torch` may go in first
        new = log_rewrites.add_reorderable(module if alias else rewrites.torch_name(module)[0], call, alias or "torch")
        if new is not None:
            return new, (f"{_REORDERABLE}`{func}` to `torch._dynamo.config.reorderable_logging_functions`: "
                         "Dynamo runs it after the graph (its output comes later, with tensors as they are then)"), "unsafe"
    if log_rewrites.changes_state(call):
        return None  # the guard would also drop what its arguments do (`print(stack.pop())`, `:=`)
    new = _with_torch(lambda name: log_rewrites.guard_compiling(module, stmt, name), alias)
    title = f"Guard `{func}(...)` with `if not torch.compiler.is_compiling():` (it no longer runs when compiled)"
    return (new, title, "unsafe") if new is not None else None


def _method(request: MethodFix, module: cst.Module, pos: _Positions, settings: Settings, alias) -> Rewrite:
    """Call ``receiver.method(...)`` on the request's line through the object's class:
    ``type(receiver).method(receiver, ...)`` (a staticmethod: ``type(receiver).method(...)``). The analysis
    proved that reads the same function (:func:`gblint.dynamo.unrebuilt.fresh_method`); declines unless exactly one
    such call starts on the line and no statement of the file, in any scope, binds ``type``."""
    calls = [n for n, r in pos.pos.items() if isinstance(n, cst.Call) and r.start.line == request.line
             and isinstance(n.func, cst.Attribute) and isinstance(n.func.value, cst.Name)
             and n.func.value.value == request.receiver and n.func.attr.value == request.method]
    if len(calls) != 1 or pos.enclosing_function(request.line) is None or _binds_anywhere(pos.module, "type"):
        return None
    call = calls[0]
    owner = cst.Call(func=cst.Name("type"), args=[cst.Arg(cst.Name(request.receiver))])
    args = list(call.args) if request.static else [cst.Arg(cst.Name(request.receiver))] + list(call.args)
    new_call = call.with_changes(func=cst.Attribute(value=owner, attr=cst.Name(request.method)), args=args)
    new = module.deep_replace(call, new_call)
    if not isinstance(new, cst.Module):
        return None
    return (new, f"Call `{request.method}` through the object's class, `type({request.receiver})."
                 f"{request.method}(...)`: Dynamo can rebuild it at the break, so the frame resumes", "safe")


#: the nodes that bind the names of one of their fields (an assignment target, a definition's or pattern's name)
_BINDING_FIELDS = {cst.AssignTarget: "target", cst.AnnAssign: "target", cst.AugAssign: "target",
                   cst.NamedExpr: "target", cst.For: "target", cst.CompFor: "target", cst.AsName: "name",
                   cst.Param: "name", cst.FunctionDef: "name", cst.ClassDef: "name", cst.MatchAs: "name"}


class _Binder(cst.CSTVisitor):
    """Finds a binding of ``name`` anywhere in a module, nested scopes and ``global`` statements included."""

    def __init__(self, name: str):
        self.name, self.found = name, False

    def on_visit(self, node: cst.CSTNode) -> bool:
        field = _BINDING_FIELDS.get(type(node))
        if field is not None and getattr(node, field) is not None:
            self.found |= self.name in rewrites.target_names(getattr(node, field))
        elif isinstance(node, (cst.Global, cst.Nonlocal)):
            self.found |= any(item.name.value == self.name for item in node.names)
        elif isinstance(node, cst.ImportAlias) and node.asname is None and isinstance(node.name, cst.Name):
            self.found |= node.name.value == self.name
        elif isinstance(node, cst.ImportStar):
            self.found = True  # `from m import *` may bind it
        return not self.found


def _binds_anywhere(module: cst.Module, name: str) -> bool:
    """Whether any statement of ``module``, in any scope, binds ``name`` (a rewrite that calls it would call
    that instead of the builtin)."""
    binder = _Binder(name)
    module.visit(binder)
    return binder.found


#: how the title of the config-line logging fix begins: that fix changes every compiled region of the file
_REORDERABLE = "Add "

_REWRITES = {LoopFix: _loop, BlockFix: _block, DisableFix: _disable, WhereFix: _where, LogFix: _log,
             MethodFix: _method}
#: the rewrites whose title gives the graphs before and after, applied only with a predicted gain
_PREDICTED = (LoopFix, BlockFix, LogFix, WhereFix, MethodFix)


def _bare_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def attach_fixes(diagnostics: Sequence[Diagnostic], texts: Dict[str, str], settings: Settings,
                 predict=None) -> List[Diagnostic]:
    """Return the diagnostics with ``fix`` filled in where a fix request can be honoured.
    ``predict`` (:func:`gblint.fixing.fix_effects.graph_counter`): the title of a loop, block, logging or
    ``if`` fix also says the graphs of its frame before and after it (display-only without a gain);
    the fixes of one frame that gain nothing alone are judged together (:func:`gblint.fixing.fix_effects.together`):
    where together they gain, each of their diagnostics carries that one fix, every edit of it."""
    out = []
    cache: Dict[str, Optional[_Positions]] = {}
    # (path, frame) -> (index in out, fix as built, whether it changes every region of the file)
    alone: Dict[Tuple[str, str], List[Tuple[int, Fix, bool]]] = {}
    for d in diagnostics:
        if d.fix_request is None or d.fix is not None:
            out.append(d)
            continue
        text = texts.get(d.path)
        if text is None:
            out.append(d)
            continue
        is_config = isinstance(d.fix_request, ConfigFix)
        if not is_config and d.path not in cache:
            try:
                cache[d.path] = _Positions(text)
            except Exception:
                cache[d.path] = None
        fix = build_fix(d.fix_request, text, settings, cache.get(d.path)) \
            if is_config or cache.get(d.path) else None
        if fix is not None and predict is not None and isinstance(d.fix_request, _PREDICTED):
            built = fix
            wide = isinstance(d.fix_request, LogFix) and fix.title.startswith(_REORDERABLE)
            fix = with_graphs(fix, d.path, text, d.fix_request.frame, predict, module_wide=wide)
            if wide and fix.applicability == DISPLAY_ONLY:  # the config line changes other regions: guard instead
                guard = build_fix(dataclasses.replace(d.fix_request, reorderable=False), text, settings,
                                  cache.get(d.path))
                guard = with_graphs(guard, d.path, text, d.fix_request.frame, predict) if guard is not None else None
                if guard is not None and guard.applicability != DISPLAY_ONLY:
                    built, fix, wide = guard, guard, False
            if fix.applicability == DISPLAY_ONLY and fix.effect is not None and built.applicability != DISPLAY_ONLY \
                    and len(built.edits) == 1:
                alone.setdefault((d.path, d.fix_request.frame), []).append((len(out), built, wide))
        out.append(dataclasses.replace(d, fix=fix) if fix else d)
    for (path, frame), found in alone.items():
        joint = together([f for _, f, _ in found], path, texts[path], frame, predict,
                         module_wide=any(w for _, _, w in found)) if len(found) > 1 else None
        if joint is not None:
            for i, built, _ in found:
                if built.edits[0] in joint.edits:
                    out[i] = dataclasses.replace(out[i], fix=joint)
    return out
