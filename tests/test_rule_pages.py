"""The rule pages (``gblint rule``, ``docs/rules/``) and the one-line messages.

Every code ``gblint rules`` lists has a full page generated from the registry; the committed docs
are what the generator writes; each page's example is reported under its code and its "use
instead" is not; each page's fix is what ``gblint fix`` does on it; each page names a program
under tests/ whose runtime behaviour was recorded and on which gblint reports the code; and every
message gblint prints is one line of at most 120 characters, the long text kept elsewhere.
"""
import json
import os
import re
import subprocess
import sys

import pytest

from gblint.frontends import rule_pages
from gblint.settings.catalog import catalog
from gblint.settings.config import Settings
from gblint.project.engine import SourceFile, check_paths, check_sources

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROWS = {r["code"]: r for r in catalog()}


def _check_file(tmp_path, text, name="example.py", code=None):
    """``text`` checked as the Python version the page of ``code`` is checked as (3.11 by default)."""
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    version = rule_pages.example_python(ROWS[code]) if code else (3, 11)
    report = check_paths([str(path)], Settings(python_version=version, root=str(tmp_path), cache=False))
    return report.diagnostics + report.notes  # the notes on what was not analysed: flake8's and the editor's


def test_committed_docs_are_what_the_registry_generates():
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_rule_docs.py"), "--check"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    pages = sorted(n[:-3] for n in os.listdir(os.path.join(ROOT, "docs", "rules")))
    assert pages == sorted(ROWS)


def test_the_generated_docs_fail_the_check_when_they_drift(tmp_path, monkeypatch):
    """The check is not vacuous: a page edited by hand, or a code the registry no longer has, is named."""
    gen = _load_generator()
    files = rule_pages.generated_docs()
    changed = dict(files)
    changed["docs/rules/GBL201.md"] = files["docs/rules/GBL201.md"].replace("loop", "lop")
    assert "docs/rules/GBL201.md" in gen.stale(changed)
    assert gen.stale(files) == []


def _load_generator():
    import importlib.util
    spec = importlib.util.spec_from_file_location("gen_rule_docs", os.path.join(ROOT, "scripts", "gen_rule_docs.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("code", sorted(ROWS))
def test_every_code_has_a_full_page(code):
    page = rule_pages.page(code)
    text = rule_pages.render(page)
    for heading in ("## What it does", "## Example", "## Use instead", "## Fix", "## Graph-break ids", "## Measured"):
        assert heading in text, (code, heading)
    assert page["summary"] and page["why"] and page["hint"], code
    if page["example"]:
        assert page["use_instead"] and page["reported"], code
        assert any(f" {code}" in line for line in page["reported"]), (code, page["reported"])
    else:
        assert page["no_example"] and code == "GBL000"  # a fault of gblint itself: nothing can be written to get it
    if page["example_python"] != "3.11":  # a code that holds only on later Pythons says what its example is checked as
        assert page["python_versions"] and f"checked as Python {page['example_python']}" in text, code
    for gb, _, url in page["gb_ids"]:
        assert url.endswith(f"/{gb.lower()}.html")
    assert all(u.startswith("https://docs.pytorch.org/") for u in page["docs"])
    assert "shared" not in text and "/work/" not in text  # only what users have: the repository, PyTorch's pages


@pytest.mark.parametrize("code", sorted(c for c in ROWS if ROWS[c]["examples_fire"]))
def test_examples_fire_and_use_instead_does_not(code, tmp_path):
    row = ROWS[code]
    fired = _check_file(tmp_path, row["examples_fire"][0], code=code)
    assert code in [d.code for d in fired], (code, [(d.code, d.message) for d in fired])
    clean = _check_file(tmp_path, row["use_instead"], "instead.py", code=code)
    assert code not in [d.code for d in clean], (code, [(d.code, d.message) for d in clean])


@pytest.mark.parametrize("code", sorted(ROWS))
def test_the_page_says_what_gblint_fix_does(code, tmp_path):
    """The fixes the examples get are the ones the page describes; a page that describes a fix has an
    example that gets it (advice: a fix without edits)."""
    documented = {how for how, _ in rule_pages.FIXES.get(code, ())}
    if code in rule_pages.GAIN_CODES:  # the page says a rewrite predicted to gain nothing is shown, not applied
        documented.add("display-only")
    got = set()
    for i, example in enumerate(ROWS[code]["examples_fire"]):
        for d in _check_file(tmp_path, example, f"ex{i}.py", code=code):
            if d.code == code and d.fix is not None:
                got.add(d.fix.applicability if d.fix.edits else "advice")
    assert got <= documented, (code, got, documented)
    if documented:
        assert got, (code, documented)


@pytest.mark.parametrize("code", sorted(c for c in ROWS if ROWS[c]["measured"]))
def test_the_measured_program_exists_shows_the_code_and_has_its_runtime_truth(code):
    measured = ROWS[code]["measured"]
    path = os.path.join(ROOT, measured)
    assert os.path.isfile(path), measured
    version = rule_pages.example_python(ROWS[code])
    codes = {d.code for d in check_paths([path], Settings(python_version=version, cache=False)).diagnostics}
    assert code in codes, (measured, codes)
    truth = rule_pages.page(code)["truth"]
    with open(os.path.join(ROOT, truth)) as fh:
        doc = json.load(fh)
    recorded = doc.get("cases") or doc.get("programs")
    assert os.path.basename(measured) in recorded, (measured, truth)


def test_only_gblint_s_own_codes_rest_on_no_measured_program():
    assert sorted(c for c, r in ROWS.items() if not r["measured"]) == ["GBL000", "GBL001", "GBL002", "GBL003",
                                                                        "GBL004", "GBL005", "GBL006"]


def _gblint(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "gblint", *args], capture_output=True, text=True, cwd=cwd)


def test_rule_command_prints_the_page():
    proc = _gblint("rule", "gbl201")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("# GBL201 break-in-loop") and "## Use instead" in proc.stdout
    assert proc.stdout == rule_pages.render(rule_pages.page("GBL201"))
    every = _gblint("rule", "--all")
    assert every.returncode == 0 and all(f"# {code} " in every.stdout for code in ROWS)
    data = json.loads(_gblint("rule", "GBL102", "--format", "json").stdout)
    assert data["code"] == "GBL102" and data["fixes"][0][0] == "advice"
    bad = _gblint("rule", "GBL2O1")
    assert bad.returncode == 2 and "not a gblint code" in bad.stderr and "GBL201" in bad.stderr
    assert _gblint("rule").returncode == 2


# ------------------------------------------------------------------ one-line messages

def _all_outputs():
    out = []
    for folder in ("tests/cases/examples", "tests/cases/found", "tests/cases/real", "tests/fixtures/measured",
                   "examples"):
        for version in ((3, 11), (3, 12)):
            out += check_paths([os.path.join(ROOT, folder)], Settings(python_version=version)).diagnostics
    return out


def test_every_message_is_one_line_of_at_most_120_characters():
    diags = _all_outputs()
    assert len(diags) > 200 and len({d.code for d in diags}) >= 30
    for d in diags:
        assert len(d.message) <= 120 and "\n" not in d.message, d.message
        assert len(d.headline) <= 120, d.headline
        if d.effect != "info":
            assert d.explanation and len(d.explanation) > len(d.message), d
    lengths = sorted(len(d.headline) for d in diags)
    print(f"{len(lengths)} messages: median {lengths[len(lengths) // 2]}, max {lengths[-1]}")


def test_a_long_message_built_anywhere_is_cut_and_kept_as_the_explanation():
    from gblint.core.diagnostics import Diagnostic
    long = "word " * 60
    d = Diagnostic(path="m.py", line=1, column=1, end_line=1, end_column=1, code="GBL001", name="syntax-error",
                   effect="info", message=long)
    assert len(d.message) <= 120 and "…" in d.message and d.explanation == long


def test_subjects_give_way_before_consequences():
    """A long subject is shortened, never the consequence: the line always says what it costs."""
    from gblint.core.messages import short_message
    m = short_message("GBL201", "skip", "`f(...)` " + "with a very long explanation " * 8, "Model.forward", 3)
    assert len(m) <= 120 and m.endswith("frame `Model.forward` is skipped (runs eagerly, GB7000)") and " via 3 calls" in m
    assert short_message("GBL102", "resume", "`.item()` turns a tensor into a Python scalar", "f") == \
        "`.item()` turns a tensor into a Python scalar: graph break in `f` (+1 graph)"


def test_the_site_that_splits_a_caller_and_skips_the_callee_is_two_diagnostics_naming_each_other():
    text = ("import torch\n\n\ndef guarded(x):\n    try:\n        torch._dynamo.graph_break()\n"
            "    except RuntimeError:\n        pass\n    return x\n\n\n@torch.compile\ndef f(x):\n"
            "    x = x * 2\n    return guarded(x) + 1\n")
    diags = check_sources([SourceFile("m.py", text)], Settings(python_version=(3, 11))).diagnostics
    by_code = {d.code: d for d in diags}
    assert set(by_code) == {"GBL202", "GBL301"}
    assert [(r.code, r.frame) for r in by_code["GBL202"].related] == [("GBL301", "f")]
    assert [(r.code, r.frame) for r in by_code["GBL301"].related] == [("GBL202", "guarded")]
    assert "(also GBL301" in by_code["GBL202"].message and "GBL202" in by_code["GBL301"].explanation
    assert re.search(r"also reported as GBL301 \(graph break in `f`\)", by_code["GBL202"].explanation)
