"""``gblint check --format html``: the page of compiled regions (gblint/frontends/html_report.py, the call
tree of gblint/dynamo/calltree.py), checked as text and in a real browser.

The browser tests drive the system's Chromium with Selenium (``apt-get install chromium
chromium-driver`` on Debian). Without them they skip, except where ``GBLINT_REQUIRE_BROWSER=1``
(CI sets it): there a missing browser fails. ``GBLINT_UPDATE_SCREENSHOT=1`` writes the README's
screenshot, docs/html-report.png.
"""
import html.parser
import json
import logging
import os
import re
import shutil
import sys
import textwrap
import time

import pytest

from .conftest import CASES, ROOT, run_cli
from gblint.dynamo.calltree import call_tree, graph_boundaries
from gblint.settings.config import Settings
from gblint.project.engine import SourceFile, iter_python_files, run
from gblint.frontends.output import summary_counts

log = logging.getLogger(__name__)
EXAMPLES = os.path.join(ROOT, "examples")
SCREENSHOT = os.path.join(ROOT, "docs", "html-report.png")
ECOSYSTEM_MODEL = ("transformers", "sew")  # nested .item() breaks, a skipped encoder, calls not followed


def engine(paths, **settings):
    """``(report, walks)`` of a run over ``paths`` as ``gblint check`` makes it."""
    s = Settings(**settings)
    files = iter_python_files(paths, s)
    report, _project, _regions, walks = run([SourceFile(p, None) for p in files], s)
    return report, walks


def render(tmp_path, *args, name="report.html"):
    """Run ``gblint check --format html -o FILE ARGS``; returns the page's text."""
    out = tmp_path / name
    proc = run_cli("check", "--no-cache", "--format", "html", "-o", str(out), *args)
    assert proc.returncode in (0, 1), proc.stderr
    assert proc.stdout == "", proc.stdout
    return out.read_text(encoding="utf-8")


class Page(html.parser.HTMLParser):
    """The elements of a page: ``ids`` (id -> (tag, attributes)), ``classes`` (class -> ids or
    tags in order), every tag's attributes, and the text."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.ids, self.tags, self.text = {}, [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if "id" in a:
            assert a["id"] not in self.ids, f"duplicate id {a['id']}"
            self.ids[a["id"]] = (tag, a)

    def handle_data(self, data):
        self.text.append(data)

    def having(self, cls):
        """The attribute dicts of the elements of class ``cls``, in order."""
        return [a for _, a in self.tags if cls in (a.get("class") or "").split()]


def node_ids(page):
    return [a["id"] for a in page.having("node")]


def expected_ids(walks):
    """For each walk: its frames, and the diagnostics it reported, as the page must show them."""
    out = []
    for w in walks:
        tree = call_tree(w)
        out.append({"frames": {(fr.frame.path, fr.frame.name) for fr in w.frames},
                    "tree": tree, "diagnostics": {(d.path, d.line, d.code) for d in w.diagnostics}})
    return out


# ------------------------------------------------------------------ the call tree (no page)

def test_call_tree_of_the_gpt_example():
    """Outcomes come from the walk: the entry skipped by a break in its loop, callees split by
    nested breaks compiled in pieces, a callee without a break inlined; torch.nn modules are
    library calls, not nodes."""
    _report, walks = engine([os.path.join(EXAMPLES, "gpt.py")])
    walk = next(w for w in walks if w.region.entry.name == "GPT.forward")
    tree = call_tree(walk)
    got = [(n.depth, n.label, n.outcome) for n in tree.nodes]
    assert got == [(0, "GPT.forward", "skipped"), (1, "Block.forward", "pieces"),
                   (2, "CausalSelfAttention.forward", "compiled"), (2, "MLP.forward", "pieces")]
    assert "inlined" in tree.nodes[2].how and "Block.forward" in tree.nodes[2].how
    assert ("torch.nn.Linear" in {name for _, _, name in tree.nodes[3].library})
    assert [n.end for n in tree.nodes] == [3, 3, 2, 3]
    assert (tree.frames, tree.dynamo_frames, tree.graphs, tree.breaks, tree.skipped) == (4, 3, 4, 3, 1)
    mlp = next(fr for fr in walk.frames if fr.frame.name == "MLP.forward")
    kinds = [(b["kind"], b.get("line")) for b in graph_boundaries(mlp)]
    assert kinds == [("graph", None), ("break", 43), ("graph", None), ("break", 44), ("graph", None)]
    assert sum(b["counted"] for b in graph_boundaries(mlp) if b["kind"] == "graph") == mlp.graphs


def test_calls_not_followed_are_recorded_on_the_walk(tmp_path):
    """A call whose target gblint cannot resolve is a "not followed" node and is listed by the
    walk (``unresolved``); a call a false test guards is never walked, so it is not; a disabled
    callee runs eagerly; a frame called twice is expanded once."""
    (tmp_path / "m.py").write_text(textwrap.dedent("""
        import torch
        from mystery import helper

        @torch.compiler.disable
        def logged(x):
            return x

        def twice(x):
            return x + 1

        def step(x, debug=False):
            if debug:
                never_called(x)
            y = helper(x)
            x = twice(x)
            x = twice(x)
            return logged(x) + y

        step = torch.compile(step)
        step(torch.randn(2))
    """))
    _report, walks = engine([str(tmp_path / "m.py")])
    (walk,) = walks
    assert [(f.name, ev.call_text) for f, ev in walk.unresolved] == [("step", "helper")]
    tree = call_tree(walk)
    got = [(n.label, n.outcome, n.repeat_of) for n in tree.nodes]
    assert got == [("step", "pieces", None), ("helper(...)", "unresolved", None), ("twice", "compiled", None),
                   ("twice", "compiled", 2), ("logged", "skipped", None)]
    assert tree.unresolved == 1 and tree.followed == 3 and tree.coverage == 0.75


# ------------------------------------------------------------------ the page as text

def test_page_holds_every_region_frame_and_diagnostic(tmp_path):
    """On the example programs: one region section per walk, a tree node for every frame the
    walk compiled, a diagnostic block for every diagnostic of the report (with its code, line,
    certainty, hint and rule link), the summary table's totals; and nothing to fetch."""
    text = render(tmp_path, "--python-version", "3.11", CASES)
    page = Page(text)
    report, walks = engine([CASES], python_version=(3, 11))
    regions = page.having("region")
    assert len(regions) == len(walks) > 80
    for i, (w, want) in enumerate(zip(walks, expected_ids(walks))):
        rid = f"r{i + 1}"
        assert page.ids[rid][0] == "details"
        nodes = [a for a in page.having("node") if a["id"].startswith(rid + "-n")]
        assert len(nodes) == len(want["tree"].nodes)
        shown = {(n.frame.path, n.frame.name) for n in want["tree"].nodes if n.frame is not None}
        assert want["frames"] <= shown, w.region.entry.name
        for n, a in zip(want["tree"].nodes, nodes):
            assert f"o-{n.outcome}" in a["class"].split()
            assert int(a["data-end"]) == n.end and int(a["data-parent"]) == n.parent
    diags = page.having("diag")
    assert len(diags) == len(report.diagnostics)
    codes = re.findall(r'<span class="code">(GBL\d{3})</span>', text)
    assert sorted(codes) == sorted(d.code for d in report.diagnostics)
    for d in report.diagnostics:
        if d.effect != "info":
            assert f'href="{d.url}"' in text
    assert text.count('class="cert c-') == sum(1 for d in report.diagnostics if d.certainty)
    totals = re.search(r"<tfoot><tr><th>Total</th><th></th><th></th>((?:<th class=\"n\">[^<]*</th>)+)", text)
    cells = re.findall(r'<th class="n">([^<]*)</th>', totals.group(1))
    trees = [call_tree(w) for w in walks]
    assert cells[:5] == [str(sum(t.frames for t in trees)), str(sum(t.dynamo_frames for t in trees)),
                         str(sum(t.graphs for t in trees)), str(sum(t.breaks for t in trees)),
                         str(summary_counts(report)["skipped_frames"])]  # a frame counted once, as the text does
    # self-contained: no script, style sheet, image or font is fetched when the page is viewed
    for tag, a in page.tags:
        assert not (tag in ("script", "img", "iframe") and a.get("src")), (tag, a)
        assert tag != "link", a
    assert "@import" not in text and "url(" not in text


def test_source_text_and_names_are_escaped(tmp_path):
    """Source text (a fix's edits) and frame names (``<lambda>``, ``<listcomp>``) hold ``<``:
    the page escapes them; no markup from the checked code reaches the page."""
    (tmp_path / "m.py").write_text(textwrap.dedent("""
        import torch

        @torch.compile
        def f(x):
            for i in range(2):
                print("</script><b id='owned'>x</b>", i)  # an int argument: not reorderable, the loop is unrolled
                x = x + i
            g = lambda y: y * 2
            return g(x)
    """))
    text = render(tmp_path, str(tmp_path / "m.py"))
    assert "<b id='owned'>" not in text and "</script><b" not in text
    assert "&lt;b id=&#39;owned&#39;&gt;" in text  # the unroll fix's edit, escaped
    assert text.count("<script>") == 1
    assert "f.&lt;lambda" in text


def test_html_without_jinja2_is_a_clear_error(monkeypatch, capsys):
    """Without Jinja2 (gblint[html]) `--format html` is a usage error naming the extra."""
    import gblint.frontends.html_report as html_report
    from gblint.frontends.cli import main
    monkeypatch.setattr(html_report, "_ENV", None)
    monkeypatch.setitem(sys.modules, "jinja2", None)
    assert main(["check", "--format", "html", os.path.join(EXAMPLES, "gpt.py")]) == 2
    err = capsys.readouterr().err
    assert 'pip install -e ".[html]"' in err and "jinja2" in err


def test_confirm_shows_what_the_run_observed(tmp_path):
    """With --confirm each diagnostic carries its observed status and each frame the graphs the
    run compiled for it (resume functions included), beside the prediction."""
    pytest.importorskip("torch")
    case = os.path.join(CASES, "046_nested_break_in_caller_loop.py")
    out = tmp_path / "confirm.html"
    proc = run_cli("check", "--no-cache", "--confirm", "--backend", "eager", "--format", "html", "-o", str(out), case)
    assert proc.returncode == 1, proc.stderr
    text = out.read_text(encoding="utf-8")
    page = Page(text)
    assert "Runtime confirmation" in text
    statuses = re.findall(r'<span class="status s-(\w+)"', text)
    assert statuses and set(statuses) == {"confirmed"}, statuses
    observed = {a["data-name"]: (a["data-observed"], a["data-observed-graphs"]) for a in page.having("node")}
    # measured (tests/cases/examples/truth.json): the loop's frame is skipped (GB7000), `layer`
    # is compiled twice around the nested break (`layer` and its resume function)
    assert observed["unrolled"] == ("skipped", "0"), observed
    assert observed["layer"] == ("pieces", "2"), observed
    assert observed["apply_noise"][0] in ("inlined", "compiled", "pieces"), observed


# ------------------------------------------------------------------ in a browser

def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium driven by Selenium, from the system's packages. Skips when they are
    missing, unless GBLINT_REQUIRE_BROWSER=1 (CI): then it fails."""
    required = os.environ.get("GBLINT_REQUIRE_BROWSER") == "1"
    binary, driver_path = _chromium(), shutil.which("chromedriver")
    why = None
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError as exc:
        why = f"selenium is not installed ({exc}); pip install -e '.[test]'"
    if why is None and (binary is None or driver_path is None):
        why = "no Chromium and chromedriver on PATH (apt-get install -y chromium chromium-driver)"
    if why is not None:
        if required:
            pytest.fail(f"GBLINT_REQUIRE_BROWSER=1 but {why}")
        pytest.skip(why)
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000",
                "--hide-scrollbars", "--force-device-scale-factor=1"):
        options.add_argument(arg)
    # the system driver, given by path: Selenium Manager would try to download one
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.implicitly_wait(0)
    yield driver
    driver.quit()


def load(browser, path):
    """Open the page ``path``; returns the seconds from the request until its script ran."""
    from selenium.webdriver.support.ui import WebDriverWait
    started = time.perf_counter()
    browser.get("file://" + str(path))
    WebDriverWait(browser, 30).until(lambda d: d.execute_script("return document.documentElement.dataset.ready"))
    seconds = time.perf_counter() - started
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    return seconds


def click_everything(browser, walks, report):
    """Every region opens, every frame node shows its details and every diagnostic opens, each
    by a real click (Selenium refuses elements that are hidden or covered); the states are
    then read back in one script per region."""
    from selenium.webdriver.common.by import By
    regions = browser.find_elements(By.CSS_SELECTOR, "details.region")
    assert len(regions) == len(walks)
    state = ("var r = arguments[0]; return [r.open,"
             " [...r.querySelectorAll('li.node')].filter(n => n.querySelector('.info').offsetParent !== null"
             "  && n.getAttribute('aria-selected') === 'true').length,"
             " [...r.querySelectorAll('details.diag')].filter(d => d.open"
             "  && d.querySelector('.facts').offsetParent !== null).length];")
    clicked_nodes = clicked_diags = 0
    for region, walk in zip(regions, walks):
        summary = region.find_element(By.CSS_SELECTOR, ":scope > summary")
        was = region.get_attribute("open") is not None
        summary.click()
        assert (region.get_attribute("open") is not None) != was
        if was:
            summary.click()  # it was open and is closed now: open it again
        assert walk.region.entry.name in summary.text
        region.find_element(By.CSS_SELECTOR, "button[data-act=expand]").click()
        names = region.find_elements(By.CSS_SELECTOR, "li.node > .line > .fname")
        assert len(names) == len(call_tree(walk).nodes)
        for name in names:
            name.click()
        summaries = region.find_elements(By.CSS_SELECTOR, "details.diag > summary")
        for diag in summaries:
            diag.click()
        opened, shown, diags = browser.execute_script(state, region)
        assert opened and shown == len(names) and diags == len(summaries), walk.region.entry.name
        clicked_nodes += shown
        clicked_diags += diags
    others = browser.find_elements(By.CSS_SELECTOR, ".others details.diag > summary")
    for diag in others:
        diag.click()
    assert browser.execute_script("return document.querySelectorAll('.others details.diag[open]').length") == \
        len(others)
    assert clicked_diags + len(others) == len(report.diagnostics)
    return clicked_nodes, clicked_diags + len(others)


def test_browser_example_programs(browser, tmp_path):
    """The report of the 84 example programs in Chromium: every region, frame and diagnostic
    is there and answers a click; a trace link reveals its frame, folded or not."""
    from selenium.webdriver.common.by import By
    render(tmp_path, "--python-version", "3.11", CASES)
    report, walks = engine([CASES], python_version=(3, 11))
    seconds = load(browser, tmp_path / "report.html")
    nodes, diags = click_everything(browser, walks, report)
    log.warning("example programs: %d regions, %d frame nodes, %d diagnostics clicked; loaded in %.3f s",
                len(walks), nodes, diags, seconds)
    link = browser.execute_script(  # a trace link to a frame below its region's entry
        "return [...document.querySelectorAll('.trace a[data-node]')]"
        ".find(a => document.getElementById(a.dataset.node).dataset.parent !== '-1')")
    target = link.get_attribute("data-node")
    region = browser.find_element(By.ID, target).find_element(By.XPATH, "ancestor::details[1]")
    region.find_element(By.CSS_SELECTOR, "button[data-act=collapse]").click()
    link.click()
    node = browser.find_element(By.ID, target)
    assert node.is_displayed() and node.get_attribute("aria-selected") == "true"


def test_browser_bundled_examples_screenshot(browser, tmp_path):
    """The README's picture: examples/ (a GPT whose loop skips its frame, a fullgraph compile
    error, nested breaks), one region open with a frame's details and a diagnostic shown."""
    from selenium.webdriver.common.by import By
    render(tmp_path, EXAMPLES)
    report, walks = engine([EXAMPLES])
    load(browser, tmp_path / "report.html")
    click_everything(browser, walks, report)
    load(browser, tmp_path / "report.html")  # afresh, then open what the picture shows
    gpt = next(i for i, w in enumerate(walks) if w.region.entry.name == "GPT.forward") + 1
    for i, region in enumerate(browser.find_elements(By.CSS_SELECTOR, "details.region"), 1):
        if (region.get_attribute("open") is not None) != (i == gpt):
            region.find_element(By.CSS_SELECTOR, ":scope > summary").click()
    mlp = browser.find_element(By.XPATH, f"//details[@id='r{gpt}']//button[@class='fname'][.='MLP.forward']")
    mlp.click()
    browser.find_element(By.CSS_SELECTOR, f"#r{gpt} details.diag > summary").click()
    browser.set_window_size(1400, 1240)
    browser.execute_script("window.scrollTo(0, 0)")
    png = browser.get_screenshot_as_png()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 50_000
    target = SCREENSHOT if os.environ.get("GBLINT_UPDATE_SCREENSHOT") == "1" else str(tmp_path / "report.png")
    with open(target, "wb") as fh:
        fh.write(png)
    log.warning("screenshot written to %s", target)
    browser.set_window_size(1400, 1000)
    assert os.path.isfile(SCREENSHOT), "docs/html-report.png (the README's screenshot) is missing"


def ecosystem_driver(tmp_path):
    """``(path, follow)``: the harness's driver of :data:`ECOSYSTEM_MODEL` written under
    ``tmp_path``, and the packages the harness follows for it."""
    sys.path.insert(0, os.path.join(ROOT, "bench", "ecosystem"))
    try:
        from spec import PACKAGES, driver
    finally:
        sys.path.pop(0)
    package, name = ECOSYSTEM_MODEL
    with open(os.path.join(ROOT, "bench", "ecosystem", "truth", f"{package}.json"), encoding="utf-8") as fh:
        setup = json.load(fh)["models"][name]["setup"]
    path = tmp_path / f"{name}_driver.py"
    path.write_text(driver(setup))
    return path, PACKAGES[package]["follow"]


def test_page_counts_conditional_diagnostics_left_out(tmp_path):
    """By default (``--conditional checked``) the page, like the text summary, says how many
    conditional diagnostics in followed packages it leaves out; with ``--conditional all`` they
    are on the page and the line is gone."""
    path, follow = ecosystem_driver(tmp_path)
    follows = [a for f in follow for a in ("--follow-imports", f)]
    report, _walks = engine([str(path)], follow_imports=tuple(follow))
    everything, _ = engine([str(path)], follow_imports=tuple(follow), conditional="all")
    assert report.conditional_hidden > 0
    assert len(everything.diagnostics) == len(report.diagnostics) + report.conditional_hidden
    shown = " ".join(" ".join(Page(render(tmp_path, *follows, str(path), name="default.html")).text).split())
    assert f"{report.conditional_hidden} conditional diagnostics in followed packages not shown" in shown
    shown = " ".join(" ".join(Page(render(tmp_path, "--conditional", "all", *follows, str(path),
                                           name="all.html")).text).split())
    assert "in followed packages not shown" not in shown


def test_browser_ecosystem_model(browser, tmp_path):
    """A real model of the ecosystem harness (its truth's setup source, the harness's driver,
    --follow-imports transformers): the page has its region, every frame and diagnostic, and
    each answers a click."""
    package, name = ECOSYSTEM_MODEL
    path, follow = ecosystem_driver(tmp_path)
    # the model's breaks lie in transformers: conditional ones are shown only with --conditional all
    render(tmp_path, "--conditional", "all", *[a for f in follow for a in ("--follow-imports", f)], str(path))
    report, walks = engine([str(path)], follow_imports=tuple(follow), conditional="all")
    assert walks and len(call_tree(walks[0]).nodes) > 20
    seconds = load(browser, tmp_path / "report.html")
    nodes, diags = click_everything(browser, walks, report)
    log.warning("%s/%s: %d frame nodes, %d diagnostics clicked; loaded in %.3f s", package, name, nodes, diags,
                seconds)
    assert diags >= 3


def synthetic_program(stages=10, blocks=7, helpers=6):
    """A compiled entry calling ``stages`` functions, each ``blocks``, each ``helpers``: 1 + 10 +
    70 + 420 = 501 frames by default; some helpers break (nested breaks split their callers)."""
    out = ["import torch", ""]
    for i in range(stages):
        for j in range(blocks):
            for k in range(helpers):
                body = "    x = x * 2 + 1\n"
                if (i * blocks * helpers + j * helpers + k) % 97 == 13:
                    body += "    torch._dynamo.graph_break()\n"
                out.append(f"def h_{i}_{j}_{k}(x):\n{body}    return x.relu()\n")
            calls = "".join(f"    x = h_{i}_{j}_{k}(x)\n" for k in range(helpers))
            out.append(f"def b_{i}_{j}(x):\n{calls}    return x\n")
        calls = "".join(f"    x = b_{i}_{j}(x)\n" for j in range(blocks))
        out.append(f"def s_{i}(x):\n{calls}    return x\n")
    calls = "".join(f"    x = s_{i}(x)\n" for i in range(stages))
    out.append(f"@torch.compile\ndef entry(x):\n{calls}    return x\n")
    return "\n".join(out)


def test_browser_500_frames_render_fast(browser, tmp_path):
    """A region of 501 frames renders in under 2 s (the time is logged), opens with its clean
    subtrees folded, and folds and unfolds whole."""
    from selenium.webdriver.common.by import By
    path = tmp_path / "big.py"
    path.write_text(synthetic_program())
    render(tmp_path, str(path))
    _report, walks = engine([str(path)])
    assert call_tree(walks[0]).frames == 501
    times = []
    for _ in range(3):
        wall = load(browser, tmp_path / "report.html")
        nav = browser.execute_script("var n = performance.getEntriesByType('navigation')[0];"
                                     "return n.loadEventEnd - n.startTime;") / 1000
        times.append((wall, nav))
    log.warning("500-frame region: rendered in %s s (wall, navigation load event)",
                ", ".join(f"{w:.3f}/{n:.3f}" for w, n in times))
    wall, nav = min(times)
    assert wall < 2.0 and nav < 2.0, times
    rows = browser.find_elements(By.CSS_SELECTOR, "#r1 li.node")
    assert len(rows) == 501
    visible = browser.execute_script("return document.querySelectorAll('#r1 li.node:not([hidden])').length")
    assert 1 < visible < 501  # clean subtrees start folded
    started = time.perf_counter()
    browser.find_element(By.CSS_SELECTOR, "#r1 button[data-act=expand]").click()
    assert browser.execute_script("return document.querySelectorAll('#r1 li.node:not([hidden])').length") == 501
    browser.find_element(By.CSS_SELECTOR, "#r1 button[data-act=collapse]").click()
    assert browser.execute_script("return document.querySelectorAll('#r1 li.node:not([hidden])').length") == 1
    root = rows[0]
    root.find_element(By.CSS_SELECTOR, ".tog").click()  # unfold the entry: its 10 stages show
    assert browser.execute_script("return document.querySelectorAll('#r1 li.node:not([hidden])').length") == 11
    log.warning("500-frame region: expand all, collapse all, unfold one in %.3f s", time.perf_counter() - started)
