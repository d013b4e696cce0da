"""Rewrites that remove graph breaks and frame skips (libcst transformations).

Each rewrite takes the parsed module, the node a diagnostic points at and returns the new
module, or None when it must decline (the rewrite would change behaviour beyond its stated
applicability, or the code is not in the simple form it handles). PyTorch's own guidance
(torch.compile programming model, "working with graph breaks"): unroll the loop, move the
break out of the ``with``/``try`` block, isolate the problematic code in its own function,
disable compilation for code that only logs, select with ``torch.where``.
"""
from __future__ import annotations

from typing import Iterable, List, Optional, Set, Tuple

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor

from gblint.syntax.traversal import replace_node

# ------------------------------------------------------------------ helpers


replace = replace_node  # (module, target, replacement) -> the new module, or None when target is not in it


def existing_torch_alias(module: cst.Module) -> Optional[str]:
    """The name ``torch`` is imported as at module level, or None."""
    new, name = torch_name(module, add=False)
    return name


def torch_name(module: cst.Module, add: bool = True) -> Tuple[cst.Module, Optional[str]]:
    """The name bound to the ``torch`` module, adding ``import torch`` when there is none."""
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Import):
                    for alias in small.names:
                        if dotted_text(alias.name) == "torch":
                            return module, alias.asname.name.value if alias.asname else "torch"
                        if dotted_text(alias.name).startswith("torch.") and alias.asname is None:
                            return module, "torch"
    if not add:
        return module, None
    context = CodemodContext()
    AddImportsVisitor.add_needed_import(context, "torch")
    return AddImportsVisitor(context).transform_module(module), "torch"


def dotted_text(node) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{dotted_text(node.value)}.{node.attr.value}"
    return ""


class _Scan(cst.CSTVisitor):
    """Names read, bound, deleted and declared ``global``/``nonlocal``, and control-flow statements,
    below a node (not inside nested defs, lambdas or classes). Attribute and keyword names count
    as reads (``x.shape`` reads ``x`` and ``shape``): more reads only make rewrites decline."""

    def __init__(self):
        super().__init__()
        self.reads: Set[str] = set()
        self.binds: Set[str] = set()
        self.dels: Set[str] = set()  # `del NAME`, and `except ... as NAME` (unbound after the handler)
        self.declared: Set[str] = set()  # global / nonlocal names
        # "break", "continue", "return", "yield", "global" (or nonlocal), "await" (or async for/with,
        # async comprehension), "import *"
        self.flow: Set[str] = set()
        self.calls: Set[str] = set()  # names called: `f(...)` adds "f", `f()` adds "f" and "f()"
        self.scopes: List[cst.CSTNode] = []  # nested defs, lambdas, classes and generator expressions
        self.loop_depth = 0

    def merge(self, other: "_Scan") -> "_Scan":
        """Add what ``other`` found (a scan of later code) to this scan; returns self."""
        for name in ("reads", "binds", "dels", "declared", "flow", "calls"):
            getattr(self, name).update(getattr(other, name))
        self.scopes += other.scopes
        return self

    def visit_Name(self, node):
        self.reads.add(node.value)

    def visit_Call(self, node):
        if isinstance(node.func, cst.Name):
            self.calls.add(node.func.value)
            if not node.args:
                self.calls.add(node.func.value + "()")

    def visit_GeneratorExp(self, node):
        self.scopes.append(node)  # runs later, when consumed: its reads count both here and as a scope

    def visit_AssignTarget(self, node):
        self.binds.update(target_names(node.target))

    def visit_AugAssign(self, node):
        self.binds.update(target_names(node.target))

    def visit_AnnAssign(self, node):
        if node.value is not None:
            self.binds.update(target_names(node.target))

    def visit_Del(self, node):
        self.dels.update(target_names(node.target))

    def visit_ExceptHandler(self, node):
        if node.name is not None:
            self.dels.update(target_names(node.name.name))

    def visit_Import(self, node):
        for alias in node.names:
            self.binds.add(alias.asname.name.value if alias.asname else dotted_text(alias.name).split(".")[0])
        return False

    def visit_ImportFrom(self, node):
        if isinstance(node.names, cst.ImportStar):
            self.flow.add("import *")
        else:
            for alias in node.names:
                self.binds.add(alias.asname.name.value if alias.asname else dotted_text(alias.name))
        return False

    def visit_MatchAs(self, node):
        if node.name is not None:
            self.binds.add(node.name.value)

    def visit_MatchStar(self, node):
        if node.name is not None:
            self.binds.add(node.name.value)

    def visit_MatchMapping(self, node):
        if node.rest is not None:
            self.binds.add(node.rest.value)

    def visit_CompFor(self, node):
        if node.asynchronous is not None:
            self.flow.add("await")

    def visit_With(self, node):
        if node.asynchronous is not None:
            self.flow.add("await")

    def visit_NamedExpr(self, node):
        self.binds.update(target_names(node.target))

    def visit_For(self, node):
        self.binds.update(target_names(node.target))
        if node.asynchronous is not None:
            self.flow.add("await")
        self.loop_depth += 1

    def leave_For(self, node):
        self.loop_depth -= 1

    def visit_While(self, node):
        self.loop_depth += 1

    def leave_While(self, node):
        self.loop_depth -= 1

    def visit_AsName(self, node):
        self.binds.update(target_names(node.name))

    def visit_Break(self, node):
        if self.loop_depth == 0:
            self.flow.add("break")

    def visit_Continue(self, node):
        if self.loop_depth == 0:
            self.flow.add("continue")

    def visit_Return(self, node):
        self.flow.add("return")

    def visit_Yield(self, node):
        self.flow.add("yield")

    def visit_Await(self, node):
        self.flow.add("await")

    def visit_Global(self, node):
        self.flow.add("global")
        self.declared.update(n.name.value for n in node.names)

    def visit_Nonlocal(self, node):
        self.flow.add("global")
        self.declared.update(n.name.value for n in node.names)

    def visit_FunctionDef(self, node):
        self.binds.add(node.name.value)
        self.scopes.append(node)
        return False

    def visit_ClassDef(self, node):
        self.binds.add(node.name.value)
        self.scopes.append(node)
        return False

    def visit_Lambda(self, node):
        self.scopes.append(node)
        return False


def scan(nodes: Iterable[cst.CSTNode]) -> _Scan:
    s = _Scan()
    for n in nodes:
        n.visit(s)
    return s


def target_names(node) -> List[str]:
    if isinstance(node, cst.Name):
        return [node.value]
    if isinstance(node, (cst.Tuple, cst.List)):
        out = []
        for e in node.elements:
            out.extend(target_names(e.value))
        return out
    if isinstance(node, cst.StarredElement):
        return target_names(node.value)
    return []


def statement_of(code: str) -> cst.BaseStatement:
    return cst.parse_statement(code)


# ------------------------------------------------------------------ unroll a constant range loop


def range_values(loop: cst.For) -> Optional[List[int]]:
    it = loop.iter
    if not (isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "range"):
        return None
    if not it.args or len(it.args) > 3 or any(a.keyword or a.star for a in it.args):
        return None
    nums = []
    for a in it.args:
        v = a.value
        neg = False
        if isinstance(v, cst.UnaryOperation) and isinstance(v.operator, cst.Minus):
            neg, v = True, v.expression
        if not isinstance(v, cst.Integer):
            return None
        n = int(v.value, 0)
        nums.append(-n if neg else n)
    try:
        return list(range(*nums))
    except ValueError:  # range() step 0
        return None


def unroll(module: cst.Module, loop: cst.For, max_unroll: int) -> Optional[cst.Module]:
    """``for i in range(K): body`` -> K copies of ``i = k; body`` (then the ``else`` body).

    Declines when ``module`` rebinds ``range`` (:func:`rebinds_range`; pass the whole file), for
    K = 0, K > ``max_unroll``, a non-Name target, ``break``/``continue`` at the loop's
    level, ``yield``/``await``, and ``global``/``nonlocal`` (repeated after the first copy's
    assignments, CPython rejects them). Behaviour is unchanged (safe): the loop variable ends with
    the last value.
    """
    values = range_values(loop)
    if not values or len(values) > max_unroll or not isinstance(loop.target, cst.Name):
        return None
    if rebinds_range(module):  # `def range(...)`, `range = ...`, `builtins.range = ...`: not the builtin
        return None
    if loop.asynchronous is not None or not isinstance(loop.body, cst.IndentedBlock):
        return None
    info = scan(loop.body.body)
    if info.flow & {"break", "continue", "yield", "await", "global"}:
        return None
    name = loop.target.value
    stmts: List[cst.BaseStatement] = []
    for k in values:
        if name != "_":
            stmts.append(statement_of(f"{name} = {k}\n"))
        stmts.extend(loop.body.body)
    if loop.orelse is not None and isinstance(loop.orelse.body, cst.IndentedBlock):
        stmts.extend(loop.orelse.body.body)
    first = stmts[0]
    stmts[0] = first.with_changes(leading_lines=list(loop.leading_lines) + list(first.leading_lines))
    return replace(module, loop, cst.FlattenSentinel(stmts))


def rebinds_range(module: cst.Module) -> bool:
    """Whether ``module`` binds the name ``range`` anywhere (a definition, an assignment, an
    import, a parameter) or assigns ``builtins.range``: then ``range(K)`` may not be the builtin
    and unrolling it could change what the loop iterates over."""
    class Finder(cst.CSTVisitor):
        found = False

        def visit_Name(self, node: cst.Name) -> None:
            if node.value == "range" and self.binding:
                self.found = True

        def visit_Attribute(self, node: cst.Attribute) -> None:
            if node.attr.value == "range" and self.binding:
                self.found = True

        binding = False

    finder = Finder()

    class Targets(cst.CSTVisitor):
        def _mark(self, node) -> None:
            finder.binding = True
            node.visit(finder)
            finder.binding = False

        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            self._mark(node.target)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            self._mark(node.target)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            self._mark(node.target)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            self._mark(node.name)
            self._mark(node.params)

        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            self._mark(node.name)

        def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
            self._mark(node.asname.name if node.asname else node.name)

        def visit_For(self, node: cst.For) -> None:
            self._mark(node.target)

    module.visit(Targets())
    return finder.found


# ------------------------------------------------------------------ isolate a loop in a helper


def helper_name(func: cst.FunctionDef, what: str) -> str:
    """The name of a helper made for ``func``'s ``what`` (``"loop"``, ``"try"``, ``"with"``): after
    the function, ``_refine_loop`` in ``refine``, then ``_refine_loop_2``... for the next one, the
    first name ``func`` neither binds nor reads (a name that does not move when lines do)."""
    info = scan(_statements(func.body))
    used = info.binds | info.reads | set(param_names(func))
    base = f"_{func.name.value.strip('_') or 'f'}_{what}"
    name, n = base, 1
    while name in used:
        n += 1
        name = f"{base}_{n}"
    return name


def isolate_loop(module: cst.Module, func: cst.FunctionDef, loop, helper: str) -> Optional[cst.Module]:
    """Move a loop that breaks into a nested helper ``helper`` (:func:`helper_name`), so that only
    the helper's frame is skipped and the code before and after the loop in ``func`` stays
    compiled. The same move serves a ``try`` or ``with`` statement (:func:`isolate_statement`).

    Names the loop assigns that are bound before it are passed in; those read after it are
    returned. Declines (returns None) unless the move provably keeps behaviour: on
    ``return``/``yield``/``await``/``async for``/``async with``/``global``/``nonlocal``/``import *``
    in the loop; when a name the loop assigns is only conditionally bound before it and is passed
    or returned, or is read by a closure, lambda, class or generator expression anywhere in ``func``
    (it would see a stale value); when the loop reads a local of ``func`` that may be unbound
    there, or deletes a name used outside it; when the loop assigns a name ``func`` reads
    elsewhere without binding it there (it would become a global); when the loop uses its frame (``super()``,
    ``__class__``, ``inspect``, ``sys._getframe``, ``stacklevel=``...) or ``func`` inspects its
    namespace (``locals()``, ``vars()``, ``dir()``, ``exec``, ``eval``); or when the loop is
    already all the function does.
    """
    body = list(func.body.body) if isinstance(func.body, cst.IndentedBlock) else []
    if loop not in body:
        return None
    idx = body.index(loop)
    before, after = body[:idx], body[idx + 1:]
    rest = [s for s in before + after if not (isinstance(s, cst.SimpleStatementLine)
                                              and all(isinstance(b, (cst.Return, cst.Pass, cst.Expr)) for b in s.body))]
    if not rest:
        return None  # the function is already just the loop
    infos = [scan([s]) for s in body]  # one pass over each statement; merged below
    inside = infos[idx]
    whole = _Scan()
    for info in infos:
        whole.merge(info)
    if inside.flow & {"return", "yield", "global", "await", "import *"}:
        return None
    if _frame_uses(inside) or _frame_uses(whole, namespace_only=True):
        return None
    params = set(param_names(func))
    assigned = inside.binds  # the loop's target included
    maybe_before = params.union(*(info.binds for info in infos[:idx]))
    definite = _definitely_bound(before, params)
    live_after = _live(after, infos[idx + 1:])
    if assigned & (whole.declared | _nested_reads(whole.scopes)):
        return None
    if inside.dels & (maybe_before | live_after) or (maybe_before - definite) & assigned:
        return None
    local = params | whole.binds | whole.dels
    if (local - definite - assigned) & inside.reads:
        return None  # the helper would raise NameError (free variable), not UnboundLocalError
    passed = sorted(assigned & definite)
    returned = sorted(assigned & live_after)
    if any(n not in definite for n in returned):
        return None  # may be unbound after the loop: the helper's `return` would raise earlier
    outside = _Scan()
    for info in infos[:idx] + infos[idx + 1:]:
        outside.merge(info)
    if (assigned - params - outside.binds - set(returned)) & outside.reads:
        return None  # no longer bound in `func`, the name would be looked up as a global there
    if helper in whole.binds | whole.reads:
        return None
    args = ", ".join(passed)
    ret = ", ".join(returned)
    helper_body = [loop.with_changes(leading_lines=[])]
    if returned:
        helper_body.append(statement_of(f"return {ret}\n"))
    helper_def = cst.FunctionDef(name=cst.Name(helper), params=cst.Parameters([cst.Param(cst.Name(n)) for n in passed]),
                                 body=cst.IndentedBlock(body=helper_body), leading_lines=list(loop.leading_lines))
    call = f"{helper}({args})"
    call_stmt = statement_of(f"{ret} = {call}\n" if returned else f"{call}\n")
    return replace(module, loop, cst.FlattenSentinel([helper_def, call_stmt]))


isolate_statement = isolate_loop  # a `try`/`with` statement of func's body moves the same way


# Calls and names that see the frame they run in: moved into a helper, they would see the helper's
# (its locals, its caller, no `__class__` cell for zero-argument `super()`).
_NAMESPACE_CALLS = frozenset({"locals", "exec", "eval", "vars()", "dir()"})
_FRAME_CALLS = _NAMESPACE_CALLS | {"super", "breakpoint"}
_FRAME_NAMES = frozenset({"__class__", "inspect", "traceback", "_getframe", "currentframe", "f_back", "f_locals",
                          "f_globals", "tb_frame", "stacklevel", "stack_info"})


def _frame_uses(info: "_Scan", namespace_only: bool = False) -> Set[str]:
    """What scanned code does that depends on the frame it runs in: inspect its namespace
    (``locals()``, ``vars()``, ``dir()``, ``exec``, ``eval``) or, unless ``namespace_only``, its
    class cell, caller or stack (``super()``, ``__class__``, ``inspect``, ``sys._getframe``,
    ``traceback``, ``stacklevel=``/``stack_info=`` keywords)."""
    if namespace_only:
        return info.calls & _NAMESPACE_CALLS
    return (info.calls & _FRAME_CALLS) | (info.reads & _FRAME_NAMES)


def _nested_reads(scopes: Iterable[cst.CSTNode]) -> Set[str]:
    """Names of the enclosing frame read inside nested functions, lambdas, classes and generator
    expressions (``_Scan.scopes``): code that may run later, or elsewhere, and sees that frame's
    variables. A function's or lambda's own parameters and locals do not count."""
    found: Set[str] = set()
    for node in scopes:
        names = _all_names(node)
        if isinstance(node, (cst.FunctionDef, cst.Lambda)):
            inner = scan(_statements(node.body)) if isinstance(node, cst.FunctionDef) else _Scan()
            names = (names - set(param_names(node)) - inner.binds - inner.dels) | inner.declared
        elif isinstance(node, cst.GeneratorExp):  # its own loop variables are its own
            comp = node.for_in
            while comp is not None:
                names -= set(target_names(comp.target))
                comp = comp.inner_for_in
        found |= names
    return found


def _all_names(node: cst.CSTNode) -> Set[str]:
    class V(cst.CSTVisitor):
        def visit_Name(self, n):
            names.add(n.value)

    names: Set[str] = set()
    node.visit(V())
    return names


def _statements(block) -> List[cst.BaseStatement]:
    """The statements of an indented block or of a one-line ``if c: a; b`` suite."""
    if isinstance(block, cst.IndentedBlock):
        return list(block.body)
    if isinstance(block, cst.SimpleStatementSuite):
        return [cst.SimpleStatementLine(body=block.body)]
    return []


def _definitely_bound(stmts: Iterable[cst.BaseStatement], bound: Set[str]) -> Set[str]:
    """The names bound after ``stmts`` whatever path runs through them, starting from ``bound``:
    assignments, imports, ``def``/``class`` at this level and names both sides of an
    ``if``/``else`` bind; names deleted (``del``, ``except ... as``) anywhere are dropped."""
    bound = set(bound)
    for stmt in stmts:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Del):
                    bound -= set(target_names(small.target))
                elif isinstance(small, cst.Assign):
                    for t in small.targets:
                        bound.update(target_names(t.target))
                elif isinstance(small, (cst.AugAssign, cst.AnnAssign)) and small.value is not None:
                    bound.update(target_names(small.target))
                elif isinstance(small, (cst.Import, cst.ImportFrom)):
                    bound |= scan([small]).binds
        elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            bound.add(stmt.name.value)
        else:
            if isinstance(stmt, cst.If) and stmt.orelse is not None:
                other = _statements(stmt.orelse.body) if isinstance(stmt.orelse, cst.Else) else [stmt.orelse]
                bound |= _definitely_bound(_statements(stmt.body), bound) & _definitely_bound(other, bound)
            bound -= scan([stmt]).dels  # `del` and `except ... as` anywhere inside
    return bound


def _live(stmts: List[cst.BaseStatement], infos: List["_Scan"]) -> Set[str]:
    """The names ``stmts`` (scanned as ``infos``) may read before binding them: backwards over the
    statements. A ``for`` body's reads of the loop's own target do not count (the target is bound
    first); any other compound statement counts every name it reads."""
    live: Set[str] = set()
    for stmt, info in zip(reversed(stmts), reversed(infos)):
        if isinstance(stmt, cst.SimpleStatementLine):
            live = (live - _definitely_bound([stmt], set())) | info.reads
        elif isinstance(stmt, cst.For) and stmt.asynchronous is None:
            inner = scan(_statements(stmt.body)).reads - set(target_names(stmt.target))
            orelse = scan(_statements(stmt.orelse.body)).reads if stmt.orelse is not None else set()
            live = live | scan([stmt.iter]).reads | inner | orelse
        else:
            live = live | info.reads
    return live


def param_names(func: cst.FunctionDef) -> List[str]:
    p = func.params
    names = [x.name.value for x in list(p.posonly_params) + list(p.params) + list(p.kwonly_params)]
    for star in (p.star_arg, p.star_kwarg):
        if isinstance(star, cst.Param):
            names.append(star.name.value)
    return names


# ------------------------------------------------------------------ split a with / try block


def split_with(module: cst.Module, block: cst.With, stmt: cst.BaseStatement) -> Optional[cst.Module]:
    """``with M(): pre; S; post`` -> ``with M(): pre`` / ``S`` / ``with M(): post`` (unsafe: the
    manager is entered twice and S runs outside it). Declines when an item binds ``as`` a name
    or S is not a statement of the block's own body."""
    if any(item.asname is not None for item in block.items) or block.asynchronous is not None:
        return None
    return _split_block(module, block, stmt)


def _split_block(module: cst.Module, block, stmt: cst.BaseStatement) -> Optional[cst.Module]:
    """``block: pre; S; post`` -> ``block: pre`` / ``S`` / ``block: post`` (an empty side is dropped).
    Declines when S is the whole block: the split would drop the manager or the ``except``
    handlers altogether (the block moves into a helper instead, :func:`isolate_statement`)."""
    if not isinstance(block.body, cst.IndentedBlock) or stmt not in block.body.body:
        return None
    body = list(block.body.body)
    i = body.index(stmt)
    pre, post = body[:i], body[i + 1:]
    if not pre and not post:
        return None
    out: List[cst.BaseStatement] = []
    if pre:
        out.append(block.with_changes(body=block.body.with_changes(body=pre)))
    out.append(stmt.with_changes(leading_lines=[] if pre else list(block.leading_lines)))
    if post:
        out.append(block.with_changes(body=block.body.with_changes(body=post), leading_lines=[]))
    return replace(module, block, cst.FlattenSentinel(out))


def split_try(module: cst.Module, block: cst.Try, stmt: cst.BaseStatement) -> Optional[cst.Module]:
    """``try: pre; S; post / except ...`` -> the handlers around ``pre`` and ``post`` separately and
    ``S`` between them (unsafe: an exception in S is no longer handled). Declines with ``finally``
    or ``else``, or when S is not a statement of the ``try`` body."""
    if block.finalbody is not None or block.orelse is not None or not block.handlers:
        return None
    return _split_block(module, block, stmt)


# ------------------------------------------------------------------ torch.compiler.disable


def add_disable(module: cst.Module, func: cst.FunctionDef, alias: Optional[str] = None) -> Optional[cst.Module]:
    """Decorate ``func`` with ``@torch.compiler.disable`` (safe: it still runs, eagerly). ``alias`` is
    the name ``torch`` is bound to; None adds ``import torch`` when missing."""
    for d in func.decorators:
        if dotted_text(d.decorator if not isinstance(d.decorator, cst.Call) else d.decorator.func).endswith("disable"):
            return None
    new_module = replace(module, func, func.with_changes(decorators=[cst.Decorator(cst.parse_expression(
        "torch.compiler.disable"))] + list(func.decorators)))
    if new_module is None:
        return None
    if alias is None:
        new_module, name = torch_name(new_module)
    else:
        name = alias
    if name != "torch":
        new_module = new_module.visit(_RenameDecorator("torch.compiler.disable", f"{name}.compiler.disable"))
    return new_module


class _RenameDecorator(cst.CSTTransformer):
    def __init__(self, old: str, new: str):
        super().__init__()
        self.old, self.new = old, new

    def leave_Decorator(self, original_node, updated_node):
        if dotted_text(updated_node.decorator) == self.old:
            return updated_node.with_changes(decorator=cst.parse_expression(self.new))
        return updated_node


def find_same(new_module: cst.Module, old_module: cst.Module, node: cst.CSTNode) -> Optional[cst.CSTNode]:
    if new_module is old_module:
        return node

    class Find(cst.CSTVisitor):
        found = None

        def on_visit(self, n):
            if Find.found is None and type(n) is type(node) and n.deep_equals(node):
                Find.found = n
                return False
            return True

    new_module.visit(Find())
    return Find.found
