"""pytest plugin: observe what ``torch.compile`` does while a test suite runs, and match it with
gblint's static predictions for the test files and the project files the breaks were in.

Enable it with ``pytest -p gblint.runtime_check.pytest_plugin --gblint-confirm``. It does
nothing (and imports nothing heavy) without ``--gblint-confirm``. The tests run in pytest's
own process, as they would anyway; the observer (:mod:`gblint.runtime_check.observer`) is
installed at ``pytest_configure`` and stamps every observation with the running test's node
id, so each test becomes one run (``entry`` = node id) of the ``gblint confirm --format json``
document.

Options: ``--gblint-confirm-backend NAME`` (default ``keep``: the backend each
``torch.compile`` call asked for), ``--gblint-confirm-output FILE`` (the JSON document),
``--gblint-confirm-strict`` (the session fails when a prediction is refuted or a break missed).
"""
from __future__ import annotations

import json
import os
import time
from typing import Any, Dict, List

import pytest


def pytest_addoption(parser):
    group = parser.getgroup("gblint", "gblint runtime confirmation")
    group.addoption("--gblint-confirm", action="store_true", default=False,
                    help="observe torch.compile graph breaks and match them with gblint's predictions")
    group.addoption("--gblint-confirm-backend", default="keep",
                    help="backend for the recorded graphs (default keep: as each torch.compile call asked)")
    group.addoption("--gblint-confirm-output", default=None, help="write the JSON report to this file")
    group.addoption("--gblint-confirm-strict", action="store_true", default=False,
                    help="fail the session when a prediction is refuted or a graph break was missed")


def pytest_configure(config):
    if config.getoption("gblint_confirm"):
        config.pluginmanager.register(ConfirmPlugin(config), "gblint-confirm")


class ConfirmPlugin:
    """Collects observations per test and reports them at the end of the session."""

    def __init__(self, config):
        from .observer import Observer
        self.config = config
        self.backend = config.getoption("gblint_confirm_backend")
        self.events: List[Dict[str, Any]] = []
        self.observer = Observer(self.events.append, backend=self.backend)
        self.observer.install()
        self.tests: Dict[str, Dict[str, Any]] = {}
        self.result = None
        self.runs: List[Dict[str, Any]] = []
        self.files: List[str] = []

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self.observer.job = item.nodeid
        info = self.tests.setdefault(item.nodeid, {"file": str(getattr(item, "path", item.fspath)),
                                                   "status": "ok", "started": time.perf_counter()})
        try:
            yield
        finally:
            info["seconds"] = round(time.perf_counter() - info["started"], 4)
            self.observer.job = None

    def pytest_runtest_logreport(self, report):
        info = self.tests.get(report.nodeid)
        if info is not None and report.failed:
            info["status"] = "exception"
            info["message"] = f"test {report.when} failed"

    def pytest_sessionfinish(self, session, exitstatus):
        from .matching import match
        from .plan import user_files
        from .runner import Job, Options, build_run
        by_test: Dict[str, List[Dict[str, Any]]] = {}
        for ev in self.events:
            if ev.get("job") is not None:
                by_test.setdefault(ev["job"], []).append(ev)
        options = Options(backend=self.backend, device="cpu", timeout=0)
        try:
            import torch
            info = {"ready": {"device": "cpu", "torch": torch.__version__}}
        except Exception:
            info = {}
        for nodeid, evs in by_test.items():
            t = self.tests.get(nodeid, {})
            end = {"status": t.get("status", "ok"), "seconds": t.get("seconds", 0.0), "message": t.get("message")}
            job = Job(entry=nodeid, file=t.get("file"))
            run = build_run(job, evs, end, info, options)
            run.pop("time_limit", None)
            self.runs.append(run)
        root = str(self.config.rootpath)
        test_files = sorted({r["file"] for r in self.runs if r.get("file")})
        self.files = list(dict.fromkeys(test_files + user_files(self.runs, [root])))
        try:
            from gblint.settings.config import find_pyproject, load_settings
            from gblint.project.engine import check_paths
            settings = load_settings(find_pyproject(root))
            diags = check_paths(self.files, settings).diagnostics if self.files else []
        except Exception as exc:  # the suite's own result must not depend on gblint
            diags = []
            self.error = f"static check failed: {type(exc).__name__}: {exc}"
        self.result = match(diags, self.runs, checked_paths=self.files)
        out = self.config.getoption("gblint_confirm_output")
        if out:
            from .report import document
            with open(out, "w", encoding="utf-8") as fh:
                json.dump(document(self.runs, self.result), fh, indent=2, default=str)
        if self.config.getoption("gblint_confirm_strict") and (self.result["counts"]["refuted"] or
                                                               self.result["missed"]):
            session.exitstatus = 1
        self.observer.uninstall()

    def pytest_terminal_summary(self, terminalreporter):
        if self.result is None:
            return
        import io
        from .report import per_file_rows, write_table
        tr = terminalreporter
        tr.section("gblint confirm")
        graphs = sum(r["graph_count"] for r in self.runs)
        breaks = sum(len(r["breaks"]) for r in self.runs)
        tr.write_line(f"{len(self.runs)} test(s) compiled {graphs} graph(s) with {breaks} break site(s) "
                      f"[backend {self.backend}]")
        for m in self.result["matches"]:
            if m["status"] != "confirmed":
                tr.write_line(f"{os.path.relpath(m['path'])}:{m['line']}: {m['code']} [{m['effect']}] "
                              f"{m['status']}: {m['why']}")
        for m in self.result["missed"]:
            tr.write_line(f"{os.path.relpath(m['path'])}:{m['line']}: missed {m['outcome']} ({m.get('gb_id')})")
        buf = io.StringIO()
        write_table(per_file_rows(self.runs, self.result, self.files), self.result, buf)
        for line in buf.getvalue().splitlines():
            tr.write_line(line)
