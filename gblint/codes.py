"""The codes no rule class defines: gblint's own (``GBL0xx``), the consequences (``GBL2xx``-
``GBL4xx``, :mod:`gblint.consequences`) and the breaks found by following calls rather than by
a rule reading one node (``GBL118``-``GBL120``, :mod:`gblint.index` and
:mod:`gblint.consequences`).

Each code is defined here once; a break-source code is defined once, on its rule class in
``rules/`` (:class:`gblint.rules.base.Rule`). :func:`gblint.catalog.catalog` assembles both
for ``gblint rules``, docs/rules.md, SARIF and the configuration's code check. The scheme of
the code numbers and the effects is in :mod:`gblint.diagnostics`.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, Tuple

CONSEQUENCE = "consequence"
BREAK_SOURCE = "break source"


@dataclasses.dataclass(frozen=True)
class Code:
    """One code: ``name`` (kebab-case), ``effect`` (:data:`gblint.diagnostics.EFFECTS`),
    ``gb_ids`` (PyTorch registry ids), ``summary`` (what it reports), ``why`` (what it costs),
    ``hint`` (the rewrite), ``source`` (what it rests on), ``family`` (:data:`CONSEQUENCE`
    or :data:`BREAK_SOURCE`), and the versions it holds for: ``torch_versions`` and
    ``python_versions``, PEP 440 specifiers (``""``: every version; the facts that change part of
    what it reports are in :data:`gblint.versions.FACTS`)."""

    code: str
    name: str
    effect: str
    summary: str
    gb_ids: Tuple[str, ...] = ()
    why: str = ""
    hint: str = ""
    source: str = "docs/semantics.md"
    family: str = CONSEQUENCE
    torch_versions: str = ""
    python_versions: str = ""


_FOLLOWED = "docs/semantics.md §3.4"  # breaks found at a call by following it

CODES: Dict[str, Code] = {c.code: c for c in (
    Code("GBL000", "internal-error", "info", "gblint failed inside a rule on this file; the other rules still ran."),
    Code("GBL001", "syntax-error", "info", "The file does not parse, or gblint's parser (libcst) cannot parse it although "
                                           "Python does; it was not checked."),
    Code("GBL002", "unreadable-file", "info", "The file could not be read or decoded, or is too large to analyse "
                                              "(`max-file-size`); it was not checked."),
    Code("GBL003", "unresolved-compile", "info", "A compile call whose target gblint cannot resolve: nothing it "
                                                 "compiles is analysed, so no break there can be reported.",
         hint="Pass --follow-imports PACKAGE when the target lives in an installed package, or --entry "
              "module:Class to name what is compiled."),
    Code("GBL118", "rnn-module", "break", "A call of an `nn.RNN`/`nn.GRU`/`nn.LSTM` module.", ("GB0014",),
         hint="Compile the code around the RNN instead, or replace it with an explicit cell loop.",
         source=_FOLLOWED, family=BREAK_SOURCE),
    Code("GBL119", "disabled-call", "break", "A call of a `torch.compiler.disable`d function.", ("GB0098", "GB0099"),
         hint="Keep disabled code out of hot compiled paths, or call it once outside the compiled region.",
         source=_FOLLOWED, family=BREAK_SOURCE),
    Code("GBL120", "nonstrict-trace-output", "break",
         "A `nonstrict_trace`d function that turns tensors into Python values.", ("GB0251",),
         hint="Keep `.item()`/data-dependent Python out of nonstrict_trace functions, or return tensors only.",
         source=_FOLLOWED, family=BREAK_SOURCE),
    Code("GBL201", "break-in-loop", "skip", "A graph break inside a for/while body skips the whole frame (GB7000).",
         ("GB7000",)),
    Code("GBL202", "break-in-try", "skip",
         "A graph break inside try/except/finally skips the frame when no checkpoint precedes it."),
    Code("GBL203", "break-in-with", "skip",
         "A graph break inside a `with` whose manager cannot resume skips the frame (GB0066).", ("GB0066",)),
    Code("GBL204", "unsupported-context-manager", "skip",
         "A `with` of a manager Dynamo cannot wrap skips the frame even without a break (GB0142).", ("GB0142", "GB0008")),
    Code("GBL205", "generator-frame", "skip",
         "A generator frame (compiled generator, consumed generator or @contextmanager) is skipped.", ("GB0003",)),
    Code("GBL206", "break-in-comprehension", "skip",
         "A break inside a generator expression or comprehension skips a frame.", ("GB8335", "GB0092")),
    Code("GBL208", "eager-tail", "break", "A break in try/with after a checkpoint: the graph up to the checkpoint is "
                                          "compiled, the rest of the frame runs eagerly."),
    Code("GBL301", "nested-graph-break", "break",
         "A break reached through calls splits every frame on the way and is traced once per frame."),
    Code("GBL401", "fullgraph-break", "error", "Under fullgraph=True every graph break is a compile error."),
    Code("GBL402", "error-on-graph-break", "error",
         "Under torch._dynamo.error_on_graph_break(True) a graph break raises."),
    Code("GBL403", "call-raises", "error",
         "This call leads to a graph break that raises under fullgraph / error_on_graph_break."),
    Code("GBL404", "dynamo-internal-error", "error",
         "A construct whose trace raises inside Dynamo (`with torch.cpu.amp.autocast()` on Python 3.13): the "
         "compiled call raises an internal error.", hint="Use `torch.autocast(\"cpu\")` instead.",
         source="docs/semantics.md §8.13", python_versions=">=3.13"),
    Code("GBL409", "region-fails-to-compile", "skip",
         "The compiled region cannot compile: its first call raises and no graph is produced past the failure."),
)}
