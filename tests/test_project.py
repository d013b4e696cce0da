"""Whole-program analysis: cross-file calls, relative imports, re-exports, entry points,
followed packages, the summary cache and --explain."""
import json
import os
import textwrap

from gblint.project.cache import SummaryCache
from gblint.settings.config import Settings
from gblint.project.engine import check_paths

from .conftest import ROOT, run_cli

PROJ = os.path.join(ROOT, "tests", "fixtures", "proj")


def _site_and_call(diags):
    """The diagnostic at a nested break's site and its companion at the compiled frame's call on the way (each
    frame on the way that calls into another file has one at that call)."""
    site = next(d for d in diags if d.trace and d.trace[-1].path == d.path and d.line == d.trace[-1].line)
    calls = [d for d in diags if d is not site]
    assert calls and all(d.code == site.code and (d.path, d.line) in {(t.path, t.line) for t in site.trace}
                         for d in calls), diags
    return site, next(d for d in calls if d.path == site.trace[0].path)


def test_cross_file_nested_break_with_trace():
    report = check_paths([PROJ], Settings(python_version=(3, 11)))
    d, at_call = _site_and_call(report.diagnostics)
    assert (d.code, d.effect, d.frame, d.line) == ("GBL301", "break", "Net.forward", 5)
    # Dynamo reports the outer frame's break at its call into the other file: shown there too, linked
    assert (os.path.relpath(at_call.path, PROJ), at_call.line, at_call.code) == (os.path.join("mypkg", "model.py"), 14,
                                                                                   "GBL301")
    assert [r.line for r in d.related] == [14, 20] and [r.line for r in at_call.related] == [5]
    assert d.path.endswith(os.path.join("mypkg", "util", "helpers.py"))
    assert [(os.path.relpath(t.path, PROJ), t.line, t.function) for t in d.trace] == [
        (os.path.join("mypkg", "model.py"), 14, "Net.forward"),
        (os.path.join("mypkg", "layers.py"), 20, "Block.forward"),
        (os.path.join("mypkg", "util", "helpers.py"), 5, "log_stats"),
    ]
    assert "3 breaks, 6 graphs" in d.explanation


def test_nested_graph_breaks_setting_changes_the_count():
    report = check_paths([PROJ], Settings(python_version=(3, 11), dynamo_config={"nested_graph_breaks": True}))
    d, _ = _site_and_call(report.diagnostics)
    assert "1 break, 2 graphs" in d.explanation


def test_entry_point_without_compile_call(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "mod.py").write_text(textwrap.dedent("""\
        import torch

        class Model(torch.nn.Module):
            def forward(self, x):
                for i in range(2):
                    x = x * 2
                    print(i)
                return x

        def step(x):
            return x.sum().item()
        """))
    path = str(tmp_path / "pkg")
    assert run_cli("check", "--no-cache", path).returncode == 0  # nothing is compiled
    proc = run_cli("check", "--no-cache", "--format", "json", "--entry", "pkg.mod:Model", "--entry", "pkg.mod:step",
                   path)
    got = sorted((d["code"], d["line"], d["frame"]) for d in json.loads(proc.stdout)["diagnostics"])
    assert got == [("GBL102", 11, "step"), ("GBL201", 7, "Model.forward")]
    (tmp_path / "pyproject.toml").write_text('[tool.gblint]\nentry-points = ["pkg.mod:Model.forward"]\n')
    proc = run_cli("check", "--no-cache", "--format", "json", path)
    assert [d["code"] for d in json.loads(proc.stdout)["diagnostics"]] == ["GBL201"]


def test_follow_imports_reads_an_installed_package_without_importing_it(tmp_path, site_dir):
    site = site_dir
    (site / "fancylib").mkdir(parents=True)
    (site / "fancylib" / "__init__.py").write_text("raise RuntimeError('imported!')\nfrom .layers import Gate\n")
    (site / "fancylib" / "layers.py").write_text(textwrap.dedent("""\
        import torch

        class Gate(torch.nn.Module):
            def forward(self, x):
                if x.sum() > 0:
                    return x
                return -x
        """))
    user = tmp_path / "user.py"
    user.write_text(textwrap.dedent("""\
        import torch
        from fancylib.layers import Gate

        class Model(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.gate = Gate()

            def forward(self, x):
                return self.gate(x) * 2

        compiled = torch.compile(Model())
        """))
    plain = run_cli("check", "--no-cache", str(user))
    followed = run_cli("check", "--no-cache", "--format", "json", "--follow-imports", "fancylib", str(user))
    missing = run_cli("check", "--no-cache", "--follow-imports", "no_such_pkg_xyz", str(user))
    assert plain.returncode == 0
    d, at_call = json.loads(followed.stdout)["diagnostics"]
    assert (d["code"], d["line"], d["frame"]) == ("GBL301", 5, "Model.forward")
    assert (os.path.basename(at_call["path"]), at_call["line"], at_call["code"]) == ("user.py", 10, "GBL301")
    assert "layers.py:5" in at_call["message"] or "layers.py:5" in at_call["explanation"]
    assert d["path"].endswith(os.path.join("fancylib", "layers.py"))
    assert [t["function"] for t in d["trace"]] == ["Model.forward", "Gate.forward"]
    assert missing.returncode == 2 and "no_such_pkg_xyz" in missing.stderr


def test_cache_hits_on_second_run(tmp_path):
    cache = SummaryCache(str(tmp_path / "cache"))
    first = check_paths([PROJ], Settings(), cache)
    # 5 summaries (the empty util/__init__.py is never reached, so never summarised) and the
    # syntax checks of the 5 files that do not mention `compile`
    assert cache.misses == 10 and cache.hits == 0
    cache2 = SummaryCache(str(tmp_path / "cache"))
    second = check_paths([PROJ], Settings(), cache2)
    assert cache2.hits == 10 and cache2.misses == 0
    assert [d.to_json() for d in first.diagnostics] == [d.to_json() for d in second.diagnostics]


def test_explain_lists_frames_in_call_order():
    proc = run_cli("check", "--no-cache", "--explain", "Net.forward", PROJ)
    assert proc.returncode == 0
    frames = [line.split()[1] for line in proc.stdout.splitlines() if line.strip().startswith("frame ")]
    assert frames == ["Net.forward", "Block.forward", "log_stats"]
    assert "predicted: ~6 graphs, 3 graph breaks, 0 skipped frames" in proc.stdout
    assert run_cli("check", "--no-cache", "--explain", "nope", PROJ).returncode == 2
