"""Rule pages: one page per code, generated from the code registry, as ``ruff rule`` prints them.

``gblint rule GBL201`` (``--all`` for every code) prints the page of a code in Markdown, and
``scripts/gen_rule_docs.py`` writes the same pages to ``docs/rules/GBLnnn.md`` with the index
``docs/rules.md`` (``tests/test_rule_pages.py`` fails when they drift from the registry). A page
reads everything from :func:`gblint.settings.catalog.catalog` (the rule classes of ``rules/`` and
:data:`gblint.core.codes.CODES`): what the code reports, why it costs, an example that is reported
(with what gblint says about it, checked as Python 3.11 with no configuration), what to write
instead, the fix ``gblint fix`` applies (:data:`FIXES`), the PyTorch graph-break ids with their
pages, the torch versions the code holds for, the program under ``tests/`` whose behaviour
under torch it rests on, and PyTorch's documentation. It cites nothing outside gblint's
repository but PyTorch's own pages.
"""
from __future__ import annotations

import os
import re
import tempfile
from typing import Dict, List, Optional, Tuple

from ..core import registry
from ..core.codes import COVERAGE_NOTES, GRAPH_BREAKS_DOC, SKIPPED_DOC
from ..core.diagnostics import EFFECT_WORDS, GB_URL, RULE_DOC

#: What ``gblint fix`` does for a code: ``(applicability, what it does)``, in the order it
#: tries them; ``advice`` is a fix without edits (shown, never applied). Codes absent here have
#: no fix. ``tests/test_rule_pages.py`` checks each page's example gets only these. A loop or
#: block rewrite predicted to gain nothing is shown as ``display-only`` (:data:`GAIN`).
#: said on the page of each code whose loop or block rewrites are applied only with a predicted gain
GAIN = ("A loop, block, logging or `if` rewrite is applied only when gblint predicts that it removes a skipped "
        "frame or a graph break without adding one (its title gives the graphs, breaks and skipped frames before "
        "and after); otherwise it is shown as `display-only` advice and never applied.")
GAIN_CODES = ("GBL105", "GBL107", "GBL109", "GBL110", "GBL201", "GBL202", "GBL203", "GBL208", "GBL209")
#: the logging fixes (rules/log_rewrites.py), shared by the codes that report a logging call
_LOG_FIXES = (("unsafe", "When Dynamo can reorder the call (`print`, `logging.info` and logging's other "
                         "functions, `warnings.warn`; arguments that are literals, f-strings and known tensors; no "
                         "keyword, which Dynamo would drop), adds `torch._dynamo.config.reorderable_logging_functions"
                         ".add(f)` after the file's imports: Dynamo runs the call after the graph (measured: the same "
                         "text, but later, with tensors as they are after the graph, and not at all if the graph "
                         "raises)."),
              ("unsafe", "Otherwise (a `Logger` method, a size or a keyword argument) guards the call with "
                         "`if not torch.compiler.is_compiling():`: it no longer runs when compiled."),)

FIXES: Dict[str, Tuple[Tuple[str, str], ...]] = {
    "GBL004": (("safe", "Removes the unused codes from the `# noqa` comment, or the `# noqa` when none is "
                        "left (the rest of the comment stays)."),),
    "GBL102": (("advice", "Suggests `torch._dynamo.config.capture_scalar_outputs = True` (Dynamo then traces "
                          "`.item()` as a symbolic scalar); no edit."),),
    "GBL105": (("unsafe", "Rewrites `if c: x = a` (with an optional `else: x = b`) as "
                          "`x = torch.where(c, a, x or b)` when `c`, `a` and `x` are known to be tensors, `c` is surely "
                          "a boolean tensor (`if not c:` gives `torch.logical_not(c)`) and both sides are pure; "
                          "unsafe: both sides are computed and must broadcast."),
               ("unsafe", "Rewrites a validation guard `if c: raise E(\"msg\")` (or `raise E`) as "
                          "`torch._assert_async(torch.logical_not(c), \"msg\")` (`if not c:` as "
                          "`torch._assert_async(c, \"msg\")`) when `c` is known to be a tensor: kept in the graph, "
                          "bad data still raises, but a `RuntimeError` (on CUDA, later, from the device); "
                          "`if p and c: raise ...` as `if p:` around the check (`c` the last operand of the `and`: "
                          "`p` is still tested first, `c` only when it holds)."),),
    "GBL107": _LOG_FIXES,
    "GBL109": _LOG_FIXES,
    "GBL110": _LOG_FIXES,
    "GBL106": (("advice", "Suggests `torch._dynamo.config.capture_dynamic_output_shape_ops = True`; no "
                          "edit."),),
    "GBL201": (("safe", "Unrolls `for i in range(K)` when K is at most `max-unroll` (default 8) and the body "
                        "has no `break`/`continue`/`global`: the frame is compiled again, with one graph break "
                        "per iteration instead of no graph at all (the fix's title gives the graphs before and "
                        "after)."),
               ("safe", "Otherwise moves the loop into a nested helper named after the function "
                        "(`_refine_loop` in `refine`), so that only the helper's frame is skipped and the code "
                        "before and after the loop stays compiled; it declines unless behaviour provably stays "
                        "the same (no `return`/`yield`/`await`/`global` in the loop, no name that may be unbound, "
                        "no closure reading what the loop assigns, no `locals()`/`super()`/frame inspection)."),
               ("unsafe", "When the loop's only break is a logging call Dynamo can reorder, lists its function in "
                          "`torch._dynamo.config.reorderable_logging_functions` instead (as for GBL107)."),),
    "GBL202": (("safe", "When the `try` holds exactly `s = t.item()` and its handlers catch only exceptions "
                        "`.item()` cannot raise (`KeyError`, `IndexError`, `ZeroDivisionError`, `StopIteration`: "
                        "no bare `except`, no `as`, names the module does not rebind), moves the statement out of "
                        "the `try`, dropping the handlers that could never run."),
               ("unsafe", "Splits the `try` around the breaking statement: the handlers stay on the code before "
                          "and after it, the statement runs outside the `try` (an exception it raises is no "
                          "longer handled). Declines with `finally`/`else`."),
               ("safe", "When the breaking statement is all the `try` protects, moves the whole `try` statement, "
                        "handlers included, into a nested helper (`_<function>_try`), so that only the helper's "
                        "frame is skipped; same conditions as the loop helper of GBL201."),),
    "GBL203": (("unsafe", "Splits the `with` block around the breaking statement: the manager is entered twice "
                          "and the statement runs outside it. Declines when the manager binds `as` a name."),),
    "GBL208": (("unsafe", "Splits the `try`/`with` block around the breaking statement, as for GBL202 and "
                          "GBL203."),
               ("safe", "For a method of an object built in the frame, calls it through the object's class, as "
                        "for GBL209."),),
    "GBL209": (("safe", "Rewrites `s.step(x)` as `type(s).step(s, x)` (a staticmethod: `type(s).plain(x)`) when `s` "
                        "is a local name, no method of its class assigns `self.step`, no class on the way defines "
                        "`__getattribute__` or `__new__` and no statement of the file binds `type`: the same function "
                        "runs with the same "
                        "arguments, and Dynamo rebuilds the call at the break (measured: the frame resumes, outputs "
                        "equal). Declines for any other receiver (`Shift(x).apply(x)`)."),),
    "GBL301": (("unsafe", "A branch on a tensor in the callee that GBL105 can rewrite (`torch.where`, a validation "
                          "guard as `torch._assert_async`) is rewritten there, predicted on the callee's frame: "
                          "the callee no longer breaks wherever it is compiled (its eager callers get the "
                          "rewritten check too)."),
               ("safe", "Decorates a callee whose breaks are all printing/logging with "
                        "`@torch.compiler.disable`: one clean break instead of one per frame."),
               ("advice", "Otherwise suggests `torch._dynamo.config.nested_graph_breaks = True` (one break and "
                          "2 graphs instead of 2 per frame); no edit."),),
}

#: where the runtime truth of a measured program is recorded, by the folder it lives in
TRUTH_FILES = {"tests/cases/examples/": "tests/cases/examples/truth.json",
               "tests/cases/found/": "tests/cases/found/truth.json",
               "tests/cases/real/": "tests/cases/real/truth.json",
               "tests/fixtures/measured/": "tests/fixtures/measured/observed.json",
               "tests/cases/kinds/": "tests/cases/kinds/observed.json",
               "tests/cases/comprehensions/": "tests/cases/comprehensions/observed.json"}
EXAMPLE_PYTHON = (3, 11)


def example_python(row: dict) -> Tuple[int, int]:
    """The Python version a code's page example is checked as: 3.11, or the first 3.x release the
    code's ``python_versions`` specifier allows (``">=3.13"`` gives 3.13)."""
    spec = row.get("python_versions", "")
    if not spec:
        return EXAMPLE_PYTHON
    from packaging.specifiers import SpecifierSet
    allowed = SpecifierSet(spec)
    return next(((3, m) for m in range(EXAMPLE_PYTHON[1], 20) if allowed.contains(f"3.{m}")), EXAMPLE_PYTHON)


def rows() -> Dict[str, dict]:
    """The catalogue's rows by code (:func:`gblint.settings.catalog.catalog`)."""
    from ..settings.catalog import catalog
    return {r["code"]: r for r in catalog()}


def example_output(source: str, python_version: Tuple[int, int] = EXAMPLE_PYTHON, notes: bool = False) -> List[str]:
    """What ``gblint check`` prints for ``source`` saved as ``example.py`` (one line per
    diagnostic, no summary), checked as ``python_version`` (default 3.11) with the default
    configuration; with ``notes``, also the notes on what was not analysed that flake8 and the
    editor add (``GBL005``/``GBL006``, :attr:`gblint.project.engine.Report.notes`), in line order."""
    from ..settings.config import Settings
    from ..project.engine import SourceFile, check_sources
    from ..core.source import SourceError, decode_source
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "example.py")
        with open(path, "wb") as fh:
            fh.write(source.encode("utf-8"))
        settings = Settings(python_version=python_version, root=tmp, cache=False)
        try:
            sources = [SourceFile(path, decode_source(source.encode("utf-8"), path))]
            report = check_sources(sources, settings)
        except SourceError as exc:  # the example is a file gblint cannot read
            from ..project.engine import Report
            report = Report([exc.diagnostic], 1, [])
        out = []
        for d in sorted(report.diagnostics + (report.notes if notes else []), key=lambda d: d.sort_key()):
            mark = " [*]" if d.fixable == "safe" else ""
            out.append(f"example.py:{d.line}:{d.column}: {d.code}{mark} {d.headline}")
        return out


def page(code: str, row: Optional[dict] = None) -> dict:
    """The page of ``code`` as data: every field :func:`render` prints. Raises KeyError for a
    code gblint does not have."""
    row = row or rows()[code.upper()]
    example = row["examples_fire"][0] if row["examples_fire"] else ""
    example = re.sub(r"  # expect: GBL\d+", "", example)
    return {
        "code": row["code"], "name": row["name"], "effect": row["effect"], "summary": row["summary"],
        "why": row["why"], "hint": row["hint"], "example": example,
        "reported": example_output(example, example_python(row), notes=row["code"] in COVERAGE_NOTES) if example
        else [],
        "example_python": "%d.%d" % example_python(row), "use_instead": row["use_instead"],
        "no_example": row["no_example"], "fixes": list(FIXES.get(row["code"], ())),
        "gb_ids": [(i, registry.gb_type(i), GB_URL.format(i.lower())) for i in row["gb_ids"]],
        "torch_versions": row["torch_versions"], "python_versions": row.get("python_versions", ""),
        "versions": row.get("versions", ""), "facts": list(row.get("facts", ())), "measured": row["measured"],
        "truth": next((t for folder, t in TRUTH_FILES.items() if row["measured"].startswith(folder)), ""),
        "source": row["source"], "docs": list(row["docs"]) or _default_docs(row["effect"], row["code"]),
        "url": RULE_DOC.format(row["code"]),
    }


def _default_docs(effect: str, code: str) -> List[str]:
    if code.startswith("GBL0"):
        return []
    return [SKIPPED_DOC] if effect == "skip" else [GRAPH_BREAKS_DOC]


def _code_block(text: str) -> str:
    return f"```python\n{text.rstrip()}\n```\n"


def render(p: dict, links: bool = False) -> str:
    """A page as Markdown: the terminal's ``gblint rule`` and ``docs/rules/CODE.md``.
    ``links``: relative links to the repository's files, for the page in ``docs/rules/``."""
    def repo(path: str) -> str:
        return f"[`{path}`](../../{path})" if links else f"`{path}`"

    out = [f"# {p['code']} {p['name']}\n",
           f"Effect: **{EFFECT_WORDS.get(p['effect'], p['effect'])}** (`{p['effect']}`)."
           f"{' Holds for ' + p['versions'] + '.' if p['versions'] else ''}\n",
           "## What it does\n", f"{p['summary']}\n"]
    for f in p["facts"]:
        out.append(f"On {f['versions']}: {f['text']} (`docs/semantics.md` {f['section']}).\n")
    if p["why"]:
        out += ["## Why it costs\n", f"{p['why']}\n"]
    out.append("## Example\n")
    if p["example"]:
        out.append(_code_block(p["example"]))
        if p["reported"]:
            on = f" (checked as Python {p['example_python']})" if p["example_python"] != "3.11" else ""
            who = "flake8 and the editor report" if p["code"] in COVERAGE_NOTES else "gblint reports"
            out.append(f"{who}{on}:\n")
            out.append("```console\n" + "\n".join(p["reported"]) + "\n```\n")
    else:
        out.append(f"None: {p['no_example']}\n")
    out.append("## Use instead\n")
    if p["hint"]:
        out.append(f"{p['hint']}\n")
    if p["use_instead"]:
        out.append(_code_block(p["use_instead"]))
    out.append("## Fix\n")
    if p["fixes"]:
        labels = {"safe": "safe fix** (`gblint fix`)", "unsafe": "unsafe fix** (`gblint fix --unsafe-fixes`)",
                  "advice": "advice** (no edit)"}
        for how, what in p["fixes"]:
            out.append(f"- **{labels[how]}: {what}\n")
        if p.get("code") in GAIN_CODES:
            out.append(f"{GAIN}\n")
    else:
        out.append("No automatic fix: rewrite the code as shown above.\n")
    out.append("## Graph-break ids\n")
    if p["gb_ids"]:
        for gb, kind, url in p["gb_ids"]:
            out.append(f"- [{gb}]({url}){': ' + kind if kind else ''}\n")
    else:
        out.append("None: PyTorch's graph-break registry has no id for this.\n")
    out.append("## Measured\n")
    if p["measured"]:
        out.append(f"{repo(p['measured'])} shows it; what torch did with it is recorded in {repo(p['truth'])}.\n")
    else:
        out.append("Not a PyTorch behaviour: this code is about gblint's own reading of the files.\n")
    out += ["## Rests on\n", f"{_cite(p['source'], links)}\n"]
    if p["docs"]:
        out.append("## PyTorch documentation\n")
        out += [f"- <{url}>\n" for url in p["docs"]]
    out.append(f"\nThis page: `{p['url']}` in gblint's repository; `gblint rule {p['code']}` prints it.\n")
    return "\n".join(out)


def _cite(source: str, links: bool) -> str:
    """``source`` with gblint's own documents linked (``semantics.md §3`` -> ``docs/semantics.md``)."""
    if not links:
        return source
    return re.sub(r"(?:docs/)?semantics\.md((?: §[0-9.]+)?)", r"[semantics.md\1](../semantics.md)", source)


def render_index(all_rows: List[dict]) -> str:
    """``docs/rules.md``: one line per code, linking its page."""
    out = ["# gblint rules\n",
           "Generated by `scripts/gen_rule_docs.py` from the code registry; do not edit by hand. "
           "Each code has a page under [`rules/`](rules/), also printed by `gblint rule CODE`.\n",
           "| code | name | effect | GB ids | holds for | what it reports |", "|---|---|---|---|---|---|"]
    for r in all_rows:
        ids = ", ".join(r["gb_ids"]) or "-"
        summary = r["summary"].replace("|", "\\|")
        facts = "".join(f"<br>On {f['versions']}: {f['text']}".replace("|", "\\|") for f in r.get("facts", ()))
        out.append(f"| [{r['code']}](rules/{r['code']}.md) | {r['name']} | {r['effect']} | {ids} | "
                   f"{r.get('versions') or 'every torch, every Python'} | {summary}{facts} |")
    return "\n".join(out) + "\n"


def generated_docs() -> Dict[str, str]:
    """Every generated file of the reference, by path relative to the repository:
    ``docs/rules.md`` and ``docs/rules/CODE.md`` for each code."""
    by_code = rows()
    files = {"docs/rules.md": render_index(list(by_code.values()))}
    for code, row in by_code.items():
        files[f"docs/rules/{code}.md"] = render(page(code, row), links=True)
    return files
