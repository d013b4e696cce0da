"""``gblint lsp`` end to end (pytest-lsp drives the server in a subprocess) and its
conversions as unit tests."""
import asyncio
import pathlib
import sys
import textwrap

import pytest

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types as lsp  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

from gblint.frontends import lsp as glsp  # noqa: E402
from gblint.core.diagnostics import Diagnostic, Edit, Fix, TraceFrame  # noqa: E402

from .conftest import ROOT  # noqa: E402

LOOP_BREAK = textwrap.dedent("""\
    # Explicit graph break inside the body of a `for step in range(...)` loop.
    import torch


    @torch.compile(backend="eager")
    def iterative_refine(x):
        x = x + 1
        x = x.sin()
        for step in range(3):
            x = x * 0.9 + step
            torch._dynamo.graph_break()
        return x.cos()
    """)
BREAK_LINE = 10  # 0-based line of `torch._dynamo.graph_break()`
BREAK_START, BREAK_END = 8, 35

CLEAN = "import torch\n\n\n@torch.compile\ndef f(x):\n    return x.sin()\n"

# A server whose engine attaches fixes (the engine's own fixes are written elsewhere): a safe
# one that deletes the break of GBL201, an unsafe one on everything else.
FIX_SERVER = textwrap.dedent("""\
    import dataclasses, sys
    import gblint.frontends.lsp as L
    from gblint.core.diagnostics import Edit, Fix
    real = L.check_sources
    def check_sources(sources, settings, **kwargs):
        report = real(sources, settings, **kwargs)
        out = []
        for d in report.diagnostics:
            if d.code == "GBL201":
                fix = Fix("Remove the graph break", "safe", (Edit(d.line, d.column, d.end_line, d.end_column, "pass"),))
            else:
                fix = Fix("Rewrite it", "unsafe", (Edit(d.line, d.column, d.line, d.column, "# rewritten\\n"),))
            out.append(dataclasses.replace(d, fix=fix))
        report.diagnostics = out
        return report
    L.check_sources = check_sources
    sys.exit(L.main())
    """)


async def _start(lsp_client: LanguageClient, capabilities=None, options=None):
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=capabilities or lsp.ClientCapabilities(), initialization_options=options))


SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "gblint", "lsp"])


# One server for most tests (starting one costs seconds); each test opens its own files and
# closes them again (fixture ``docs``) so that the next test's project does not include them.
@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient):
    await _start(lsp_client)
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def docs(client: LanguageClient):
    opened = []
    yield opened
    for uri in opened:
        client.text_document_did_close(
            lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))


@pytest_lsp.fixture(config=SERVER)
async def pull_client(lsp_client: LanguageClient):
    lsp_client.registrations = []

    @lsp_client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
    def _register(params: lsp.RegistrationParams):
        lsp_client.registrations.extend(params.registrations)

    caps = lsp.ClientCapabilities(
        text_document=lsp.TextDocumentClientCapabilities(diagnostic=lsp.DiagnosticClientCapabilities()),
        workspace=lsp.WorkspaceClientCapabilities(
            did_change_watched_files=lsp.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True),
            diagnostics=lsp.DiagnosticWorkspaceClientCapabilities(refresh_support=True)))
    await _start(lsp_client, capabilities=caps)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-c", FIX_SERVER]), scope="module")
async def fix_client(lsp_client: LanguageClient):
    await _start(lsp_client, options={"breakSeverity": "information"})
    yield
    await lsp_client.shutdown_session()


def _write(tmp_path: pathlib.Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return path.as_uri()


def _open(client: LanguageClient, uri: str, text: str, version: int = 1, language: str = "python",
          docs: list = None) -> None:
    if docs is not None:
        docs.append(uri)
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id=language, version=version, text=text)))


def _change(client: LanguageClient, uri: str, version: int, text: str, rng: lsp.Range = None) -> None:
    if rng is None:
        change = lsp.TextDocumentContentChangeWholeDocument(text=text)
    else:
        change = lsp.TextDocumentContentChangePartial(range=rng, text=text)
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version), content_changes=[change]))


async def _diagnostics(client: LanguageClient, uri: str, predicate, timeout: float = 20.0):
    """Wait until the diagnostics published for ``uri`` satisfy ``predicate``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        if uri in client.diagnostics and predicate(client.diagnostics[uri]):
            return client.diagnostics[uri]
        if loop.time() > deadline:
            raise AssertionError(f"timed out; last diagnostics for {uri}: {client.diagnostics.get(uri)}")
        await asyncio.sleep(0.02)


def _codes(diags):
    return sorted(d.code for d in diags)


def _apply(text: str, edits) -> str:
    """Apply LSP text edits (UTF-16 = code points here: ASCII test files) to ``text``."""
    lines = text.splitlines(True)

    def offset(pos):
        return sum(len(x) for x in lines[:pos.line]) + pos.character

    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:offset(e.range.start)] + e.new_text + text[offset(e.range.end):]
    return text


# ------------------------------------------------------------------ end to end

@pytest.mark.asyncio(loop_scope="module")
async def test_break_in_loop_diagnostic(client: LanguageClient, tmp_path, docs):
    uri = _write(tmp_path, "refine.py", LOOP_BREAK)
    _open(client, uri, LOOP_BREAK, docs=docs)
    diags = await _diagnostics(client, uri, lambda ds: len(ds) > 0)
    assert _codes(diags) == ["GBL201"]
    d = diags[0]
    assert d.range == lsp.Range(start=lsp.Position(line=BREAK_LINE, character=BREAK_START),
                                end=lsp.Position(line=BREAK_LINE, character=BREAK_END))
    assert d.source == "gblint"
    assert d.severity == lsp.DiagnosticSeverity.Warning  # effect "skip"
    # the code links gblint's page; the message is one line, the whole explanation is in the hover
    assert d.code_description.href == pathlib.Path(ROOT, "docs", "rules", "GBL201.md").as_uri()  # the checkout's page
    assert len(d.message) <= 120 and "in a loop: frame `iterative_refine` is skipped" in d.message
    hover = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=d.range.start))
    assert "Dynamo cannot resume inside a loop" in hover.contents.value
    assert "docs/rules/GBL201.md" in hover.contents.value and "gb0025.html" in hover.contents.value


@pytest.mark.asyncio(loop_scope="module")
async def test_code_actions_noqa_and_edit(client: LanguageClient, tmp_path, docs):
    uri = _write(tmp_path, "refine.py", LOOP_BREAK)
    _open(client, uri, LOOP_BREAK, docs=docs)
    diags = await _diagnostics(client, uri, lambda ds: len(ds) > 0)
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=diags[0].range,
        context=lsp.CodeActionContext(diagnostics=list(diags))))
    titles = [a.title for a in actions]
    assert "Add `# noqa: GBL201` on line 11" in titles
    noqa = next(a for a in actions if "noqa" in a.title)
    assert noqa.kind == lsp.CodeActionKind.QuickFix
    assert noqa.diagnostics[0].code == "GBL201"
    edits = noqa.edit.changes[uri]
    new_text = _apply(LOOP_BREAK, edits)
    assert "        torch._dynamo.graph_break()  # noqa: GBL201\n" in new_text

    # apply the edit as an editor would: an incremental didChange, then updated diagnostics
    _change(client, uri, 2, edits[0].new_text, edits[0].range)
    assert await _diagnostics(client, uri, lambda ds: len(ds) == 0) == ()

    # remove the noqa again (full change): the diagnostic comes back
    _change(client, uri, 3, LOOP_BREAK)
    diags = await _diagnostics(client, uri, lambda ds: len(ds) == 1)
    assert diags[0].range.start.line == BREAK_LINE


@pytest.mark.asyncio(loop_scope="module")
async def test_code_actions_only_where_a_fix_exists(client: LanguageClient, tmp_path, docs):
    """Advice (a config setting, no edit) is no code action and no `fixable`: only the noqa action."""
    text = "import torch\n\n\n@torch.compile\ndef f(x):\n    return x - x.mean().item()\n"
    uri = _write(tmp_path, "advice.py", text)
    _open(client, uri, text, docs=docs)
    diags = await _diagnostics(client, uri, lambda ds: len(ds) > 0)
    assert _codes(diags) == ["GBL102"] and diags[0].data["fixable"] is False
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=diags[0].range,
        context=lsp.CodeActionContext(diagnostics=list(diags))))
    assert [a.title for a in actions] == ["Add `# noqa: GBL102` on line 6"]


@pytest.mark.asyncio(loop_scope="module")
async def test_engine_fix_on_demand(client: LanguageClient, tmp_path, docs):
    """The engine's own fixes: computed when code actions are asked for, not on every change."""
    uri = _write(tmp_path, "unroll.py", LOOP_BREAK)
    _open(client, uri, LOOP_BREAK, docs=docs)
    diags = await _diagnostics(client, uri, lambda ds: len(ds) > 0)
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=diags[0].range,
        context=lsp.CodeActionContext(diagnostics=list(diags), only=[lsp.CodeActionKind.QuickFix])))
    fixes = [a for a in actions if "noqa" not in a.title]
    if not fixes:
        pytest.skip("the engine offers no fix for a break in a constant-range loop")
    fixed = _apply(LOOP_BREAK, fixes[0].edit.changes[uri])
    assert fixed != LOOP_BREAK
    _change(client, uri, 2, fixed)
    diags = await _diagnostics(client, uri, lambda ds: "GBL201" not in _codes(ds))
    assert all(d.code != "GBL001" for d in diags)


@pytest.mark.asyncio(loop_scope="module")
async def test_hover_explains(client: LanguageClient, tmp_path, docs):
    uri = _write(tmp_path, "refine.py", LOOP_BREAK)
    _open(client, uri, LOOP_BREAK, docs=docs)
    await _diagnostics(client, uri, lambda ds: len(ds) > 0)
    hover = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(line=BREAK_LINE, character=2)))
    assert hover is not None
    text = hover.contents.value
    assert "GBL201" in text and "break-in-loop" in text and "frame skipped" in text
    assert "iterative_refine" in text
    assert "gb0025.html" in text
    assert "Move the break out of the loop" in text
    nothing = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(line=1, character=0)))
    assert nothing is None


@pytest.mark.asyncio(loop_scope="module")
async def test_unresolved_compile_call_is_an_information_note(client: LanguageClient, tmp_path, docs):
    """A compile call whose target gblint cannot resolve is named in the editor too (GBL003 at the
    call, severity Information, saying what would resolve it), never an empty, "clean" file."""
    text = "import torch\nfrom somepkg import Model\n\nmodel = torch.compile(Model())\n"
    uri = _write(tmp_path, "driver.py", text)
    _open(client, uri, text, docs=docs)
    diags = await _diagnostics(client, uri, lambda ds: len(ds) > 0)
    assert _codes(diags) == ["GBL003"]
    assert diags[0].severity == lsp.DiagnosticSeverity.Information
    assert diags[0].range.start.line == 3
    assert "--follow-imports somepkg" in diags[0].message


@pytest.mark.asyncio(loop_scope="module")
async def test_what_was_not_analysed_is_an_information_note(client: LanguageClient, tmp_path, docs):
    """A model file no compiled region reaches (GBL005 on line 1) and a region's call whose target
    is known only at run time (GBL006 at the call) are never shown as a clean, fully checked file;
    a file without torch gets nothing, and opening the script that compiles the model clears GBL005."""
    model = ("import torch\nimport torch.nn as nn\n\n\nclass Net(nn.Module):\n    def forward(self, x):\n"
             "        return x.relu()\n")
    model_uri = _write(tmp_path, "model.py", model)
    _open(client, model_uri, model, docs=docs)
    diags = await _diagnostics(client, model_uri, lambda ds: len(ds) > 0)
    assert _codes(diags) == ["GBL005"]
    assert diags[0].severity == lsp.DiagnosticSeverity.Information and diags[0].range.start.line == 0
    assert "no compiled region found" in diags[0].message and "--entry" in diags[0].message

    build = ("import torch\nfrom model import Net\n\n\nclass Wrap(torch.nn.Module):\n    def __init__(self, act):\n"
             "        super().__init__()\n        self.net = Net()\n        self.act = act\n\n"
             "    def forward(self, x):\n        return self.act(self.net(x))\n\n\n"
             "def build(act):\n    return torch.compile(Wrap(act))\n")
    build_uri = _write(tmp_path, "build.py", build)
    _open(client, build_uri, build, docs=docs)
    diags = await _diagnostics(client, build_uri, lambda ds: len(ds) > 0)
    assert _codes(diags) == ["GBL006"]
    assert diags[0].severity == lsp.DiagnosticSeverity.Information
    assert (diags[0].range.start.line, diags[0].range.start.character) == (11, 15)
    assert "`self.act(...)` not followed" in diags[0].message and "known only at run time" in diags[0].message
    # model.py is now reached from build.py's region: checked, no note
    assert len(await _diagnostics(client, model_uri, lambda ds: len(ds) == 0)) == 0

    plain = "def add(a, b):\n    return a + b\n"
    plain_uri = _write(tmp_path, "plain.py", plain)
    _open(client, plain_uri, plain, docs=docs)
    assert len(await _diagnostics(client, plain_uri, lambda ds: True)) == 0


@pytest.mark.asyncio(loop_scope="module")
async def test_survives_syntax_error_and_malformed_documents(client: LanguageClient, tmp_path, docs):
    bad = _write(tmp_path, "bad.py", "def f(:\n    pass\n")
    _open(client, bad, "def f(:\n    pass\n", docs=docs)
    diags = await _diagnostics(client, bad, lambda ds: len(ds) > 0)
    assert _codes(diags) == ["GBL001"]
    assert diags[0].severity == lsp.DiagnosticSeverity.Information

    garbage = "\x00\x01\ufffd\udcff def (((\n\tclass\n  \x0c if ]]]: \u2028 \U0001f600\n"
    _open(client, (tmp_path / "garbage.py").as_uri(), garbage, docs=docs)
    deep = "x = " + "(" * 5000 + ")" * 5000 + "\n"  # kills libcst's native parser on a normal stack
    deep_uri = (tmp_path / "deep.py").as_uri()
    _open(client, deep_uri, deep, docs=docs)
    assert _codes(await _diagnostics(client, deep_uri, lambda ds: len(ds) > 0)) == ["GBL001"]
    # a change whose range lies past the end of the document, and one of an unknown document
    _change(client, bad, 2, "x", lsp.Range(start=lsp.Position(line=999, character=5),
                                           end=lsp.Position(line=1200, character=0)))
    _change(client, (tmp_path / "never_opened.py").as_uri(), 1, "x = 1\n")
    _open(client, (tmp_path / "notes.txt").as_uri(), "not python at all (((", language="plaintext", docs=docs)

    # the server is still alive and still right
    uri = _write(tmp_path, "refine.py", LOOP_BREAK)
    _open(client, uri, LOOP_BREAK, docs=docs)
    assert _codes(await _diagnostics(client, uri, lambda ds: len(ds) > 0)) == ["GBL201"]
    assert (tmp_path / "notes.txt").as_uri() not in client.diagnostics


@pytest.mark.asyncio(loop_scope="module")
async def test_close_clears_and_save_relints(client: LanguageClient, tmp_path, docs):
    uri = _write(tmp_path, "refine.py", LOOP_BREAK)
    _open(client, uri, LOOP_BREAK, docs=docs)
    await _diagnostics(client, uri, lambda ds: len(ds) == 1)
    client.text_document_did_save(lsp.DidSaveTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))
    docs.remove(uri)
    assert await _diagnostics(client, uri, lambda ds: len(ds) == 0) == ()


@pytest.mark.asyncio(loop_scope="module")
async def test_cross_file_refresh(client: LanguageClient, tmp_path, docs):
    main = textwrap.dedent("""\
        import torch
        from helpers import helper


        @torch.compile
        def f(x):
            for i in range(3):
                x = helper(x)
            return x
        """)
    helper_clean = "def helper(x):\n    return x * 2\n"
    helper_print = "def helper(x):\n    print(x)\n    return x * 2\n"
    main_uri = _write(tmp_path, "main.py", main)
    helper_uri = _write(tmp_path, "helpers.py", helper_clean)
    _open(client, main_uri, main, docs=docs)
    _open(client, helper_uri, helper_clean, docs=docs)
    await _diagnostics(client, main_uri, lambda ds: len(ds) == 0)
    await _diagnostics(client, helper_uri, lambda ds: len(ds) == 0)
    # a print in the helper, called inside the loop of the compiled function in the other file
    _change(client, helper_uri, 2, helper_print)
    diags = await _diagnostics(client, helper_uri, lambda ds: len(ds) > 0)
    d = next(x for x in diags if x.code == "GBL201")
    assert d.range.start.line == 1
    related = d.related_information
    assert [r.location.uri for r in related] == [main_uri, helper_uri]
    assert [r.location.range.start.line for r in related] == [7, 1]
    assert "`f`" in related[0].message
    _change(client, helper_uri, 3, helper_clean)
    await _diagnostics(client, helper_uri, lambda ds: len(ds) == 0)


@pytest.mark.asyncio(loop_scope="module")
async def test_pyproject_change_reloads_configuration(client: LanguageClient, tmp_path, docs):
    uri = _write(tmp_path, "refine.py", LOOP_BREAK)
    _open(client, uri, LOOP_BREAK, docs=docs)
    await _diagnostics(client, uri, lambda ds: len(ds) == 1)
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.gblint]\nignore = ["GBL2"]\n')
    client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(changes=[
        lsp.FileEvent(uri=pyproject.as_uri(), type=lsp.FileChangeType.Created)]))
    await _diagnostics(client, uri, lambda ds: len(ds) == 0)
    pyproject.write_text('[tool.gblint]\nignore = ["GBL109"]\n')
    client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(changes=[
        lsp.FileEvent(uri=pyproject.as_uri(), type=lsp.FileChangeType.Changed)]))
    await _diagnostics(client, uri, lambda ds: len(ds) == 1)


@pytest.mark.asyncio(loop_scope="module")
async def test_bad_configuration_is_reported_and_defaults_apply(client: LanguageClient, tmp_path, docs):
    (tmp_path / "pyproject.toml").write_text('[tool.gblint]\nno-such-key = 1\n')
    uri = _write(tmp_path, "configured.py", LOOP_BREAK)
    _open(client, uri, LOOP_BREAK, docs=docs)
    assert _codes(await _diagnostics(client, uri, lambda ds: len(ds) > 0)) == ["GBL201"]
    for _ in range(100):
        if any("no-such-key" in m.message for m in client.messages):
            break
        await asyncio.sleep(0.02)
    (message,) = [m for m in client.messages if "no-such-key" in m.message]
    assert message.type == lsp.MessageType.Error


@pytest.mark.asyncio(loop_scope="module")
async def test_break_severity_information(fix_client: LanguageClient, tmp_path):
    text = "import torch\n\n\n@torch.compile\ndef f(x):\n    x = x + 1\n    torch._dynamo.graph_break()\n" \
           "    return x * 2\n"
    uri = _write(tmp_path, "resume.py", text)
    _open(fix_client, uri, text)
    diags = await _diagnostics(fix_client, uri, lambda ds: len(ds) > 0)
    assert [(d.code, d.severity) for d in diags] == [("GBL101", lsp.DiagnosticSeverity.Information)]


@pytest.mark.asyncio
async def test_pull_diagnostics(pull_client: LanguageClient, tmp_path):
    uri = _write(tmp_path, "refine.py", LOOP_BREAK)
    _open(pull_client, uri, LOOP_BREAK)
    report = await pull_client.text_document_diagnostic_async(lsp.DocumentDiagnosticParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri)))
    assert report.kind == "full"
    assert [d.code for d in report.items] == ["GBL201"]
    assert report.items[0].range.start.line == BREAK_LINE
    await asyncio.sleep(0.2)
    assert uri not in pull_client.diagnostics  # a client that pulls is not also pushed to
    (registration,) = pull_client.registrations
    assert registration.method == lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES
    assert [w["globPattern"] for w in registration.register_options["watchers"]] == ["**/pyproject.toml"]

    # a change analysed by the server itself (debounced) asks the client to pull again
    refreshes = pull_client.diagnostic_refresh_count
    _change(pull_client, uri, 2, CLEAN)
    for _ in range(250):
        if pull_client.diagnostic_refresh_count > refreshes:
            break
        await asyncio.sleep(0.02)
    assert pull_client.diagnostic_refresh_count > refreshes
    report = await pull_client.text_document_diagnostic_async(lsp.DocumentDiagnosticParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri)))
    assert list(report.items) == []


@pytest.mark.asyncio(loop_scope="module")
async def test_quick_fix_and_fix_all(fix_client: LanguageClient, tmp_path):
    uri = _write(tmp_path, "refine.py", LOOP_BREAK)
    _open(fix_client, uri, LOOP_BREAK)
    diags = await _diagnostics(fix_client, uri, lambda ds: len(ds) > 0)
    actions = await fix_client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=diags[0].range,
        context=lsp.CodeActionContext(diagnostics=list(diags))))
    fix = next(a for a in actions if a.title == "Remove the graph break")
    assert fix.kind == lsp.CodeActionKind.QuickFix and fix.is_preferred
    assert _apply(LOOP_BREAK, fix.edit.changes[uri]).count("        pass\n") == 1
    assert any(a.kind == glsp.FIX_ALL_KIND for a in actions)

    only = await fix_client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=diags[0].range,
        context=lsp.CodeActionContext(diagnostics=[], only=[lsp.CodeActionKind.SourceFixAll])))
    assert [a.kind for a in only] == [glsp.FIX_ALL_KIND]
    fixed = _apply(LOOP_BREAK, only[0].edit.changes[uri])
    assert "graph_break" not in fixed
    _change(fix_client, uri, 2, fixed)
    await _diagnostics(fix_client, uri, lambda ds: len(ds) == 0)


# ------------------------------------------------------------------ conversions

def _diag(**kw) -> Diagnostic:
    base = dict(path="m.py", line=2, column=5, end_line=2, end_column=9, code="GBL102", name="tensor-item",
                effect="break", message="`.item()`", gb_ids=("GB0124",), hint="keep it a tensor")
    base.update(kw)
    return Diagnostic(**base)


def test_fix_to_code_action_unsafe_title_and_edits():
    lines = ["def f(x):", "    y = x.item()", ""]
    d = _diag(fix=Fix("Keep it a tensor", "unsafe", (Edit(2, 9, 2, 17, "x"),)))
    action = glsp.fix_action(d, "file:///m.py", lines)
    assert action.title == "Keep it a tensor (unsafe)"
    assert not action.is_preferred
    (edit,) = action.edit.changes["file:///m.py"]
    assert (edit.range.start.line, edit.range.start.character, edit.range.end.character) == (1, 8, 16)
    assert edit.new_text == "x"
    assert glsp.fix_action(_diag(), "file:///m.py", lines) is None
    assert glsp.fix_action(_diag(fix=Fix("advice only", "safe")), "file:///m.py", lines) is None
    safe = glsp.fix_action(_diag(fix=Fix("t", "safe", (Edit(2, 9, 2, 17, "x"),))), "file:///m.py", lines)
    assert safe.title == "t" and safe.is_preferred
    # a rewrite predicted to gain nothing is shown (hover), never offered as an action
    assert glsp.fix_action(_diag(fix=Fix("no gain", "display-only", (Edit(2, 9, 2, 17, "x"),))),
                           "file:///m.py", lines) is None


def test_fix_all_keeps_safe_non_overlapping_edits():
    e1, e2, e3 = Edit(1, 1, 1, 4, "a"), Edit(1, 2, 1, 3, "b"), Edit(2, 1, 2, 2, "c")
    ds = [_diag(fix=Fix("1", "safe", (e1,))), _diag(fix=Fix("2", "safe", (e2,))),
          _diag(fix=Fix("3", "unsafe", (e3,))), _diag(fix=Fix("dup", "safe", (e1,)))]
    assert glsp.safe_edits(ds) == [e1]
    assert glsp.fix_all_action([_diag()], "file:///m.py", ["x"]) is None


def test_noqa_edit_variants():
    d = _diag(line=1, code="GBL201")
    assert glsp.noqa_edit(d, ["    print(x)   "]).new_text == "  # noqa: GBL201"
    e = glsp.noqa_edit(d, ["    print(x)  # noqa: GBL102"])
    assert (e.range.start.character, e.new_text) == (len("    print(x)  # noqa: GBL102"), ",GBL201")
    assert glsp.noqa_edit(d, ["    print(x)  # noqa: GBL2"]) is None
    assert glsp.noqa_edit(d, ["    print(x)  # noqa"]) is None
    assert glsp.noqa_edit(d, ["    x = 1 + \\"]) is None


def test_positions_in_utf16_and_python_line_breaks():
    # an emoji is 2 UTF-16 code units; a form feed is not a line break for Python
    lines = glsp.split_lines("s = '\U0001f600'; t.item()\n\x0cx = 1\n")
    assert len(lines) == 3
    d = _diag(line=1, column=11, end_line=1, end_column=18)  # `.item()`, after the emoji
    r = glsp.to_lsp_diagnostic(d, lines).range
    assert (r.start.character, r.end.character) == (11, 18)
    clamped = glsp.to_lsp_diagnostic(_diag(line=1, column=11, end_line=1, end_column=99), lines).range
    assert clamped.end.character == 18


def test_lsp_diagnostic_fields():
    d = _diag(effect="error", code="GBL401", trace=(TraceFrame("a.py", 3, "f"), TraceFrame("m.py", 2, "g")))
    x = glsp.to_lsp_diagnostic(d, ["", "    y = x.item()"], uri_for_path=lambda p: "file:///" + p)
    assert x.severity == lsp.DiagnosticSeverity.Error and x.code == "GBL401" and x.source == "gblint"
    assert x.code_description.href == d.rule_url
    assert [(r.location.uri, r.location.range.start.line) for r in x.related_information] == \
        [("file:///a.py", 2), ("file:///m.py", 1)]
    assert glsp.severity_for("skip") == lsp.DiagnosticSeverity.Warning
    assert glsp.severity_for("info") == lsp.DiagnosticSeverity.Information
    assert glsp.severity_for("break", lsp.DiagnosticSeverity.Information) == lsp.DiagnosticSeverity.Information


def test_conditional_diagnostics_are_one_severity_lower_and_name_their_condition():
    import dataclasses
    d = dataclasses.replace(_diag(effect="skip", code="GBL201"), certainty="conditional",
                            condition="when `labels is not None`")
    x = glsp.to_lsp_diagnostic(d, ["", "    y = x.item()"])
    assert x.severity == lsp.DiagnosticSeverity.Information
    assert x.message.endswith("(when `labels is not None`)") and x.data["certainty"] == "conditional"
    assert glsp.severity_for("error", certainty="conditional") == lsp.DiagnosticSeverity.Warning
    assert glsp.severity_for("break", certainty="definite") == lsp.DiagnosticSeverity.Warning
    assert glsp.severity_for("break", lsp.DiagnosticSeverity.Information, "conditional") == lsp.DiagnosticSeverity.Hint


def test_cli_lsp_without_pygls(monkeypatch, capsys):
    from gblint.frontends import cli
    monkeypatch.setitem(sys.modules, "gblint.frontends.lsp", None)  # import fails as if pygls were missing
    assert cli.main(["lsp"]) == 2
    assert 'python3 -m pip install -e ".[lsp]"' in capsys.readouterr().err


def _project(tmp_path, text=LOOP_BREAK, table="[tool.gblint]\n"):
    """A project with a configuration root, and its settings as the server reads them."""
    from gblint.settings.config import load_settings
    (tmp_path / "pyproject.toml").write_text(table)
    path = tmp_path / "model.py"
    path.write_text(text)
    return str(path), load_settings(str(tmp_path / "pyproject.toml"))


def _counting_summaries(monkeypatch):
    """Count the files the engine summarises (cache misses that parse)."""
    from gblint.project import engine
    calls = []
    real = engine._summarize

    def counted(text, path, *args, **kwargs):
        calls.append(path)
        return real(text, path, *args, **kwargs)
    monkeypatch.setattr(engine, "_summarize", counted)
    return calls


def test_memory_layer_reuses_summaries(tmp_path, monkeypatch):
    from gblint.project.engine import SourceFile
    path, settings = _project(tmp_path)
    cache = glsp.cache_for(settings)
    calls = _counting_summaries(monkeypatch)
    first = glsp.analyse_sources([SourceFile(path, LOOP_BREAK)], settings, cache)
    assert calls == [path] and len(cache._store) == 1
    (tmp_path / ".gblint_cache").rename(tmp_path / "moved")  # the second run reads memory, not the folder
    second = glsp.analyse_sources([SourceFile(path, LOOP_BREAK)], settings, cache)
    assert calls == [path]
    assert _codes(first.diagnostics) == _codes(second.diagnostics) == ["GBL201"]


def test_lsp_reads_what_the_cli_stored(tmp_path, monkeypatch):
    """One cache: the server's is the project's `.gblint_cache`, so an editor session starts
    from what `gblint check` stored."""
    from gblint.frontends import cli
    from gblint.project.engine import SourceFile
    path, settings = _project(tmp_path)
    assert cli.main(["check", "-q", path]) == 1
    assert (tmp_path / ".gblint_cache").is_dir()
    calls = _counting_summaries(monkeypatch)
    cache = glsp.cache_for(settings)
    assert cache.directory == str(tmp_path / ".gblint_cache")
    report = glsp.analyse_sources([SourceFile(path, LOOP_BREAK)], settings, cache)
    assert calls == [] and cache.hits > 0 and cache.misses == 0
    assert _codes(report.diagnostics) == ["GBL201"]


def test_cli_reads_what_the_lsp_stored(tmp_path, monkeypatch, capsys):
    from gblint.frontends import cli
    from gblint.project.engine import SourceFile
    path, settings = _project(tmp_path)
    server = glsp.GblintLanguageServer()
    settings = server.settings_for(path)  # as the server builds its cache
    cache = server._caches[id(settings)]
    assert cache.directory == str(tmp_path / ".gblint_cache")
    glsp.analyse_sources([SourceFile(path, LOOP_BREAK)], settings, cache)
    from gblint.project import engine
    texts = []
    real = engine._summarize
    monkeypatch.setattr(engine, "_summarize", lambda text, *a, **kw: texts.append(text) or real(text, *a, **kw))
    assert cli.main(["check", "--format", "json", path]) == 1
    assert '"GBL201"' in capsys.readouterr().out
    # the stored text is read, never summarised again; only the fix's graph count reads the fixed text
    assert LOOP_BREAK not in texts and len(texts) <= 1


def test_unsaved_buffer_stays_in_memory(tmp_path, monkeypatch):
    """What the server computes for a buffer that differs from its file never reaches the folder."""
    from gblint.project.engine import SourceFile
    path, settings = _project(tmp_path)
    cache = glsp.cache_for(settings)
    edited = LOOP_BREAK.replace("0.9", "0.8")
    glsp.analyse_sources([SourceFile(path, edited)], settings, cache)
    folder = tmp_path / ".gblint_cache"
    assert [p for p in folder.rglob("*.msgpack")] == []
    calls = _counting_summaries(monkeypatch)
    glsp.analyse_sources([SourceFile(path, edited)], settings, cache)  # from memory all the same
    assert calls == []
    glsp.analyse_sources([SourceFile(path, LOOP_BREAK)], settings, cache)  # the saved text: stored
    assert calls == [path] and len(list(folder.rglob("*.msgpack"))) == 1


def test_cache_false_gives_the_lsp_no_disk_cache(tmp_path, monkeypatch):
    from gblint.project.engine import SourceFile
    path, settings = _project(tmp_path, table="[tool.gblint]\ncache = false\n")
    assert settings.cache is False
    cache = glsp.cache_for(settings)
    assert cache is not None and cache.directory is None
    calls = _counting_summaries(monkeypatch)
    for _ in range(2):
        report = glsp.analyse_sources([SourceFile(path, LOOP_BREAK)], settings, cache)
        assert _codes(report.diagnostics) == ["GBL201"]
    assert calls == [path]  # the memory layer still spares the unchanged buffer a parse
    assert not (tmp_path / ".gblint_cache").exists()


def test_parser_limit_guard():
    assert glsp.parser_limit_exceeded("x = " + "(" * 1000 + ")" * 1000)[1] == "too many nested parentheses"
    assert glsp.parser_limit_exceeded(LOOP_BREAK) is None
    assert glsp.parser_limit_exceeded("def f(:\n") is None  # an ordinary syntax error is the engine's


# ------------------------------------------------------------------ URIs, line breaks, noqa placement

ODD_DIR = "my dir é"  # a space and a non-ASCII letter: both are percent-encoded in the URI
WINDOWS_URI = "file:///c%3A/Users/Dev%20Name/refine.py"  # as VS Code sends a Windows path


@pytest.mark.asyncio
async def test_percent_encoded_uris_in_pull_mode(pull_client: LanguageClient, tmp_path):
    folder = tmp_path / ODD_DIR
    folder.mkdir()
    uri = _write(folder, "refine.py", LOOP_BREAK)
    assert "%20" in uri and "%C3%A9" in uri
    for doc, asked in ((uri, [uri]), (WINDOWS_URI, [WINDOWS_URI, "file:///C:/Users/Dev Name/refine.py"])):
        _open(pull_client, doc, LOOP_BREAK)
        for spelling in asked:
            report = await pull_client.text_document_diagnostic_async(lsp.DocumentDiagnosticParams(
                text_document=lsp.TextDocumentIdentifier(uri=spelling)))
            assert [d.code for d in report.items] == ["GBL201"], spelling
        actions = await pull_client.text_document_code_action_async(lsp.CodeActionParams(
            text_document=lsp.TextDocumentIdentifier(uri=doc), range=report.items[0].range,
            context=lsp.CodeActionContext(diagnostics=list(report.items))))
        noqa = next(a for a in actions if "noqa" in a.title)
        assert list(noqa.edit.changes) == [doc]  # edits come back under the client's own URI
        hover = await pull_client.text_document_hover_async(lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri=doc), position=lsp.Position(line=BREAK_LINE, character=9)))
        assert hover is not None and "GBL201" in hover.contents.value


@pytest.mark.asyncio(loop_scope="module")
async def test_percent_encoded_uri_is_pushed_under_the_clients_spelling(client: LanguageClient, tmp_path, docs):
    folder = tmp_path / ODD_DIR
    folder.mkdir()
    uri = _write(folder, "refine.py", LOOP_BREAK)
    _open(client, uri, LOOP_BREAK, docs=docs)
    assert _codes(await _diagnostics(client, uri, lambda ds: len(ds) > 0)) == ["GBL201"]


@pytest.mark.parametrize("odd", ["\x0c", "\x0b", "\u2028", "\x1c"], ids=["ff", "vt", "u2028", "fs"])
@pytest.mark.asyncio(loop_scope="module")
async def test_incremental_edits_after_characters_splitlines_breaks_on(client: LanguageClient, tmp_path, docs, odd):
    """LSP ends lines only at \\r, \\n and \\r\\n: the server's copy must not drift from the editor's."""
    text = f"import torch\n# a{odd}b\n\n@torch.compile\ndef f(x):\n    return x.sin()\n"
    uri = _write(tmp_path, "odd.py", text)
    _open(client, uri, text, docs=docs)
    await _diagnostics(client, uri, lambda ds: len(ds) == 0)
    at = lsp.Position(line=5, character=0)  # before `    return x.sin()`
    _change(client, uri, 2, "    print(x)\n", lsp.Range(start=at, end=at))
    diags = await _diagnostics(client, uri, lambda ds: len(ds) > 0)
    assert [(d.code, d.range.start.line) for d in diags] == [("GBL107", 5)]
    # and a position past the odd character on its own line
    at = lsp.Position(line=1, character=5)
    _change(client, uri, 3, "c", lsp.Range(start=at, end=at))
    _change(client, uri, 4, "", lsp.Range(start=lsp.Position(line=5, character=0),
                                          end=lsp.Position(line=6, character=0)))
    await _diagnostics(client, uri, lambda ds: len(ds) == 0)


STRING_ON_REPORTED_LINE = textwrap.dedent('''\
    import torch


    @torch.compile
    def f(x):
        print(x, """first
    second""")
        return x
    ''')


def _apply_lsp(text: str, edits) -> str:
    """Apply LSP edits, with lines broken where LSP breaks them."""
    lines = glsp.split_lines(text)
    offsets = [0]
    for line, brk in zip(lines, [m.group() for m in __import__("re").finditer(r"\r\n|\r|\n", text)]):
        offsets.append(offsets[-1] + len(line) + len(brk))

    def offset(pos):
        return offsets[pos.line] + pos.character

    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:offset(e.range.start)] + e.new_text + text[offset(e.range.end):]
    return text


@pytest.mark.asyncio(loop_scope="module")
async def test_noqa_action_goes_after_a_string_that_starts_on_the_line(client: LanguageClient, tmp_path, docs):
    uri = _write(tmp_path, "strings.py", STRING_ON_REPORTED_LINE)
    _open(client, uri, STRING_ON_REPORTED_LINE, docs=docs)
    diags = await _diagnostics(client, uri, lambda ds: len(ds) > 0)
    assert [(d.code, d.range.start.line) for d in diags] == [("GBL107", 5)]
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=diags[0].range,
        context=lsp.CodeActionContext(diagnostics=list(diags))))
    noqa = next(a for a in actions if "noqa" in a.title)
    assert noqa.title == "Add `# noqa: GBL107` on line 7"
    fixed = _apply_lsp(STRING_ON_REPORTED_LINE, noqa.edit.changes[uri])
    assert '    print(x, """first\nsecond""")  # noqa: GBL107\n' in fixed  # the string is unchanged
    _change(client, uri, 2, fixed)
    await _diagnostics(client, uri, lambda ds: len(ds) == 0)


def test_noqa_edit_on_multi_line_statements():
    d = _diag(line=1, code="GBL107")
    assert glsp.noqa_edit(d, glsp.split_lines('print(x, """a\nb""")  # noqa: GBL1\n')) is None  # covered already
    # the first `# noqa` of the statement (it decides) is text inside the string: nowhere to add a code
    assert glsp.noqa_edit(d, glsp.split_lines('print(x, """a  # noqa: E501\nb""")  # noqa: W291\n')) is None
    lines = glsp.split_lines('print(x, """a\nb""")  # noqa: E501, W291\n')
    e = glsp.noqa_edit(d, lines)
    at = len('b""")  # noqa: E501, W291')
    assert (e.range.start.line, e.range.start.character, e.new_text) == (1, at, ",GBL107")
    lines = glsp.split_lines("x = y + \\\n    print(x)\n")
    e = glsp.noqa_edit(d, lines)
    assert (e.range.start.line, e.new_text) == (1, "  # noqa: GBL107")
    assert glsp.noqa_edit(d, glsp.split_lines('print(x, """never closed\n')) is None  # nowhere safe to put it
