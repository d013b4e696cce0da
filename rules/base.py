"""The shape every break-source rule takes.

A rule is a local fact: "this node is a graph break of kind X (GB ids Y)". It never
decides what happens to the frame; :mod:`gblint.dynamo.consequences` does that from the block
context the engine records around the site (semantics.md, rules 1-5).
"""
from __future__ import annotations

import dataclasses
from typing import ClassVar, Iterable, Optional, Tuple, Type

import libcst as cst


@dataclasses.dataclass
class BreakSite:
    """A break found by a rule at ``node``.

    ``needs`` is a tensor-kind token (see :meth:`gblint.syntax.scope.FunctionScope.kind`) that
    must resolve to a tensor once the whole function has been read, or None when the site
    breaks whatever the types. ``outcome`` (a :class:`gblint.core.model.Outcome` or its word) is
    ``"resume"`` (a resumable break), ``"skip"`` (Dynamo cannot resume: the frame is skipped,
    e.g. ``skip_frame()``), ``"tail"`` (the graph up to the last checkpoint is kept,
    ``step_unsupported()``) or ``"raise"`` (an uncaught ``raise``: skips the frame unless a
    ``try`` around it, in this frame or a caller, handles it).
    """

    rule: "Rule"
    node: cst.CSTNode
    detail: str
    needs: Optional[str] = None
    outcome: str = "resume"
    gb_ids: Tuple[str, ...] = ()
    python_value: bool = False  # turns a tensor into a Python value (matters for nonstrict_trace, GB0251)
    capturable: bool = False  # no break where scalars are captured (fullgraph=True traces `.item()` symbolically)
    needs_capture: bool = False  # breaks only where scalars are captured (a branch on a captured `.item()`)
    # kind tokens that must all turn out to be tensors for the rule's rewrite (torch.where) to
    # apply; None: no rewrite
    fix_needs: Optional[Tuple[str, ...]] = None
    # a test on the values the frame is called with (:class:`gblint.core.model.Expr`): with
    # ``gate_kind`` "gate" the break happens only where the test is known true (a set of tensors
    # passed in); with "branch" it is left out where the test is known false (a deepcopy of
    # constants); ``gate_text`` says the test in words for the diagnostic's certainty
    gate: Optional[object] = None
    gate_kind: str = "gate"
    gate_text: str = ""
    origin_line: int = 0  # where what breaks was written, when the site is its use (a lazily formatted string)
    # a "tail" outcome that stays one inside a loop: Dynamo keeps the graph up to the last checkpoint and runs the
    # rest eagerly, no GB7000 skip (a tensor slice bound, measured: tests/cases/kinds kb38)
    loop_tail: bool = False
    # a break only where its frame is compiled on its own (called from code that runs eagerly), never where a
    # compiled caller inlines it: Dynamo builds a class there without tracing its metaclass's `__call__` (kb46)
    alone: bool = False


class Rule:
    """Base class of a break-source rule.

    Class attributes: ``code`` (``GBL1nn``), ``name`` (kebab-case), ``gb_ids`` (PyTorch
    registry ids), ``node_types`` (libcst node classes the rule inspects), ``summary``
    (what it detects), ``why`` (what it costs), ``hint`` (the rewrite), ``effect`` (what the
    break does to its own frame: ``"break"``, or ``"skip"`` when Dynamo cannot resume after
    it; see :mod:`gblint.core.diagnostics`), ``examples_fire``
    / ``examples_clean`` (whole modules; a line that must be reported ends with
    ``# expect: GBLnnn``), ``source`` (the PyTorch file or doc the rule rests on),
    ``torch_versions`` / ``python_versions`` (PEP 440 specifiers: the versions the rule holds for,
    :func:`gblint.core.registry.in_range`; a fact that changes only part of what the rule reports is a
    :class:`gblint.core.versions.Fact` the rule asks ``ctx.holds(name)`` about).
    ``# expect: GBLnnn``), ``source`` (the PyTorch file or doc the rule rests on).

    The rule page (``gblint rule CODE``) also shows ``use_instead`` (the first firing example
    rewritten so that it is not reported), ``measured`` (a program under ``tests/cases/`` or
    ``tests/fixtures/measured/`` whose behaviour under torch was recorded and shows the break)
    and ``docs`` (PyTorch documentation pages; the graph-break pages of ``gb_ids`` are always
    linked). ``tests/test_rule_pages.py`` checks each against the engine.
    """

    code: ClassVar[str] = ""
    name: ClassVar[str] = ""
    gb_ids: ClassVar[Tuple[str, ...]] = ()
    node_types: ClassVar[Tuple[Type[cst.CSTNode], ...]] = ()
    summary: ClassVar[str] = ""
    why: ClassVar[str] = ""
    hint: ClassVar[str] = ""
    source: ClassVar[str] = ""
    effect: ClassVar[str] = "break"  # what the break does to its own frame, for `gblint rules`
    torch_versions: ClassVar[str] = ">=2.6"  # PEP 440 specifier: the torch releases the rule holds for
    python_versions: ClassVar[str] = ""  # the Pythons it holds for ("": every one), e.g. ">=3.12"
    examples_fire: ClassVar[Tuple[str, ...]] = ()
    examples_clean: ClassVar[Tuple[str, ...]] = ()
    use_instead: ClassVar[str] = ""
    measured: ClassVar[str] = ""
    docs: ClassVar[Tuple[str, ...]] = ()

    def check(self, node: cst.CSTNode, ctx) -> Optional[Iterable[BreakSite]]:
        """Return the break sites at ``node`` (a BreakSite, an iterable of them, or None).

        ``ctx`` is the :class:`gblint.syntax.scope.FunctionScope` of the function being read.
        """
        raise NotImplementedError

    def site(self, node, detail, **kw) -> BreakSite:
        kw.setdefault("gb_ids", self.gb_ids)
        return BreakSite(self, node, detail, **kw)
