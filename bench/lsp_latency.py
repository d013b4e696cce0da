"""Latency of ``gblint lsp``: from ``textDocument/didChange`` on a 1,000-line model file to the
``textDocument/publishDiagnostics`` that answers it (same document version).

Run it alone (needs ``pip install -e ".[lsp]"``)::

    python bench/lsp_latency.py [--changes 20] [--lines 1000] [--keep FILE]

The file is realistic model code: ``examples/gpt.py``'s modules and training step repeated with
renamed classes, so it holds several compiled regions and their breaks. Each change edits one
line in the middle (a constant in ``MLP.forward``, a new value each time), the way typing does. Prints one JSON object:
the median, min, max and 90th percentile in milliseconds, the server's debounce (included in the
latency: the server waits that long for more typing before it analyses), and the engine alone
(the server's analysis call, fixes deferred, in this process) for comparison.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import pathlib
import re
import statistics
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lsprotocol import types as lsp  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402

NAMES = ("CausalSelfAttention", "MLP", "Block", "GPT", "train_step", "model")
EDIT_MARK = "if h.abs().max() > 1e4:"


def model_source(lines: int = 1000) -> str:
    """``examples/gpt.py`` with its body repeated (names suffixed) up to exactly ``lines`` lines."""
    text = (ROOT / "examples" / "gpt.py").read_text()
    head, body = text.split("log = logging.getLogger(__name__)\n", 1)
    out = head + "log = logging.getLogger(__name__)\n"
    i = 0
    while True:
        block = body
        for name in NAMES:
            block = re.sub(rf"\b{name}\b", f"{name}{i}", block)
        if (out + block).count("\n") > lines:
            break
        out += block
        i += 1
    pad = lines - out.count("\n")
    return out + "".join(f"# padding {k}\n" for k in range(pad))


async def measure(text: str, changes: int, path: pathlib.Path) -> list:
    client = LanguageClient("gblint-bench", "1")
    arrived: dict = {}
    waiters: dict = {}

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def _published(params: lsp.PublishDiagnosticsParams):
        now = time.perf_counter()
        arrived.setdefault(params.version, (now, len(params.diagnostics)))
        fut = waiters.pop(params.version, None)
        if fut is not None and not fut.done():
            fut.set_result(now)

    async def wait_version(version: int) -> float:
        if version in arrived:
            return arrived[version][0]
        fut = asyncio.get_running_loop().create_future()
        waiters[version] = fut
        return await asyncio.wait_for(fut, 60)

    await client.start_io(sys.executable, "-m", "gblint", "lsp")
    await client.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities()))
    client.initialized(lsp.InitializedParams())
    uri = path.as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id="python", version=0, text=text)))
    await wait_version(0)
    lines = text.splitlines()
    row = next(i for i, line in enumerate(lines) if EDIT_MARK in line and i > len(lines) // 2)
    col = lines[row].index("1e4")
    latencies = []
    counts = {arrived[0][1]}
    for v in range(1, changes + 1):
        new = f"{100 + v % 900}"  # a new text each time (no cache hit), of the same length as `1e4`
        t0 = time.perf_counter()
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=v),
            content_changes=[lsp.TextDocumentContentChangePartial(
                range=lsp.Range(start=lsp.Position(line=row, character=col),
                                end=lsp.Position(line=row, character=col + 3)), text=new)]))
        t1 = await wait_version(v)
        latencies.append(t1 - t0)
        counts.add(arrived[v][1])
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    if len(counts) != 1:
        raise RuntimeError(f"the edits changed the diagnostics: counts {sorted(counts)}")
    return latencies


def engine_seconds(text: str, path: pathlib.Path, repeat: int = 5) -> float:
    from gblint.settings.config import Settings
    from gblint.project.engine import SourceFile
    from gblint.frontends.lsp import analyse_sources
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        analyse_sources([SourceFile(str(path), text)], Settings())
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--changes", type=int, default=20)
    ap.add_argument("--lines", type=int, default=1000)
    ap.add_argument("--keep", help="also write the generated model file here")
    args = ap.parse_args(argv)
    text = model_source(args.lines)
    if args.keep:
        pathlib.Path(args.keep).write_text(text)
    from gblint.frontends.lsp import DEBOUNCE_S
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "model.py"
        path.write_text(text)
        latencies = asyncio.run(measure(text, args.changes, path))
        engine = engine_seconds(text, path)
    ms = sorted(x * 1000 for x in latencies)
    print(json.dumps({
        "lines": text.count("\n"), "changes": len(ms),
        "median_ms": round(statistics.median(ms), 1), "min_ms": round(ms[0], 1), "max_ms": round(ms[-1], 1),
        "p90_ms": round(ms[min(len(ms) - 1, int(0.9 * len(ms)))], 1),
        "debounce_ms": round(DEBOUNCE_S * 1000), "engine_only_ms": round(engine * 1000, 1),
        "python": sys.version.split()[0], "cpus": os.cpu_count()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
