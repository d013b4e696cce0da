"""Fix snapshots (``tests/fixes/*.in.py`` -> ``*.out.py``; no ``.out.py`` means the fix must
decline and leave the file as it is), fix safety, and the ``fix`` command."""
import glob
import json
import os
import re
import shutil

import libcst as cst
import pytest

from gblint.settings.config import Settings
from gblint.project.engine import SourceFile, check_sources
from gblint.frontends.fix import apply_edits, fix_sources
from gblint.core.source import split_lines

from .conftest import ROOT, run_cli

FIXES = os.path.join(ROOT, "tests", "fixes")
INPUTS = sorted(glob.glob(os.path.join(FIXES, "*.in.py")))


def _expected(path):
    out = path[:-len(".in.py")] + ".out.py"
    with open(out if os.path.exists(out) else path) as fh:
        return fh.read()


@pytest.mark.parametrize("path", INPUTS, ids=[os.path.basename(p)[:-6] for p in INPUTS])
def test_snapshot(path):
    with open(path) as fh:
        text = fh.read()
    unsafe = "--unsafe-fixes" in text.splitlines()[0]
    result = fix_sources({path: text}, Settings(python_version=(3, 11)), unsafe=unsafe)
    assert result.texts[path] == _expected(path)
    cst.parse_module(result.texts[path])
    # a second run changes nothing
    again = fix_sources({path: result.texts[path]}, Settings(python_version=(3, 11)), unsafe=unsafe)
    assert again.texts[path] == result.texts[path]


def test_unsafe_fixes_need_the_flag():
    path = os.path.join(FIXES, "split_try.in.py")
    with open(path) as fh:
        text = fh.read()
    assert fix_sources({path: text}, Settings()).texts[path] == text


def test_fixed_diagnostic_is_gone():
    path = os.path.join(FIXES, "unroll_range.in.py")
    with open(path) as fh:
        text = fh.read()
    before = check_sources([SourceFile(path, text)], Settings()).diagnostics
    assert [(d.code, d.effect) for d in before] == [("GBL201", "skip")]
    result = fix_sources({path: text}, Settings())
    after = check_sources([SourceFile(path, result.texts[path])], Settings()).diagnostics
    assert [(d.code, d.effect) for d in after] == [("GBL101", "break")] * 3


def test_fix_in_json_output():
    path = os.path.join(FIXES, "unroll_range.in.py")
    (d,) = check_sources([SourceFile(path, None)], Settings()).diagnostics
    # the title says what the fix does to the graphs: the skipped frame is compiled, with a break per iteration
    assert d.fix.title == "Unroll the loop at line 8 (`refine`: ~0 -> ~4 graphs, 3 graph breaks, 1 -> 0 skipped frames)"
    assert d.fix.applicability == "safe"
    (edit,) = d.fix.edits
    assert (edit.line, edit.column, edit.end_line, edit.end_column) == (8, 1, 11, 1)
    with open(path) as fh:
        assert apply_edits(fh.read(), d.fix.edits) == _expected(path)


def test_config_advice_has_no_edits():
    text = "import torch\n\n@torch.compile\ndef f(x):\n    return x - x.mean().item()\n"
    (d,) = check_sources([SourceFile("m.py", text)], Settings()).diagnostics
    assert d.fix.edits == () and "capture_scalar_outputs" in d.fix.title


def test_fix_command_writes_atomically_and_keeps_mode(tmp_path):
    src = os.path.join(FIXES, "unroll_range.in.py")
    dst = tmp_path / "m.py"
    shutil.copy(src, dst)
    os.chmod(dst, 0o640)
    proc = run_cli("fix", "--no-cache", str(dst))
    assert proc.returncode == 1  # the unrolled breaks remain (resumable) diagnostics
    assert dst.read_text() == _expected(src)
    assert os.stat(dst).st_mode & 0o777 == 0o640
    assert "Applied 1 fix in 1 file." in proc.stderr


def test_diff_writes_nothing(tmp_path):
    dst = tmp_path / "m.py"
    shutil.copy(os.path.join(FIXES, "unroll_range.in.py"), dst)
    before = dst.read_text()
    proc = run_cli("check", "--fix", "--diff", "--no-cache", str(dst))
    assert dst.read_text() == before
    assert proc.stdout.startswith(f"--- {dst}\n+++ {dst}\n")
    assert "+    step = 2\n" in proc.stdout


def test_fix_exit_zero_when_nothing_remains(tmp_path):
    dst = tmp_path / "m.py"
    dst.write_text("import torch\n\n@torch.compile\ndef f(x):\n    return x.sin()\n")
    assert run_cli("fix", "--no-cache", str(dst)).returncode == 0


def test_crlf_is_kept(tmp_path):
    dst = tmp_path / "m.py"
    with open(os.path.join(FIXES, "unroll_range.in.py")) as fh:
        dst.write_bytes(fh.read().replace("\n", "\r\n").encode())
    run_cli("fix", "--no-cache", str(dst))
    data = dst.read_bytes()
    assert b"step = 2\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")


# ------------------------------------------------------------------ issue 20: never lose an edit or change behaviour

import errno  # noqa: E402
import textwrap  # noqa: E402

from gblint.frontends import cli, fix as fix_module  # noqa: E402
from gblint.fixing import fixes as fixes_module
from gblint.core import fs
from gblint.rules import rewrites  # noqa: E402


def _fix_in_process(capsys, *args):
    """``gblint fix`` in this process (so that tests can monkeypatch it): (exit status, stdout, stderr)."""
    rc = cli.main(["fix", "--no-cache", *args])
    out, err = capsys.readouterr()
    return rc, out, err


def _fixable(path, loops=1):
    """A compiled function whose loops the helper rewrite fixes, one per round."""
    body = "".join("    for v in xs:\n        x = x + v\n        torch._dynamo.graph_break()\n" for _ in range(loops))
    path.write_text(f"import torch\n\n\n@torch.compile\ndef f(x, xs):\n    x = x * 2\n{body}    return x\n")
    return path


@pytest.mark.parametrize("change", ["edit", "delete"])
def test_fix_skips_a_file_changed_while_it_ran(tmp_path, monkeypatch, capsys, change):
    path = _fixable(tmp_path / "m.py")
    real = fix_module.fix_sources

    def edited_meanwhile(*args, **kwargs):
        result = real(*args, **kwargs)
        if change == "edit":
            path.write_text("x = 'saved by the user while gblint ran'\n")
        else:
            path.unlink()
        return result

    monkeypatch.setattr(fix_module, "fix_sources", edited_meanwhile)
    rc, out, err = _fix_in_process(capsys, str(path))
    if change == "edit":
        assert path.read_text() == "x = 'saved by the user while gblint ran'\n"
    else:
        assert not path.exists()  # a deleted file does not come back
    assert f"gblint: skipped {path}: changed on disk since it was read" in err
    assert "Applied 0 fixes in 0 files." in err
    assert out == "" and rc == 0  # the report is about what the file holds now


def test_failed_write_is_not_counted(tmp_path, monkeypatch, capsys):
    path = _fixable(tmp_path / "m.py")
    before = path.read_text()

    def disk_full(src, dst):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(fs.os, "replace", disk_full)
    monkeypatch.setattr(fs, "_exchange", disk_full)  # the last step, however the system moves the file in
    rc, out, err = _fix_in_process(capsys, str(path))
    assert path.read_text() == before and [p.name for p in tmp_path.iterdir()] == ["m.py"]
    assert "Applied 0 fixes in 0 files." in err and "No space left on device" in err
    assert rc == 2
    assert "GBL201" in out  # the report is about the unchanged file


def _breaks_cpython(module, loop, max_unroll):
    """A rewrite whose result libcst parses but CPython rejects (an assignment before `global`)."""
    return rewrites.replace(module, loop, cst.FlattenSentinel([cst.parse_statement("total = 1\n"),
                                                               cst.parse_statement("global total\n")]))


def test_fix_that_cpython_rejects_is_never_offered_or_applied(monkeypatch):
    path = os.path.join(FIXES, "unroll_range.in.py")
    with open(path) as fh:
        text = fh.read()
    monkeypatch.setattr(rewrites, "unroll", _breaks_cpython)
    monkeypatch.setattr(rewrites, "isolate_loop", lambda *a: None)
    (d,) = check_sources([SourceFile(path, text)], Settings()).diagnostics
    assert d.code == "GBL201" and d.fix is None  # build_fix compiles the rewritten statement
    # and fix_sources compiles every fixed text before accepting it
    monkeypatch.setattr(fix_module, "compile_error", lambda text, path: None if "global" not in text else "bad")
    result = fix_sources({path: text}, Settings())
    assert result.texts[path] == text and result.applied == []


def test_fix_refuses_a_fixed_text_cpython_rejects(monkeypatch):
    path = os.path.join(FIXES, "unroll_range.in.py")
    with open(path) as fh:
        text = fh.read()
    monkeypatch.setattr(rewrites, "unroll", _breaks_cpython)
    monkeypatch.setattr(rewrites, "isolate_loop", lambda *a: None)
    monkeypatch.setattr(fix_module, "compile_error", lambda text, path: None if path == "<fix>" else "rejected")
    monkeypatch.setattr(fixes_module, "compile_error", lambda text, path: None)  # offered: built unchecked
    result = fix_sources({path: text}, Settings())  # the fix is offered, then refused at application
    assert result.texts[path] == text and result.applied == []


def test_fix_reaches_the_fixpoint_and_a_second_run_changes_nothing(tmp_path, capsys):
    path = tmp_path / "many.py"
    funcs = []
    for i in range(38):
        loop = ("    for k in range(3):\n        x = x + k\n        torch._dynamo.graph_break()\n" if i % 2
                else "    for v in xs:\n        x = x + v\n        torch._dynamo.graph_break()\n")
        funcs.append(f"@torch.compile\ndef f{i}(x, xs):\n    x = x * 2\n{loop}    return x\n")
    funcs.append("@torch.compile\ndef g(x, xs):\n" + "    for v in xs:\n        x = x - v\n        torch._dynamo.graph_break()\n" * 2
                 + "    return x\n")  # moving g's first loop alone adds a skipped frame (g's second loop still skips g)
    path.write_text("import torch\n\n\n" + "\n\n".join(funcs))
    rc, out, err = _fix_in_process(capsys, str(path))
    assert "Applied 38 fixes in 1 file." in err and "error" not in err
    fixed = path.read_text()
    assert len(re.findall(r"def _\w+_loop(?:_2)?\(", fixed)) == 19 and "for k in range" not in fixed
    assert "def _g_loop" not in fixed
    # the report is a fresh check of the written file: same lines as `gblint check`
    check = cli.main(["check", "--no-cache", "--no-hints", str(path)])
    assert (rc, out) == (check, capsys.readouterr()[0])
    rc2, _, err2 = _fix_in_process(capsys, str(path))
    assert "Applied 0 fixes in 0 files." in err2 and path.read_text() == fixed and rc2 == rc


def test_round_limit_is_an_error_with_a_fresh_report(tmp_path, monkeypatch, capsys):
    path = _fixable(tmp_path / "m.py", loops=1)
    text = path.read_text()
    monkeypatch.setattr(fix_module, "MAX_ROUNDS", 0)
    rc, out, err = _fix_in_process(capsys, str(path))
    assert rc == 2
    assert "gblint: error: stopped after 0 rounds of fixes with more fixes to apply" in err
    assert "Applied 0 fixes in 0 files." in err and path.read_text() == text
    cli.main(["check", "--no-cache", "--no-hints", str(path)])
    assert out == capsys.readouterr()[0]
    monkeypatch.setattr(fix_module, "MAX_ROUNDS", 25)
    assert _fix_in_process(capsys, str(path))[0] == 1  # the fix is applied by a second run
    assert path.read_text() != text


def _loopy_project(tmp_path, monkeypatch):
    """A checked file whose compiled function loops with a graph break, calling a package `loopylib` (on the
    path) whose function loops with a `print`: ``(the package's file, the checked file)``."""
    site = tmp_path / "site"
    (site / "loopylib").mkdir(parents=True)
    lib = site / "loopylib" / "__init__.py"
    lib.write_text(textwrap.dedent("""\
        def accumulate(x, xs):
            y = x * 2
            for k in range(3):
                y = y + k
                print(k)
            return y
        """))
    user = tmp_path / "user.py"
    user.write_text(textwrap.dedent("""\
        import torch
        from loopylib import accumulate


        @torch.compile
        def step(x, xs):
            for k in range(2):
                x = x + k
                torch._dynamo.graph_break()
            return accumulate(x, xs)
        """))
    monkeypatch.syspath_prepend(str(site))
    return lib, user


def test_follow_imports_fixes_only_the_named_files(tmp_path, monkeypatch, capsys):
    lib, user = _loopy_project(tmp_path, monkeypatch)
    before = lib.read_text()
    rc, out, err = _fix_in_process(capsys, "--follow-imports", "loopylib", str(user))
    assert "internal error" not in err and rc in (0, 1)
    assert lib.read_text() == before  # a followed file is read, never written
    assert "for k in range" not in user.read_text() and "Applied 1 fix in 1 file." in err


def test_check_offers_no_fix_in_a_followed_package(tmp_path, monkeypatch, capsys):
    """`gblint fix` never writes a followed package's files, so `check` offers no fix there (no `[*]`, no JSON
    `fix`), while the checked file's own loop keeps its fix."""
    _lib, user = _loopy_project(tmp_path, monkeypatch)
    cli.main(["check", "--no-cache", "--conditional", "all", "--format", "json", "--exit-zero",
              "--follow-imports", "loopylib", str(user)])
    found = json.loads(capsys.readouterr()[0])["diagnostics"]
    own = [d for d in found if d["path"].endswith("user.py")]
    followed = [d for d in found if "loopylib" in d["path"]]
    assert followed and own
    assert not any(d.get("fix") for d in followed)
    assert any(d.get("fix") for d in own)


@pytest.mark.parametrize("first, rest", [("\r\n", "\n"), ("\n", "\r\n")])
def test_inserted_lines_take_the_ending_of_their_neighbours(tmp_path, first, rest, capsys):
    """libcst gives new lines the first line's ending; they must take their neighbours'."""
    path = tmp_path / "m.py"
    with open(os.path.join(FIXES, "isolate_loop.in.py")) as fh:
        lines = fh.read().splitlines()
    path.write_bytes((lines[0] + first + rest.join(lines[1:]) + rest).encode())
    _fix_in_process(capsys, str(path))
    fixed = split_lines(path.read_bytes().decode())
    assert "    def _sum_features_loop(out):" + rest in fixed
    assert fixed[0] == lines[0] + first
    assert all(line.endswith(rest) and not line[:-len(rest)].endswith("\r") for line in fixed[1:])


@pytest.mark.parametrize("name", ["unroll_declines_global", "isolate_declines_async_for",
                                  "isolate_declines_async_with"])
def test_rewrites_decline_what_cpython_would_reject(monkeypatch, name):
    """The rewrites refuse these shapes themselves, not only through the compile check."""
    monkeypatch.setattr(fix_module, "compile_error", lambda text, path: None)
    monkeypatch.setattr(fixes_module, "compile_error", lambda text, path: None)
    path = os.path.join(FIXES, name + ".in.py")
    with open(path) as fh:
        text = fh.read()
    assert fix_sources({path: text}, Settings()).texts[path] == text


def test_interrupt_while_writing_says_which_files_were_written(tmp_path, monkeypatch, capsys):
    paths = [_fixable(tmp_path / f"m{i}.py") for i in range(3)]
    before = {p: p.read_text() for p in paths}
    real = fs.write_atomic
    calls = []

    def interrupted_after_the_first(path, text, **kwargs):
        if calls:
            raise KeyboardInterrupt
        calls.append(path)
        return real(path, text, **kwargs)

    monkeypatch.setattr(fs, "write_atomic", interrupted_after_the_first)
    rc = cli.main(["fix", "--no-cache", *map(str, paths)])
    _, err = capsys.readouterr()
    assert rc == 130
    assert "gblint: interrupted: applied 1 fix in 1 file before stopping; 2 left unchanged" in err
    assert f"gblint: written {calls[0]}" in err
    changed = [p for p in paths if p.read_text() != before[p]]
    assert [str(p) for p in changed] == calls  # every other file is exactly as it was


def test_unroll_declines_when_range_is_not_the_builtin(tmp_path, capsys):
    path = tmp_path / "m.py"
    src = ("import torch\n\n\ndef range(n):\n    return [10, 20]\n\n\n@torch.compile\ndef f(x):\n"
           "    for i in range(2):\n        print(i)\n    return x\n")
    path.write_text(src)
    cli.main(["fix", "--no-cache", str(path)])
    assert "i = 0" not in path.read_text()


# Rewrites whose predicted effect is no gain (issue 40), each measured under torch (eager backend,
# tests/test_fix_runtime.py measures the public cases): moving a breaking call's `try` into a helper
# took careful from 3 graphs, 0 skipped frames to 3 graphs, 1 skipped frame (_careful_try); moving the
# first of two breaking loops into a helper leaves f skipped and skips the helper too (0 -> 0 graphs,
# 1 -> 2 skipped frames, both loops moved), and guarding its `print` leaves the second loop's
# `graph_break()`, which no rewrite removes (with a `print` there too, the two guards judged together
# remove the skip: tests/test_fix_together.py); a loop with no op outside it gave 0 graphs before and
# after, the skipped frame only moved into the helper.
NO_GAIN = {
    "helper_in_try.py": os.path.join(ROOT, "tests", "cases", "examples", "047_nested_break_in_caller_try.py"),
    "sequential_loops.py": os.path.join(FIXES, "isolate_declines_sequential_loops.in.py"),
    "loop_only.py": os.path.join(ROOT, "tests", "cases", "examples", "008_break_inside_while_counter.py"),
}


@pytest.mark.parametrize("args", [["fix"], ["fix", "--unsafe-fixes"], ["check", "--fix"]])
def test_fix_predicted_to_gain_nothing_is_never_applied(tmp_path, args):
    for name, src in NO_GAIN.items():
        shutil.copy(src, tmp_path / name)
    texts = {name: (tmp_path / name).read_text() for name in NO_GAIN}
    proc = run_cli(*args, "--no-cache", str(tmp_path))
    assert proc.returncode == 1, proc.stderr
    assert "Applied 0 fixes in 0 files." in proc.stderr
    assert {name: (tmp_path / name).read_text() for name in NO_GAIN} == texts
    # still shown: advice with its edits, display-only, and why it is not applied
    doc = json.loads(run_cli("check", "--no-cache", "--format", "json", str(tmp_path)).stdout)
    shown = {os.path.basename(d["path"]): d["fix"] for d in doc["diagnostics"] if d["fix"] and d["fix"]["edits"]}
    assert set(shown) == set(NO_GAIN)
    assert {f["applicability"] for f in shown.values()} == {"display-only"}
    assert "adds a skipped frame: not applied" in shown["helper_in_try.py"]["title"]
    assert "removes no break or skipped frame: not applied" in shown["loop_only.py"]["title"]


def test_fix_prints_the_prediction_beside_a_fresh_check(tmp_path):
    dst = tmp_path / "m.py"
    shutil.copy(os.path.join(FIXES, "unroll_range.in.py"), dst)
    proc = run_cli("fix", "--no-cache", str(dst))
    assert f"gblint: GBL201 in {dst} (`refine`): predicted: ~0 -> ~4 graphs, 0 -> 3 graph breaks, " \
           "1 -> 0 skipped frames; after the fix: ~4 graphs, 3 graph breaks, 0 skipped frames" in proc.stderr, proc.stderr


@pytest.mark.parametrize("code,binds", [
    ("type = 1", True), ("a, (b, *type) = z", True), ("def f():\n    global type\n", True),
    ("f = lambda type: 1", True), ("with a as type:\n    pass\n", True), ("import x as type", True),
    ("from m import *", True), ("[1 for type in x]", True), ("(type := 3)", True),
    ("match x:\n    case [type]:\n        pass\n", True), ("class type:\n    pass\n", True),
    ("x: int = type(1)", False), ("def f(cls: type):\n    pass\n", False), ("import a.type", False)])
def test_the_method_fix_sees_every_binding_of_type(code, binds):
    """The GBL209 rewrite calls the builtin `type`: any binding of the name, in any scope, makes it decline."""
    from gblint.fixing.fixes import _binds_anywhere
    assert _binds_anywhere(cst.parse_module(code + "\n"), "type") is binds
