"""One traversal per file: functions, classes, compiled regions and break events.

The :class:`SummaryBuilder` walks a libcst module once. For every function it records
*events* in source order — break sites found by the rules, calls, and ``with`` statements —
each with the stack of blocks around it (loop, ``try``, ``with`` and its manager,
comprehension, generator expression). The consequence model reads only these records
(:mod:`gblint.core.model`); the tree itself is released afterwards.

The builder is a :class:`gblint.syntax.traversal.PositionedVisitor` (hook dispatch and positions) that
owns one collaborator per concern, each given what it reads (a ``Protocol`` of the builder, or
explicit arguments): :class:`gblint.syntax.refs.Refs` (what names and calls refer to),
:class:`gblint.syntax.regions.Regions` (what the file compiles), :class:`gblint.syntax.flows.Flows` (values
assigned, returned and read), :class:`gblint.syntax.bindings.Bindings` (names rebound or changed in
place, module-level driver calls) and :class:`gblint.syntax.blocks.Blocks` (the blocks around a
statement, whose hooks :func:`gblint.syntax.traversal.forward_hooks` gives the builder); names and
tensor kinds are :mod:`gblint.syntax.scope`'s. This module holds the rest and the hooks that combine
them: the module pre-pass, definitions, assignments, calls and the rules.
"""
from __future__ import annotations

from typing import Dict, List, Optional

import libcst as cst

from . import aliases, suites, value_syntax
from ..abstract import tensors, values
from .bindings import MUTATORS, Bindings, constructor_setting, mutation_places, note_guess, single_return, unpacked
from .flows import TENSOR_CLASSES, Flows
from .headers import declared_kind, decorator_of
from .arm_kinds import gate_blocks
from ..abstract.loop_binds import loop_args, loop_value
from .blocks import Blocks
from ..core.model import (Binding, Block, BlockKind, ClassInfo, CompiledValue, ContainerValue, Definition, Dotted, Event,
                          EventKind, Expr, FileSummary, FunctionInfo, InstanceValue, Kind, LocalDefValue, LoggerValue,
                          ManagerValue, ModuleAttr, NnModuleAttr, Op, Outcome, PartialValue, TensorAttr, PARAM_PREFIX,
                          param_kind)
from ..core.names import ImportTable, dotted, module_imports
from .refs import Refs, is_external
from .regions import Regions
from .scope import FunctionScope
from ..core.semantics import CALLS_ARGUMENT, DYNAMO_CONFIG_PREFIXES, STANCE_SETTERS
from ..core.source import describe_exception
from ..core.fix_requests import WHERE_FIXES
from ..abstract.tensors import join, likely_tensor, maybe_tensor
from .traversal import PositionedVisitor, code_of, forward_hooks, literal

# the bindings a function's scope keeps (anything else is a value gblint does not follow)
_FOLLOWED_VALUES = (ManagerValue, InstanceValue, ContainerValue, CompiledValue, LoggerValue, PartialValue)
ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.MatrixMultiply, cst.Power)


class SummaryBuilder(PositionedVisitor):
    """Builds a :class:`FileSummary` in one pass over a libcst module.

    ``rules`` maps libcst node types to the rule instances interested in them.
    """

    def __init__(self, path: str, module: str, is_package: bool, rules_by_type, settings):
        super().__init__()
        self.summary = FileSummary(path, module)
        self.imports = ImportTable(module, is_package)
        self.rules_by_type = rules_by_type
        self.settings = settings
        self.scope: Optional[FunctionScope] = None
        self.class_stack: List[ClassInfo] = []
        self.func_stack: List[FunctionScope] = []
        self.module_node: Optional[cst.Module] = None
        self.module_scope = FunctionScope(self, None, self.imports, {}, None, None)
        self.module_now: Dict[str, Binding] = {}  # module-level names as bound so far in the traversal
        self.module_scope.env = {}
        self._def_quals: Dict[int, str] = {}
        self._local_classes: set = set()
        self._lambdas: Dict[int, str] = {}
        self.expr_depth = 0  # gblint.syntax.value_syntax.expr_of calls inside one another
        self._site_nodes: set = set()  # id() of the nodes rules reported as break sites
        self.rule_notes: Dict[tuple, object] = {}  # what rules noted of names while reading the file (rules.notes)
        self.refs = Refs(self.summary, self.imports, self.module_now)
        self.regions = Regions(self, self.refs, self._def_quals)
        self.flows = Flows(self)
        self.bindings = Bindings(self)
        self.blocks = Blocks(self)  # its hooks: forward_hooks below
        self.numpy_attrs = self.flows.numpy_attrs  # read by gblint.abstract.tensors.numpy_made through FunctionScope.builder

    # -- helpers
    def config_value(self, name: str, default=None):
        """The Dynamo config value ``name``: set at module level in this file, else in the settings."""
        if name in self.summary.config:
            return self.summary.config[name]
        return self.settings.dynamo_config.get(name, default)

    def holds(self, fact: str) -> bool:
        """Whether ``fact`` (:data:`gblint.core.versions.FACTS`) holds for the settings' versions."""
        from ..core.versions import holds, torch_of
        return holds(fact, torch_of(self.settings), self.settings.python_version)

    @property
    def ctx(self) -> FunctionScope:
        """The scope rules see: the current function's, or the module's outside functions."""
        return self.scope if self.scope is not None else self.module_scope

    @property
    def try_nodes(self) -> list:
        """The ``try`` statements around the node being read, innermost last (rules/language.py)."""
        return self.blocks.try_nodes

    def in_function(self) -> bool:
        """Whether the traversal is inside a function body (events are recorded only there)."""
        return self.scope is not None and self.scope.info is not None

    def value_of(self, node: cst.BaseExpression) -> Expr:
        """``node`` as a value in the current scope (:func:`gblint.syntax.value_syntax.expr_of`)."""
        return value_syntax.expr_of(node, self.ctx)

    def lambda_qual(self, node: cst.Lambda) -> Optional[str]:
        """The qualified name the traversal gave the lambda ``node``, or None."""
        return self._lambdas.get(id(node))

    # -- module pre-pass: imports, globals, config set at module level
    def visit_Module(self, node: cst.Module) -> None:
        self.module_node = node
        conditional = []
        for small, maybe in module_imports(node.body, self.imports):
            if maybe:
                conditional.append(small)
            elif isinstance(small, cst.Import):
                self.imports.add_import(small)
            else:
                self.imports.add_import_from(small)
        for small in conditional:  # `if is_torch_available(): from .unet_2d import UNet2DModel`
            table = ImportTable(self.imports.module, self.imports.is_package)
            (table.add_import if isinstance(small, cst.Import) else table.add_import_from)(small)
            for name, target in table.names.items():
                self.imports.names.setdefault(name, target)
            self.imports.stars.extend(m for m in table.stars if m not in self.imports.stars)
        for stmt in node.body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.Assign):
                        for t in small.targets:
                            if isinstance(t.target, cst.Name):
                                self.summary.module_names[t.target.value] = self.refs.value_ref(small.value,
                                                                                                self.module_scope)
                    elif isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) and small.value:
                        self.summary.module_names[small.target.value] = self.refs.value_ref(small.value,
                                                                                            self.module_scope)
            elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                self.summary.module_names[stmt.name.value] = Definition()
        self.summary.imports = dict(self.imports.names)
        self.summary.star_imports = list(self.imports.stars)
        self.collect_config(node)

    def collect_config(self, node: cst.Module) -> None:
        """``torch._dynamo.config.X = value`` statements at module level (any import spelling)."""
        for stmt in node.body:
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            for small in stmt.body:
                if isinstance(small, cst.Assign):
                    for t in small.targets:
                        q = self.imports.resolve(t.target) if isinstance(t.target, cst.Attribute) else None
                        if q and q.startswith(DYNAMO_CONFIG_PREFIXES):
                            value = literal(small.value)
                            if isinstance(small.value, (cst.Set, cst.List, cst.Tuple)):
                                value = tuple(self.imports.resolve(e.value) or "" for e in small.value.elements)
                            self.summary.config[q.rsplit(".", 1)[-1]] = value
                elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                    self.config_addition(small.value)

    def config_addition(self, call: cst.Call) -> None:
        """``torch._dynamo.config.reorderable_logging_functions.add(f)`` (or ``.update({...})``) at
        module level: the set setting, extended with the names added; ``torch.compiler.set_stance(s)``: ``stance``."""
        func = call.func
        if self.imports.resolve(func) in STANCE_SETTERS and call.args:
            self.summary.config["stance"] = literal(call.args[0].value)  # None where not a literal: not known
        if not isinstance(func, cst.Attribute) or func.attr.value not in ("add", "update") or len(call.args) != 1:
            return
        q = self.imports.resolve(func.value)
        if not q or not q.startswith(DYNAMO_CONFIG_PREFIXES):
            return
        arg = call.args[0].value
        items = [e.value for e in arg.elements] if func.attr.value == "update" and \
            isinstance(arg, (cst.Set, cst.List, cst.Tuple)) else [arg]
        name = q.rsplit(".", 1)[-1]
        before = self.config_value(name, ())
        before = before if isinstance(before, (tuple, list, set, frozenset)) else ()
        self.summary.config[name] = tuple(before) + tuple(self.imports.resolve(e) or "" for e in items)

    # -- imports inside functions
    def visit_Import(self, node: cst.Import) -> None:
        self.flows.enter_import()
        if self.in_function():
            self.record_rules(node)
            self.scope.imports.add_import(node)
            for alias in node.names:
                bound = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) \
                    else dotted(alias.name).split(".")[0]
                self.scope.env.pop(bound, None)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.flows.enter_import()
        if self.in_function():
            self.record_rules(node)
            self.scope.imports.add_import_from(node)

    def leave_Import(self, node: cst.Import) -> None:
        self.flows.leave_import()

    def leave_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.flows.leave_import()

    def visit_Global(self, node: cst.Global) -> None:
        if self.in_function():
            self.scope.declared_global.update(item.name.value for item in node.names)

    # -- classes
    def visit_ClassDef(self, node: cst.ClassDef) -> Optional[bool]:
        if self.in_function():
            self.record_rules(node)  # its body does not run here, but is walked (positions matched against ast)
            self.scope.blocks.append(Block(BlockKind.EAGER_ONLY, 0, self.scope.ops))
            self._local_classes.add(id(node))
            return True
        qual = ".".join([c.name for c in self.class_stack] + [node.name.value])
        bases = [self.imports.resolve(b.value) or "" for b in node.bases]
        info = ClassInfo(node.name.value, qual, bases, {}, {}, self.span(node),
                         decorators=[decorator_of(d, self.ctx) for d in node.decorators])
        for k in node.keywords:
            if k.keyword is not None and k.keyword.value == "metaclass":
                info.metaclass = self.imports.resolve(k.value) or ""
        self.summary.classes[qual] = info
        self.class_stack.append(info)
        return True

    def leave_Module(self, node: cst.Module) -> None:
        self.bindings.settle_grown()
        self.regions.settle(node)
        self.blocks.fill_conditions()

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        if id(node) in self._local_classes:
            self.blocks.pop()
            return
        if self.class_stack and self.class_stack[-1].name == node.name.value and not self.in_function():
            aliases.kept_on_self(self.class_stack.pop(), self.summary.functions)

    # -- functions
    def visit_FunctionDef(self, node: cst.FunctionDef) -> Optional[bool]:
        return True

    def visit_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        parent = self.scope
        cls = self.class_stack[-1] if (self.class_stack and parent is None) else None
        if parent is not None and parent.info is not None:
            qual = f"{parent.info.qualname}.{node.name.value}"
            parent.info.local_defs[node.name.value] = qual
            parent.env[node.name.value] = Kind.UNKNOWN
            parent.values[node.name.value] = LocalDefValue(qual)
        elif cls is not None:
            qual = f"{cls.qualname}.{node.name.value}"
            if node.name.value in cls.methods and any(
                    (dotted(d.decorator) or "").endswith((".setter", ".deleter")) for d in node.decorators):
                qual = f"{qual}@{dotted(node.decorators[0].decorator).rsplit('.', 1)[-1]}"  # the getter keeps the name
            else:
                cls.methods[node.name.value] = qual
        else:
            qual = node.name.value
        decorators = [decorator_of(d, self.ctx) for d in node.decorators]
        info = FunctionInfo(qual, node.name.value, cls.qualname if cls else (parent.class_info.qualname if parent and parent.class_info else None),
                            self.span(node), decorators, is_async=node.asynchronous is not None,
                            params=value_syntax.params_of(node.params, self.ctx))
        self.summary.functions[qual] = info
        self._def_quals[id(node)] = qual
        params: Dict[str, str] = {}
        all_params = list(node.params.posonly_params) + list(node.params.params) + list(node.params.kwonly_params)
        self_name = None
        if cls is not None and all_params and not info.decorator("staticmethod"):
            self_name = all_params[0].name.value
            all_params = all_params[1:]
        for i, p in enumerate(all_params):
            params[p.name.value] = declared_kind(p, cls is not None and node.name.value == "forward" and i == 0,
                                                 self.imports)
        for star in (node.params.star_arg, node.params.star_kwarg):
            if isinstance(star, cst.Param):
                params[star.name.value] = Kind.UNKNOWN
        scope = FunctionScope(self, info, (parent.imports if parent else self.imports).child(), params,
                              parent if parent is not None and parent.info is not None else None,
                              cls or (parent.class_info if parent else None))
        scope.self_name = self_name or (parent.self_name if parent else None)
        scope.def_node = node
        if self_name:
            scope.env[self_name] = Kind.SELF
        self.func_stack.append(scope)
        self.scope = scope

    def leave_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        scope = self.func_stack.pop()
        info = scope.info
        info.is_generator = scope.is_generator
        info.ops_total = scope.ops
        info.returns = single_return(node, scope)
        if scope.is_generator:
            info.results = (values.NOTNONE,)  # calling it makes a generator
        elif not isinstance(node, cst.Lambda) and not suites.leaves(node.body):
            info.results = info.results + (values.const(None),)  # it may run off its end
        elif isinstance(node, cst.Lambda):
            info.results = (value_syntax.expr_of(node.body, scope),)
        info.mutated, info.mutated_when = mutation_places(scope)
        for item in scope.in_loop_values:  # a loop may come back to them with the parameter rebound
            loop = scope.item_loop[id(item)]
            binds = scope.loop_binds.get(loop)
            if not binds:
                continue
            entry = scope.loop_params.get(loop, frozenset())
            if isinstance(item, Block):
                item.test = loop_value(item.test, binds, entry)
            elif item.args is not None:
                item.args = loop_args(item.args, binds, entry)
        for ev in scope.pending:
            guessed = ev.kind == EventKind.BREAK and not scope.resolve_token(ev.needs)
            param = ev.needs[len(PARAM_PREFIX):] if ev.needs and ev.needs.startswith(PARAM_PREFIX) else None
            if guessed and param not in scope.params:  # guessed: `int(x > 0)`, only a tensor passed in proves it
                continue
            ev.fixable = not guessed and ev.fix_needs is not None and all(scope.resolve_token(t) and (  # where: facts only
                ev.code not in WHERE_FIXES or t in (Kind.TENSOR, PARAM_PREFIX + (param or ""))) for t in ev.fix_needs)
            ev.tensor_param, ev.passed_tensor, ev.needs, ev.fix_needs = param, guessed, None, None
            info.events.append(ev)
        self.scope = self.func_stack[-1] if self.func_stack else None

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.regions.leave_function(node)

    # -- lambdas and nested classes: their bodies do not run where they are defined
    def visit_Lambda(self, node: cst.Lambda) -> Optional[bool]:
        """A lambda's body runs when it is called, not where it is written: it is a function of
        its own (``outer.<lambda:LINE>``), callable through the name it is assigned to."""
        if not self.in_function():
            return True  # walked for positions only: no function records events at module level
        parent = self.scope
        span = self.span(node)
        qual = f"{parent.info.qualname}.<lambda:{span.line}:{span.column}>"
        info = FunctionInfo(qual, "<lambda>", parent.info.class_name, span, [], params=value_syntax.params_of(node.params))
        self.summary.functions[qual] = info
        params = {}
        for p in list(node.params.posonly_params) + list(node.params.params) + list(node.params.kwonly_params):
            params[p.name.value] = param_kind(p.name.value) if p.default is None else Kind.UNKNOWN
        scope = FunctionScope(self, info, parent.imports.child(), params, parent, parent.class_info)
        scope.self_name = parent.self_name
        self._lambdas[id(node)] = qual
        self.func_stack.append(scope)
        self.scope = scope
        return True

    def leave_Lambda(self, node: cst.Lambda) -> None:
        if self._lambdas.get(id(node)) and self.scope is not None and self.scope.info is not None \
                and self.scope.info.qualname == self._lambdas[id(node)]:
            self.leave_FunctionDef_body(node)

    # -- assignments feed tensor inference
    def leave_Assign(self, node: cst.Assign) -> None:
        scope = self.ctx
        value = self.value_of(node.value)
        for t in node.targets:
            self.flows.note_target(t.target, value)
            if isinstance(t.target, cst.Subscript) and self.in_function():
                self.flows.note_item_store(t.target, value)
            self.bind(t.target, node.value, scope)
        self.regions.note_mode_assign(node)

    def visit_Name(self, node: cst.Name) -> None:
        if self.in_function() and not self.scope.info.uses_torch and node.value not in self.scope.env:
            target = self.scope.imports.lookup(node.value)
            if target is not None and (target == "torch" or target.startswith("torch.")
                                       and target.rsplit(".", 1)[-1][:1].islower()):
                self.scope.info.uses_torch = True  # Dynamo's has_tensor_in_frame: a torch module among the globals

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if self.in_function():
            self.scope.written.add(id(node.target))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if self.in_function():
            self.scope.written.add(id(node.target))

    def visit_Del(self, node: cst.Del) -> None:
        self.bindings.note_rebound(node.target)
        self.flows.note_unknown(node.target)
        if isinstance(node.target, cst.Subscript):
            self.bindings.note_keyed(node.target, True)

    def leave_Del(self, node: cst.Del) -> None:
        self.flows.note_del(node)

    def leave_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.bindings.note_rebound(node.target)
        self.flows.note_target(node.target, self.value_of(node.value))

    def leave_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self.bindings.note_rebound(node.asname.name)
            self.flows.note_target(node.asname.name, Expr(Op.ENTER, parts=(self.value_of(node.item),)))

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self.bindings.note_rebound(node.name.name)
            self.flows.note_unknown(node.name.name)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.bindings.note_nonlocal(node)

    def visit_Return(self, node: cst.Return) -> None:
        if self.in_function() and any(b.kind in (BlockKind.BRANCH, BlockKind.ERROR_PATH) for b in self.scope.blocks):
            self.scope.returned_in_branch = True

    def leave_Return(self, node: cst.Return) -> None:
        self.flows.note_return(node)  # after the value was visited: a lambda in it has its name
        self.record_rules(node)  # rules/autograd.py: what an autograd.Function's forward returns
        self.blocks.note_exit()

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self.flows.note_comp_for(node)

    def visit_CompFor_iter(self, node: cst.CompFor) -> None:
        self.flows.enter_comp_iter(node)

    def leave_CompFor_iter(self, node: cst.CompFor) -> None:
        self.flows.leave_comp_iter(node)

    def leave_AnnAssign(self, node: cst.AnnAssign) -> None:
        scope = self.ctx
        self.flows.note_annotated(node)
        if node.value is not None:
            self.flows.note_target(node.target, self.value_of(node.value))
            self.bind(node.target, node.value, scope)
        if isinstance(node.target, cst.Name) and self.in_function():
            ann = dotted(node.annotation.annotation) or ""
            if ann.endswith("Tensor"):
                scope.env[node.target.value] = Kind.TENSOR

    def leave_AugAssign(self, node: cst.AugAssign) -> None:
        self.bindings.note_rebound(node.target)
        self.flows.note_unknown(node.target)
        if isinstance(node.target, cst.Subscript):
            self.bindings.note_keyed(node.target, False)
        elif isinstance(node.target, cst.Name) and self.in_function():  # `d |= e`, `xs += ys`: in place for a dict, a list
            self.bindings.note_mutated(node.target)
        if self.in_function() and isinstance(node.target, cst.Name):
            scope = self.scope
            old = scope.lookup(node.target.value) or Kind.UNKNOWN
            new = join(old, scope.kind(node.value))
            scope.env[node.target.value] = new
            if likely_tensor(new) or likely_tensor(old):
                scope.ops += 1
            if scope.guessed_expr(node.value):
                scope.guessed.add(node.target.value)

    def bind(self, target, value, scope: FunctionScope) -> None:
        """Record what assigning ``value`` to ``target`` makes of the names bound (kinds,
        bindings) and, for ``self.attr``, of the class's attributes."""
        local = None
        if isinstance(target, (cst.Name, cst.Tuple, cst.List)) and self.in_function() and scope is self.scope:
            local = value_syntax.expr_of(value, scope)  # read before the binding: `x = f(x)` reads the old x
            if isinstance(target, cst.Name):  # `other = cache`, `holder = [cache]`: one object, two names
                scope.note_aliases(target.value, aliases.held_names(value))
        self.bindings.note_rebound(target, local)
        self.flows.note_value_facts(target, value, scope)
        if local is not None and all(b.kind in (BlockKind.WITH, BlockKind.AFTER_RETURN) for b in scope.blocks):
            for name, bound in unpacked(target, local):  # on every path to what follows
                if bound.op != Op.UNKNOWN:
                    scope.local_values[name] = bound
        if isinstance(target, cst.Name):
            if scope is self.module_scope and self.class_stack:
                self.bindings.note_object_facts(target.value, value)
                return  # a class-body name (ClassInfo.values), not a module global
            if scope is self.module_scope:  # module names are read flow-insensitively, but for compile calls
                self.module_now[target.value] = self.refs.value_ref(value, scope)
                self.bindings.note_module_value(target.value, value)
                return
            scope.env[target.value] = scope.kind(value)
            note_guess(target.value, value, scope)
            if isinstance(value, cst.Lambda) and id(value) in self._lambdas:
                scope.values[target.value] = LocalDefValue(self._lambdas[id(value)])
                scope.env[target.value] = Kind.UNKNOWN
                return
            ref = self.refs.value_ref(value, scope)
            if isinstance(ref, _FOLLOWED_VALUES):
                scope.values[target.value] = ref
                if isinstance(ref, ContainerValue) or (isinstance(ref, InstanceValue)
                                                       and self.refs.is_module_class(ref)):
                    scope.env[target.value] = Kind.MODULE
            else:
                scope.values.pop(target.value, None)
        elif isinstance(target, (cst.Tuple, cst.List)):
            vk = scope.kind(value)
            if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(target.elements):
                for te, ve in zip(target.elements, value.elements):
                    self.bind(te.value, ve.value, scope)
            else:
                for te in target.elements:
                    if isinstance(te.value, cst.Name) and scope is not self.module_scope:
                        scope.env[te.value.value] = vk if maybe_tensor(vk) else Kind.UNKNOWN
                        note_guess(te.value.value, value, scope)
        elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and scope.self_name \
                and target.value.value == scope.self_name and scope.class_info is not None:
            cls = scope.class_info
            attr = target.attr.value
            ref = self.refs.value_ref(value, scope)
            if isinstance(ref, ContainerValue):
                cls.attrs[attr] = ref
            elif isinstance(ref, InstanceValue):
                callee = ref.cls
                q = callee.name if isinstance(callee, Dotted) else ""
                if q in TENSOR_CLASSES or q.startswith("torch.nn.Parameter"):
                    cls.attrs[attr] = TensorAttr(known=True)
                elif q.startswith("torch.nn."):
                    cls.attrs[attr] = NnModuleAttr(q)
                else:
                    cls.attrs.setdefault(attr, ModuleAttr((callee,)))
            elif scope.info is not None and scope.info.name == "__init__" and constructor_setting(value, scope):
                pass  # plain constructor arguments (`self.rate = rate`, `self.res = inp == out`): configuration
            elif maybe_tensor(scope.kind(value)):
                # a guess when the value is a tensor only if a parameter is one
                cls.attrs.setdefault(attr, TensorAttr(known=scope.known_tensor(value) == Kind.TENSOR))

    # -- calls: regions, events, tensor evidence
    def visit_Call(self, node: cst.Call) -> None:
        scope = self.ctx
        func = node.func
        q = scope.resolve(func)
        self.flows.enter_call(node, q)
        if isinstance(func, cst.Attribute) and func.attr.value in MUTATORS and not self.bindings.note_grown(node):
            self.bindings.note_mutated(func.value, key=self.bindings.method_key(node))
        self.regions.detect_compile(node, q)
        self.flows.note_setattr(node, q)
        if not self.in_function():
            return
        self.flows.note_registered_tensor(node, scope)
        if isinstance(func, cst.Attribute) and func.attr.value in tensors.TENSOR_METHODS:
            scope.note_tensor_param(func.value)
        if q and q.startswith("torch.") and node.args and tensors.torch_call_kind(q) == Kind.TENSOR:
            scope.note_tensor_param(node.args[0].value)
        if scope.kind(func) == Kind.MODULE:
            for a in node.args:
                scope.note_tensor_param(a.value)

    def leave_Call(self, node: cst.Call) -> None:
        # Dynamo breaks at the CALL instruction, after the arguments were traced: record here.
        self.flows.leave_call()
        self._leave_call(node)
        self.bindings.note_handed(node)  # after the call's own values are recorded

    def _leave_call(self, node: cst.Call) -> None:
        if not self.in_function():
            if self.scope is None:
                self.bindings.module_call(node)
            return
        scope = self.scope
        self.record_rules(node)
        self.flows.note_call_flows(node)
        if not self.suppressed():
            ref = self.refs.callee_ref(node.func, scope)
            external = isinstance(ref, Dotted) and ref.name and is_external(ref.name) \
                and ref.name not in CALLS_ARGUMENT and not self.flows.named_attribute_read(node, ref.name)
            if (ref is not None and not external) or (ref is None and id(node) not in self._site_nodes
                                                      and self.flows.may_follow(node)):  # a break site is not inlined
                partial = isinstance(node.func, cst.Name) and isinstance(
                    scope.values.get(node.func.value) or self.summary.module_names.get(node.func.value), PartialValue)
                ev = Event(EventKind.CALL, self.span(node), tuple(scope.blocks), scope.ops,
                           call_text=code_of(node.func),
                           args=None if partial else value_syntax.call_args(node, scope),  # partial: more arguments
                           func=self.value_of(node.func))
                scope.note_in_loop(ev)
                self.add_event(ev)
        if likely_tensor(scope.call_kind(node)):
            scope.ops += 1

    def leave_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if self.in_function():
            if isinstance(node.operator, cst.MatrixMultiply):
                self.scope.note_tensor_param(node.left)
                self.scope.note_tensor_param(node.right)
            lk, rk = self.scope.kind(node.left), self.scope.kind(node.right)
            if isinstance(node.operator, ARITHMETIC):
                # `x + 1`, `x * y_tensor`: arithmetic with a number or a tensor is evidence of a tensor
                if rk == Kind.TENSOR or isinstance(node.right, (cst.Integer, cst.Float)):
                    self.scope.note_tensor_param(node.left)
                if lk == Kind.TENSOR or isinstance(node.left, (cst.Integer, cst.Float)):
                    self.scope.note_tensor_param(node.right)
            if likely_tensor(lk) or likely_tensor(rk):
                self.scope.ops += 1
            self.record_rules(node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.flows.note_chain(node)
        if self.in_function() and isinstance(node.value, cst.Name) and node.value.value == self.scope.self_name \
                and node.attr.value not in self.scope.info.self_reads and id(node) not in self.scope.store_targets:
            span = self.span(node)  # Dynamo wraps what `self.x` holds at its first LOAD_ATTR
            self.scope.info.self_reads[node.attr.value] = (0, 0, 0, 0) if self.scope.blocks else \
                (span.line, span.column, span.end_line, span.end_column)
        if self.in_function() and node.attr.value in ("shape", "dtype", "device", "ndim", "T", "mT", "grad", "is_cuda"):
            self.scope.note_tensor_param(node.value)
        if self.rule_notes:  # only rules that read notes look at attributes (rules/objects.py)
            self.record_rules(node)

    def leave_Attribute(self, node: cst.Attribute) -> None:
        self.flows.note_attribute_read(node)

    def suppressed(self) -> bool:
        """Whether the current statement never runs under Dynamo."""
        return any(b.kind == BlockKind.EAGER_ONLY for b in self.scope.blocks)

    def add_event(self, ev: Event) -> None:
        """Record ``ev`` in the current function, unless it never runs under Dynamo."""
        if self.in_function() and not self.suppressed():
            ev.exits = self.scope.exits
            self.scope.pending.append(ev)

    def record_rules(self, node) -> None:
        """Run the rules interested in ``node``'s type and record the break sites they find; a
        rule that raises is recorded in ``rule_errors`` (GBL000) and the others still run."""
        rules = self.rules_by_type.get(type(node))
        if not rules or not self.in_function() or self.suppressed():
            return
        self.scope.resolving = {}  # the rules only read: each resolves `node.func` once between them
        try:
            self._run_rules(node, rules)
        finally:
            self.scope.resolving = None

    def _run_rules(self, node, rules) -> None:
        for rule in rules:
            try:
                found = rule.check(node, self.scope)
            except Exception as exc:  # a broken rule must not stop the others (GBL000)
                self.summary.rule_errors.append((rule.name, self.span(node).line, describe_exception(exc)))
                continue
            if found is None:
                continue
            if not isinstance(found, (list, tuple)):
                found = (found,)
            for site in found:
                span = self.span(site.node)
                blocks = tuple(self.scope.blocks) + gate_blocks(self.scope, site, span.line, node)
                ev = Event(EventKind.BREAK, span, blocks, self.scope.ops,
                    code=site.rule.code, rule_name=site.rule.name, gb_ids=tuple(site.gb_ids), detail=site.detail,
                    hint=site.rule.hint, outcome=Outcome(site.outcome), python_value=site.python_value, needs=site.needs,
                    capturable=site.capturable, needs_capture=site.needs_capture, fix_needs=site.fix_needs,
                    origin_line=site.origin_line, loop_tail=site.loop_tail, alone=site.alone)
                self.add_event(ev)
                self._site_nodes.add(id(site.node))

    # statements and expressions the rules look at
    def leave_If_test(self, node):
        self.record_rules(node)

    def leave_IfExp_test(self, node):
        self.record_rules(node)

    def leave_BooleanOperation_left(self, node):
        self.record_rules(node)

    def visit_UnaryOperation(self, node):
        self.record_rules(node)

    def leave_Comparison(self, node):
        self.record_rules(node)

    def visit_FormattedString(self, node):
        self.record_rules(node)

    def visit_Raise(self, node):
        # A `raise NotImplementedError` (an abstract method), or a `raise` after branches that
        # return (the fallback of a dispatch: reached when no branch matched), runs only when
        # something is wrong: an error path, like a branch that raises.
        fallback = self.in_function() and (_raises_not_implemented(node) or (
            self.scope.returned_in_branch and not any(b.kind == BlockKind.BRANCH for b in self.scope.blocks)))
        if fallback:
            self.blocks.push(BlockKind.ERROR_PATH, node)
        self.record_rules(node)
        if fallback:
            self.blocks.pop()

    def visit_Subscript(self, node):
        self.record_rules(node)

    def visit_Assign(self, node):
        for t in node.targets:
            if isinstance(t.target, cst.Subscript) and not (self.scope is None and len(node.targets) == 1
                                                             and self.bindings.module_item_store(t.target, node.value)):
                self.bindings.note_keyed(t.target, False, node.value)
        if self.in_function():
            self.scope.store_targets.update(id(t.target) for t in node.targets)
        self.record_rules(node)


for _attribute, _part in (("blocks", Blocks), ("regions", Regions)):
    forward_hooks(SummaryBuilder, _attribute, _part)


def _raises_not_implemented(node: cst.Raise) -> bool:
    exc = node.exc.func if isinstance(node.exc, cst.Call) else node.exc
    return dotted(exc) in ("NotImplementedError", "builtins.NotImplementedError") if exc is not None else False
