"""The counts say what they count, and every format gives the same ones: the text summary line,
JSON ``summary`` (and ``coverage.unfollowed``) and the HTML page's summary and totals
(gblint/frontends/output.py: ``summary_counts``)."""
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples")


def _gblint(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "gblint", "check", "--no-cache", *args], capture_output=True,
                          text=True, cwd=cwd)


def _found_line(text):
    (line,) = [ln for ln in text.splitlines() if ln.startswith("Found ")]
    return line


def _text_unfollowed(text):
    m = re.search(r"(\d+) calls? not followed", text)
    return int(m.group(1)) if m else 0


def test_text_json_and_html_give_the_same_numbers_on_the_examples(tmp_path):
    pytest.importorskip("jinja2")
    text = _gblint("examples").stdout
    data = json.loads(_gblint("--format", "json", "examples").stdout)
    page = tmp_path / "report.html"
    proc = _gblint("--format", "html", "-o", str(page), "examples")
    assert proc.returncode == 1, proc.stderr
    html = page.read_text(encoding="utf-8")
    summary = data["summary"]
    assert summary["diagnostics"] == len(data["diagnostics"]) == sum(summary["by_effect"].values())
    assert summary["unfollowed"] == len(data["coverage"]["unfollowed"]) == _text_unfollowed(text) >= 1
    skipping = {(d["frame"]) for d in data["diagnostics"] if d["effect"] == "skip"}
    assert summary["skipped_frames"] == len(skipping)
    found = _found_line(text)
    assert f"Found {summary['diagnostics']} diagnostics" in found
    # the page says the text's summary line, and its totals count a frame and a call once, as they do
    assert re.search(r'<p class="found">([^<]*)</p>', html).group(1).startswith(found)
    totals = re.search(r"<tfoot><tr><th>Total</th><th></th><th></th>((?:<th class=\"n\">[^<]*</th>)+)", html)
    cells = re.findall(r'<th class="n">([^<]*)</th>', totals.group(1))
    assert cells[4] == str(summary["skipped_frames"]) and cells[5] == str(summary["unfollowed"]), cells
    assert cells[7] == str(summary["diagnostics"] - summary["by_effect"].get("info", 0)), cells


def test_several_diagnostics_of_one_frame_count_it_once(tmp_path):
    (tmp_path / "two.py").write_text(textwrap.dedent("""\
        import torch


        @torch.compile
        def f(x, flag):
            for i in range(3):
                if flag:
                    print(i)
                if x.sum() > 0:
                    x = x * 2
            return x
    """))
    text = _gblint("two.py", cwd=str(tmp_path)).stdout
    assert _found_line(text) == "Found 2 diagnostics (2 diagnostics skipping 1 frame) in 1 file.", text
    data = json.loads(_gblint("--format", "json", "two.py", cwd=str(tmp_path)).stdout)
    assert data["summary"]["skipped_frames"] == 1 and data["summary"]["by_effect"] == {"skip": 2}
