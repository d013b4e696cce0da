"""The codes no rule class defines: gblint's own (``GBL0xx``: ``GBL004`` is an unused ``# noqa``
code, :mod:`gblint.project.noqa_edits`; ``GBL005``/``GBL006`` what was not analysed,
:func:`gblint.project.reporting.coverage_notes`), the consequences (``GBL2xx``-
``GBL4xx``, :mod:`gblint.dynamo.consequences`) and the breaks found by following calls rather than by
a rule reading one node (``GBL118``-``GBL120``, :mod:`gblint.dynamo.index` and
:mod:`gblint.dynamo.consequences`).

Each code is defined here once; a break-source code is defined once, on its rule class in
``rules/`` (:class:`gblint.rules.base.Rule`). :func:`gblint.settings.catalog.catalog` assembles both
for ``gblint rules``, docs/rules.md, SARIF and the configuration's code check. The scheme of
the code numbers and the effects is in :mod:`gblint.core.diagnostics`.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, Tuple

CONSEQUENCE = "consequence"
BREAK_SOURCE = "break source"

#: PyTorch's documentation of torch.compile's programming model, which the rule pages link
PYTORCH_DOCS = "https://docs.pytorch.org/docs/stable/compile/"
GRAPH_BREAKS_DOC = PYTORCH_DOCS + "programming_model.dynamo_core_concepts.html"
COMMON_BREAKS_DOC = PYTORCH_DOCS + "programming_model.common_graph_breaks.html"
SKIPPED_DOC = PYTORCH_DOCS + "programming_model.skipped_functions.html"
NESTED_DOC = PYTORCH_DOCS + "programming_model.nested_graph_breaks.html"
FULLGRAPH_DOC = PYTORCH_DOCS + "programming_model.fullgraph_true.html"
EOGB_DOC = PYTORCH_DOCS + "programming_model.error_on_graph_break.html"
DISABLE_DOC = PYTORCH_DOCS + "programming_model.compiler_disable.html"
NONSTRICT_DOC = PYTORCH_DOCS + "programming_model.dynamo_nonstrict_trace.html"
#: the torch versions the consequence model was measured on (tests/cases: truth.json,
#: truth-2.14.json, truth-2.15.json agree on every consequence)
MEASURED_TORCH = ">=2.13"


@dataclasses.dataclass(frozen=True)
class Code:
    """One code: ``name`` (kebab-case), ``effect`` (:data:`gblint.core.diagnostics.EFFECTS`),
    ``gb_ids`` (PyTorch registry ids), ``summary`` (what it reports), ``why`` (what it costs),
    ``hint`` (the rewrite), ``source`` (what it rests on) and ``family`` (:data:`CONSEQUENCE`
    or :data:`BREAK_SOURCE`).

    The rule page (``gblint rule CODE``, :mod:`gblint.frontends.rule_pages`) also reads ``example`` (a
    whole module the code is reported on), ``use_instead`` (that module rewritten so that it is
    not), ``measured`` (a program under ``tests/`` whose runtime behaviour under torch was
    recorded and shows the consequence; empty for gblint's own codes), ``docs`` (PyTorch
    documentation pages), ``torch_versions`` (a PEP 440 specifier) and, for a code no program
    can produce, ``no_example`` (why). ``brief`` is the template of the one-line message
    (:func:`gblint.core.messages.short_message`; ``{subject}`` what breaks, ``{frame}`` the frame that
    pays, ``{via}`` the calls that lead to the break); empty: the verdict's template.

    The versions it holds for: ``torch_versions`` and ``python_versions``, PEP 440 specifiers
    (``""``: every version; the facts that change part of what it reports are in
    :data:`gblint.core.versions.FACTS`)."""

    code: str
    name: str
    effect: str
    summary: str
    gb_ids: Tuple[str, ...] = ()
    why: str = ""
    hint: str = ""
    source: str = "docs/semantics.md"
    family: str = CONSEQUENCE
    brief: str = ""
    example: str = ""
    use_instead: str = ""
    measured: str = ""
    docs: Tuple[str, ...] = ()
    torch_versions: str = ""
    python_versions: str = ""
    no_example: str = ""


#: gblint's own codes that say a file was not (fully) checked because gblint could not read it or
#: what it compiles: any of them makes a run's analysis incomplete (JSON ``coverage.complete``)
NOT_CHECKED = frozenset({"GBL000", "GBL001", "GBL002", "GBL003"})
#: the notes flake8 and the editor add where ``gblint check`` says it in its summary line: a
#: file no compiled region reaches (``GBL005``), a call of a region gblint did not follow
#: (``GBL006``); :func:`gblint.project.reporting.coverage_notes`
COVERAGE_NOTES = frozenset({"GBL005", "GBL006"})
#: gblint's own codes that say a file was not (fully) checked: reported whatever the selection
ALWAYS_REPORTED = NOT_CHECKED | COVERAGE_NOTES

_FOLLOWED = "docs/semantics.md §3.4"  # breaks found at a call by following it
_EXAMPLES = "tests/cases/examples/"
_MEASURED = "tests/fixtures/measured/"

CODES: Dict[str, Code] = {c.code: c for c in (
    Code("GBL000", "internal-error", "info", "gblint failed inside a rule on this file; the other rules still ran.",
         why="Nothing about the code is predicted where the rule failed: a break there may go unreported.",
         hint="Report the failure with the file that caused it; the rest of the file was checked.",
         source="gblint itself", torch_versions="",
         no_example="It reports a fault in gblint, not in the checked code: no program is meant to produce it."),
    Code("GBL001", "syntax-error", "info", "The file does not parse, or gblint's parser (libcst) cannot parse it although "
                                           "Python does; it was not checked.",
         why="Nothing in the file is analysed: a compiled region in it, or a break it reaches, goes unreported.",
         hint="Fix the syntax error (or, when Python accepts the file, report the parser's failure).",
         source="gblint itself (libcst and CPython's parser)", torch_versions="",
         example="def f(x):\n    return x +\n",
         use_instead="def f(x):\n    return x + 1\n"),
    Code("GBL002", "unreadable-file", "info", "The file could not be read or decoded, or is too large to analyse "
                                              "(`max-file-size`); it was not checked.",
         why="Nothing in the file is analysed: a compiled region in it, or a break it reaches, goes unreported.",
         hint="Save the file in the encoding its coding comment declares (UTF-8 by default), or raise "
              "`max-file-size` in [tool.gblint].",
         source="gblint itself (PEP 263 source encodings)", torch_versions="",
         example="# -*- coding: ascii -*-\nname = 'caf\u00e9'\n",
         use_instead="# -*- coding: utf-8 -*-\nname = 'caf\u00e9'\n"),
    Code("GBL003", "unresolved-compile", "info", "A compile call whose target gblint cannot resolve: nothing it "
                                                 "compiles is analysed, so no break there can be reported.",
         why="What the call compiles is not read, so its graph breaks and skipped frames are not predicted.",
         hint="Pass --follow-imports PACKAGE when the target lives in an installed package, or --entry "
              "module:Class to name what is compiled.",
         source="gblint itself (import resolution)", torch_versions="",
         brief="{subject}: what it compiles is not analysed, so no break in it can be reported",
         example="import torch\nfrom factory import build_model\n\nmodel = torch.compile(build_model())\n",
         use_instead=("import torch\nimport torch.nn as nn\n\n\nclass Net(nn.Module):\n"
                      "    def forward(self, x):\n        return x.relu()\n\n\nmodel = torch.compile(Net())\n")),
    Code("GBL004", "unused-noqa", "info", "A `# noqa` comment names a gblint code that reports nothing on its line.",
         why="A stale suppression hides the next diagnostic of that code on the line without anyone noticing.",
         hint="Remove the code from the comment (`gblint fix` does), or the whole comment when nothing is left.",
         source="gblint itself (flake8's `# noqa` syntax; ruff's RUF100)", torch_versions="",
         example="import torch\n\n\n@torch.compile\ndef f(x):\n    return x.sin()  # noqa: GBL102\n",
         use_instead="import torch\n\n\n@torch.compile\ndef f(x):\n    return x.sin()\n"),
    Code("GBL005", "no-compiled-region", "info",
         "A file that imports torch, but that no compiled region of the checked files reaches: nothing in it "
         "was analysed. Reported by flake8 and the editor on line 1; `gblint check` says it in its summary "
         "line when no region is found at all.",
         why="gblint predicts graph breaks only in code a compiled region (`torch.compile(...)`, "
             "`@torch.compile`, `model.compile()`) runs: a file without one, checked alone, gets no diagnostic "
             "whatever it holds, which is not the same as being free of graph breaks.",
         hint="Check the file together with the script that compiles its code, or name what is compiled: "
              "`--entry module:function` (`entry-points` in [tool.gblint], which flake8 and the editor read too).",
         source="gblint itself (finding compiled regions)", torch_versions="",
         brief="no compiled region found: nothing in this file was analysed (name one with --entry module:function)",
         example="import torch\nimport torch.nn as nn\n\n\nclass Net(nn.Module):\n    def forward(self, x):\n"
                 "        return x.relu()\n",
         use_instead=("import torch\nimport torch.nn as nn\n\n\nclass Net(nn.Module):\n"
                      "    def forward(self, x):\n        return x.relu()\n\n\nmodel = torch.compile(Net())\n")),
    Code("GBL006", "call-not-followed", "info",
         "A call a compiled region makes that gblint could not follow: what it runs is known only when the "
         "code runs (a value passed in from outside), or lives in a package gblint was not asked to read. "
         "Reported by flake8 and the editor at the call; `gblint check` lists these calls in its summary "
         "(JSON `coverage.unfollowed`).",
         why="A graph break in what the call runs cannot be reported, so the region is not fully checked even "
             "when nothing is reported in it.",
         hint="For a package, pass --follow-imports PACKAGE. For a value known only at run time, check what it "
              "may be on its own (`--entry module:function`), then keep this note quiet with `# noqa: GBL006`.",
         source="gblint itself (following calls, gblint/abstract/interp.py)", torch_versions="",
         brief="{subject}, so no break behind it can be reported",
         example="import torch\nimport torch.nn as nn\n\n\nclass Net(nn.Module):\n    def __init__(self, act):\n"
                 "        super().__init__()\n        self.act = act\n\n    def forward(self, x):\n"
                 "        return self.act(x)\n\n\ndef build(act):\n    return torch.compile(Net(act))\n",
         use_instead="import torch\nimport torch.nn as nn\n\n\nclass Net(nn.Module):\n    def __init__(self):\n"
                     "        super().__init__()\n        self.act = nn.GELU()\n\n    def forward(self, x):\n"
                     "        return self.act(x)\n\n\nmodel = torch.compile(Net())\n"),
    Code("GBL118", "rnn-module", "skip", "A call of an `nn.RNN`/`nn.GRU`/`nn.LSTM` module.", ("GB0014", "GB0148"),
         why="Dynamo does not trace recurrent modules, and cannot resume after the call either: the frame that "
             "calls the module is skipped and runs eagerly (0 graphs; measured on 2.13, with or without work "
             "before the call). A frame that reaches the call through another is split there instead (a nested "
             "graph break) and only the frame that calls the module is skipped. Before 2.15 the break is where "
             "the frame first reads the module (`self.lstm.num_layers` before `self.lstm(...)`): Dynamo fails "
             "to wrap it there, and that is the line it reports.",
         hint="Compile the code around the RNN instead, or replace it with an explicit cell loop.",
         source=_FOLLOWED, family=BREAK_SOURCE,
         example=("import torch\nimport torch.nn as nn\n\n\nclass Net(nn.Module):\n    def __init__(self):\n"
                  "        super().__init__()\n        self.rnn = nn.LSTM(4, 4)\n\n    def forward(self, x):\n"
                  "        out, _ = self.rnn(x)\n        return out.relu()\n\n\nmodel = torch.compile(Net())\n"),
         use_instead=("import torch\nimport torch.nn as nn\n\n\n@torch.compile\ndef head(h):\n"
                      "    return h.relu()\n\n\nclass Net(nn.Module):\n    def __init__(self):\n"
                      "        super().__init__()\n        self.rnn = nn.LSTM(4, 4)\n\n    def forward(self, x):\n"
                      "        out, _ = self.rnn(x)  # eager\n        return head(out)  # compiled\n"),
         measured=_MEASURED + "r04_lstm_module.py", docs=(COMMON_BREAKS_DOC,)),
    Code("GBL119", "disabled-call", "break", "A call of a `torch.compiler.disable`d function.", ("GB0098", "GB0099"),
         why="The disabled function runs eagerly: the graph ends at the call and tracing resumes after it (+1 graph, "
             "a frame skip inside a loop). With recursive=False its callees are compiled as frames of their own.",
         hint="Keep disabled code out of hot compiled paths, or call it once outside the compiled region.",
         source=_FOLLOWED, family=BREAK_SOURCE,
         example=("import torch\n\n\n@torch.compiler.disable\ndef log_stats(x):\n    print(x.mean())\n\n\n"
                  "@torch.compile\ndef f(x):\n    y = x.sin()\n    log_stats(y)\n    return y.cos()\n"),
         use_instead=("import torch\n\n\n@torch.compiler.disable\ndef log_stats(x):\n    print(x.mean())\n\n\n"
                      "@torch.compile\ndef f(x):\n    return x.sin()\n\n\ndef step(x):\n    y = f(x)\n"
                      "    log_stats(y)  # outside the compiled region\n    return y.cos()\n"),
         measured=_EXAMPLES + "049_disable_recursive_and_non_recursive.py", docs=(DISABLE_DOC,)),
    Code("GBL120", "nonstrict-trace-output", "break",
         "A `nonstrict_trace`d function that turns tensors into Python values.", ("GB0251",),
         why="Fake-tensor tracing of the function fails where it needs a real value, so the call breaks the graph "
             "(+1 graph) instead of being traced as one opaque call.",
         hint="Keep `.item()`/data-dependent Python out of nonstrict_trace functions, or return tensors only.",
         source=_FOLLOWED, family=BREAK_SOURCE,
         example=("import torch\n\n\n@torch._dynamo.nonstrict_trace\ndef scale_of(x):\n"
                  "    return x.abs().max().item()\n\n\n@torch.compile\ndef f(x):\n    return x / scale_of(x)\n"),
         use_instead=("import torch\n\n\n@torch._dynamo.nonstrict_trace\ndef scale_of(x):\n"
                      "    return x.abs().max()  # a tensor, not a Python number\n\n\n@torch.compile\ndef f(x):\n"
                      "    return x / scale_of(x)\n"),
         measured=_EXAMPLES + "050_nonstrict_trace_helpers.py", docs=(NONSTRICT_DOC,)),
    Code("GBL142", "mark-dirty-not-returned", "break",
         "`Function.apply(...)` whose `forward` marks an input dirty and does not return it as itself.", ("GB2464",),
         why="With an input that requires grad (grad enabled) Dynamo traces `forward` as a higher-order op and checks "
             "that each tensor given to `ctx.mark_dirty` is one `forward` returns; `return x.mul_(s)` is a new value "
             "to it. The `apply` call breaks the graph (+1 graph), runs eagerly, and `forward` is then compiled as "
             "its own frame and skipped at `mark_dirty` (GBL141).",
         hint="Return the dirty input itself: `x.mul_(s); return x`.",
         source=_FOLLOWED + "; torch/_dynamo/variables/higher_order_ops.py: AutogradFunctionApplyVariable",
         family=BREAK_SOURCE,
         example=("import torch\nimport torch.nn as nn\n\n\nclass Scale(torch.autograd.Function):\n"
                  "    @staticmethod\n    def forward(ctx, x, s):\n        ctx.mark_dirty(x)\n"
                  "        return x.mul_(s)\n\n    @staticmethod\n    def backward(ctx, g):\n        return g, None\n\n\n"
                  "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                  "        self.fc = nn.Linear(4, 4)\n\n    def forward(self, x):\n"
                  "        return Scale.apply(self.fc(x), 2.0)\n\n\nmodel = torch.compile(Net())\n"),
         use_instead=("import torch\nimport torch.nn as nn\n\n\nclass Scale(torch.autograd.Function):\n"
                      "    @staticmethod\n    def forward(ctx, x, s):\n        ctx.mark_dirty(x)\n"
                      "        x.mul_(s)\n        return x  # the dirty input itself\n\n    @staticmethod\n"
                      "    def backward(ctx, g):\n        return g, None\n\n\n"
                      "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                      "        self.fc = nn.Linear(4, 4)\n\n    def forward(self, x):\n"
                      "        return Scale.apply(self.fc(x), 2.0)\n\n\nmodel = torch.compile(Net())\n"),
         measured="tests/cases/kinds/k25_mark_dirty_result_of_inplace.py"),
    Code("GBL201", "break-in-loop", "skip", "A graph break inside a for/while body skips the whole frame (GB7000).",
         ("GB7000",),
         why="Dynamo cannot resume inside a loop: it throws away the graph it traced and runs the whole frame eagerly, "
             "the work before and after the loop included (0 graphs for the frame; its callees are compiled on "
             "their own).",
         hint="Move the break out of the loop, unroll a constant-range loop, or move the loop into its own function "
              "so that only that frame is skipped.",
         brief="{subject}{via} in a loop: frame `{frame}` is skipped (runs eagerly, GB7000)",
         example=("import torch\n\n\n@torch.compile\ndef f(x):\n    x = x * 2\n    for i in range(3):\n"
                  "        x = x + i\n        print('step', i)\n    return x\n"),
         use_instead=("import torch\n\n\n@torch.compile\ndef f(x):\n    x = x * 2\n    for i in range(3):\n"
                      "        x = x + i\n    return x\n"),
         measured=_EXAMPLES + "006_break_inside_range_loop.py", docs=(SKIPPED_DOC,)),
    Code("GBL202", "break-in-try", "skip",
         "A graph break inside try/except/finally skips the frame when no checkpoint precedes it.",
         why="Dynamo cannot resume inside a `try` block: with no graph of at least 2 ops before the break to keep, "
             "the whole frame runs eagerly (0 graphs).",
         hint="Move the breaking statement out of the `try` block, or move the block into its own function so that "
              "only that frame is skipped.",
         brief="{subject}{via} in a `try` block: frame `{frame}` is skipped (runs eagerly)",
         example=("import torch\n\n\n@torch.compile\ndef f(x):\n    try:\n        print('scaling')\n"
                  "        y = x * 2\n    except RuntimeError:\n        y = x\n    return y\n"),
         use_instead=("import torch\n\n\n@torch.compile\ndef f(x):\n    try:\n        y = x * 2\n"
                      "    except RuntimeError:\n        y = x\n    return y\n"),
         measured=_EXAMPLES + "015_try_except_break.py", docs=(SKIPPED_DOC,)),
    Code("GBL203", "break-in-with", "skip",
         "A graph break inside a `with` whose manager cannot resume skips the frame (GB0066).", ("GB0066",),
         why="Dynamo resumes inside a `with` only for the managers it can rebuild (`no_grad`, `autocast`...); inside "
             "any other, with no graph of at least 2 ops before the break, the whole frame runs eagerly.",
         hint="Move the breaking statement out of the `with` block, or move the block into its own function so "
              "that only that frame is skipped.",
         brief="{subject}{via} in a `with` that cannot resume: frame `{frame}` is skipped (runs eagerly)",
         example=("import contextlib\nimport torch\n\n\n@torch.compile\ndef f(x):\n"
                  "    with contextlib.suppress(ValueError):\n        print('tolerant')\n        x = x + 1\n"
                  "    return x\n"),
         use_instead=("import contextlib\nimport torch\n\n\n@torch.compile\ndef f(x):\n"
                      "    with contextlib.suppress(ValueError):\n        x = x + 1\n    return x\n"),
         measured=_EXAMPLES + "028_suppress_break.py", docs=(SKIPPED_DOC,)),
    Code("GBL204", "unsupported-context-manager", "skip",
         "A `with` of a manager Dynamo cannot wrap skips the frame even without a break (GB0142).", ("GB0142", "GB0008"),
         why="Dynamo cannot trace entering the manager, so the frame that enters it runs eagerly (0 graphs), "
             "even with no graph break inside the block.",
         hint="Enter the manager outside the compiled function, or create it inside with a supported constructor "
              "(`torch.no_grad()`, `torch.autocast(...)`, `contextlib.nullcontext()`).",
         brief="{subject}: Dynamo cannot enter this manager, frame `{frame}` is skipped (runs eagerly)",
         example=("import torch\n\n\n@torch.compile\ndef f(x):\n    x = x * 2\n    with torch.device('cpu'):\n"
                  "        bias = torch.ones(x.shape[0])\n    return x + bias\n"),
         use_instead=("import torch\n\n\n@torch.compile\ndef f(x):\n    x = x * 2\n"
                      "    bias = torch.ones(x.shape[0], device='cpu')\n    return x + bias\n"),
         measured=_EXAMPLES + "030_device_context_manager.py", docs=(SKIPPED_DOC,)),
    Code("GBL205", "generator-frame", "skip",
         "A generator frame (compiled generator, consumed generator or @contextmanager) is skipped.", ("GB0003",),
         why="Dynamo does not compile generator frames, nor resume a frame in which an inlined generator breaks: "
             "the frame runs eagerly (0 graphs).",
         hint="Return a list or tensor instead of yielding, or compile the code that consumes the generator.",
         brief="{subject}: frame `{frame}` is skipped (runs eagerly, GB0003)",
         example=("import torch\n\n\n@torch.compile\ndef scaled(x):\n    for i in range(3):\n"
                  "        yield x * i\n"),
         use_instead=("import torch\n\n\n@torch.compile\ndef scaled(x):\n"
                      "    return [x * i for i in range(3)]\n"),
         measured=_EXAMPLES + "033_compiled_generator_function.py", docs=(SKIPPED_DOC,)),
    Code("GBL206", "break-in-comprehension", "skip",
         "A break inside a generator expression or comprehension skips a frame.", ("GB8335", "GB0092"),
         why="Dynamo cannot rebuild a generator expression (or, on Python 3.11, some comprehensions) after a break "
             "inside it: the frame that holds it runs eagerly (0 graphs).",
         hint="Replace the comprehension with tensor operations, or move the break out of it.",
         brief="{subject}{via} in a comprehension: frame `{frame}` is skipped (runs eagerly)",
         example=("import torch\n\n\n@torch.compile\ndef total(xs):\n    return sum(x.item() for x in xs)\n"),
         use_instead=("import torch\n\n\n@torch.compile\ndef total(xs):\n    return torch.stack(xs).sum()\n"),
         measured=_EXAMPLES + "035_generator_expression_break.py", docs=(SKIPPED_DOC,)),
    Code("GBL209", "method-of-built-object", "skip",
         "A break inside a method of an object the compiled frame built cannot resume (GB0092).", ("GB0092",),
         why="At the break Dynamo rebuilds the frame's stack to run the call in Python, and a method bound to an "
             "object with no source (built by the traced code) has no reconstruction: with no graph of at least 2 "
             "ops before the call the frame is skipped (0 graphs), else the rest of it runs eagerly; the method "
             "runs as a frame of its own.",
         hint="Build the object outside the compiled function and pass it in, call the method through its class "
              "(`Cls.method(obj, ...)`), or remove the break from the method.",
         source="torch/_dynamo/codegen.py: PyCodegen (Reconstruction failure); variables/functions.py: "
                "UserMethodVariable has no reconstruct",
         brief="{subject}, a method of an object built here, breaks: frame `{frame}` is skipped (runs eagerly, "
               "GB0092)",
         example=("import torch\n\n\nclass Stepper:\n    def __init__(self, y):\n        self.y = y\n\n"
                  "    def step(self, x):\n        print('stepping')\n        return x + self.y\n\n\n"
                  "@torch.compile\ndef f(x):\n    s = Stepper(x)\n    return s.step(x) * 2\n"),
         use_instead=("import torch\n\n\nclass Stepper:\n    def __init__(self, y):\n        self.y = y\n\n"
                      "    def step(self, x):\n        print('stepping')\n        return x + self.y\n\n\n"
                      "@torch.compile\ndef f(x):\n    s = Stepper(x)\n"
                      "    return Stepper.step(s, x) * 2  # the function has a source: the break resumes\n"),
         measured="tests/cases/kinds/kb57_method_of_an_object_built_in_the_frame.py", docs=(SKIPPED_DOC,)),
    Code("GBL208", "eager-tail", "break", "A break in try/with after a checkpoint: the graph up to the checkpoint is "
                                          "compiled, the rest of the frame runs eagerly.",
         why="Dynamo cannot resume inside the block, but keeps the graph traced up to the last checkpoint (at least "
             "2 ops): that part is compiled, everything after it in the frame runs eagerly.",
         hint="Move the breaking statement out of the block, or move the block into its own function so that only "
              "that frame runs eagerly.",
         brief="{subject}{via} in a `try`/`with`: the rest of `{frame}` runs eagerly (after the last checkpoint)",
         example=("import torch\n\n\n@torch.compile\ndef f(x):\n    x = x * 2\n    x = x + 1\n    try:\n"
                  "        print('halfway')\n        x = x - 1\n    except RuntimeError:\n        pass\n    return x\n"),
         use_instead=("import torch\n\n\n@torch.compile\ndef f(x):\n    x = x * 2\n    x = x + 1\n"
                      "    print('halfway')  # a resumable break: +1 graph, nothing eager\n    try:\n"
                      "        x = x - 1\n    except RuntimeError:\n        pass\n    return x\n"),
         measured=_EXAMPLES + "016_try_finally_break_after_two_ops.py", docs=(SKIPPED_DOC,)),
    Code("GBL301", "nested-graph-break", "break",
         "A break reached through calls splits every frame on the way and is traced once per frame.",
         why="Dynamo resumes only top-level frames: a break N calls deep splits each of the N+1 frames on the way, "
             "and each of them re-traces down to it (N+1 breaks, 2(N+1) graphs) unless "
             "`torch._dynamo.config.nested_graph_breaks = True`.",
         hint="Remove the break from the callee, decorate the callee with `@torch.compiler.disable` so it is one "
              "clean break, or set `torch._dynamo.config.nested_graph_breaks = True`.",
         brief="{subject}{via}: nested graph break, splits `{frame}` and each frame on the way",
         example=("import torch\n\n\ndef helper(x):\n    torch._dynamo.graph_break()\n    return x + 1\n\n\n"
                  "@torch.compile\ndef f(x):\n    return helper(x * 2)\n"),
         use_instead=("import torch\n\n\ndef helper(x):\n    return x + 1\n\n\n"
                      "@torch.compile\ndef f(x):\n    return helper(x * 2)\n"),
         measured=_EXAMPLES + "040_nested_depth2_default.py", docs=(NESTED_DOC,)),
    Code("GBL401", "fullgraph-break", "error", "Under fullgraph=True every graph break is a compile error.",
         why="`fullgraph=True` promises one graph: the first graph break raises `torch._dynamo.exc.Unsupported` "
             "when the region is first called, so the frame gets no compiled code at all.",
         hint="Remove the break, or drop fullgraph=True for this code.",
         brief="{subject}{via}: compile error under fullgraph=True, calling `{frame}` raises",
         example=("import torch\n\n\n@torch.compile(fullgraph=True)\ndef f(x):\n    print('debug')\n"
                  "    return x.sin()\n"),
         use_instead=("import torch\n\n\n@torch.compile(fullgraph=True)\ndef f(x):\n    return x.sin()\n"),
         measured=_EXAMPLES + "054_fullgraph_print.py", docs=(FULLGRAPH_DOC,)),
    Code("GBL402", "error-on-graph-break", "error",
         "Under torch._dynamo.error_on_graph_break(True) a graph break raises.",
         why="Inside `error_on_graph_break(True)` a graph break is not handled: compiling the frame raises "
             "`torch._dynamo.exc.Unsupported` into the caller.",
         hint="Remove the break, or leave it out of the `error_on_graph_break(True)` code.",
         brief="{subject}{via}: compile error (error_on_graph_break), calling `{frame}` raises",
         example=("import torch\n\n\n@torch.compile\ndef f(x):\n    with torch._dynamo.error_on_graph_break(True):\n"
                  "        print('strict')\n        return x.sin()\n"),
         use_instead=("import torch\n\n\n@torch.compile\ndef f(x):\n    with torch._dynamo.error_on_graph_break(True):\n"
                      "        return x.sin()\n"),
         measured=_EXAMPLES + "051_error_on_graph_break_decorator.py", docs=(EOGB_DOC,)),
    Code("GBL403", "call-raises", "error",
         "A call on the way to a compile error (fullgraph / error_on_graph_break): the error is raised through it.",
         why="The compile error of the break it leads to is raised when this call is traced; the region's first "
             "call fails (the related GBL401/GBL402 is the break itself).",
         hint="Fix the break in the callee (see the related diagnostic).",
         brief="{subject} leads to a compile error (fullgraph / error_on_graph_break) in `{frame}`",
         example=("import torch\n\n\ndef helper(x):\n    print('debug')\n    return x\n\n\n"
                  "@torch.compile(fullgraph=True)\ndef f(x):\n    return helper(x).sin()\n"),
         use_instead=("import torch\n\n\ndef helper(x):\n    return x\n\n\n"
                      "@torch.compile(fullgraph=True)\ndef f(x):\n    return helper(x).sin()\n"),
         measured="tests/fixtures/measured/c01_fullgraph_nested.py", docs=(FULLGRAPH_DOC,)),
    Code("GBL404", "dynamo-internal-error", "error",
         "A construct whose trace raises inside Dynamo (`with torch.cpu.amp.autocast()` on Python 3.13): the "
         "compiled call raises an internal error.",
         why="Dynamo fails with an internal error (KeyError: 'dtype') while tracing the manager, so the compiled call "
             "raises instead of running.",
         hint="Use `torch.autocast(\"cpu\")` instead.",
         brief="{subject}: Dynamo fails tracing it on Python 3.13+, calling `{frame}` raises",
         source="docs/semantics.md §8.13", python_versions=">=3.13",
         example=("import torch\n\n\n@torch.compile\ndef f(x):\n    with torch.cpu.amp.autocast():\n"
                  "        return x @ x\n"),
         use_instead=("import torch\n\n\n@torch.compile\ndef f(x):\n    with torch.autocast(\"cpu\"):\n"
                      "        return x @ x\n"),
         measured="tests/fixtures/measured/n08_autocast_variants.py"),
    Code("GBL409", "region-fails-to-compile", "skip",
         "The compiled region's frame gets no compiled graph: its first call raises a compile error.",
         why="A compile error under fullgraph=True or error_on_graph_break(True) makes the region's first call raise, "
             "so the frame runs no compiled code (the related GBL401/GBL402 is the break that causes it).",
         hint="Fix the reported compile error.",
         brief="{subject} gets no compiled graph: its first call raises a compile error",
         example=("import torch\n\n\n@torch.compile(fullgraph=True)\ndef f(x):\n    print('debug')\n"
                  "    return x.sin()\n"),
         use_instead=("import torch\n\n\n@torch.compile(fullgraph=True)\ndef f(x):\n    return x.sin()\n"),
         measured=_EXAMPLES + "054_fullgraph_print.py", docs=(FULLGRAPH_DOC,)),
)}
