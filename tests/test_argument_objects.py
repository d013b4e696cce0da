"""Objects that arrive as arguments, and what gblint knows of them (issue 14's reach, 15's certainty).

A parameter may hold any object, not only a tensor: a method called on it (``store.put(x)``) and a
property read on it inside a library call (``zip(store.full, store.shared)``) run the program's
code. A wrapper that changes its ``**kwargs`` only under a test (a deprecation wrapper renaming a
keyword when the old name is passed) leaves them as they were when the test is false for the
call. ``isinstance`` of an instance of the program's classes is decided by its class's bases.
A base class's ``__init__`` reached through ``super().__init__(...)`` receives what the subclass
passes. Each kind has a program that must report its break as definite and one that must not
report it as definite (nothing, or conditional where the wrapper may have moved the object to
another keyword); each is run under Dynamo too.
"""
import json
import sys

import pytest

from .conftest import run_cli

HEAD = '''
import functools

import torch


def renamed(old, new):
    def wrapper(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            if old in kwargs and new not in kwargs:
                kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)
        return wrapped
    return wrapper


class Store:
    def __init__(self):
        self.items = [1, 2]

    def put(self, x):
        print("put")
        return x

    @property
    def shared(self):
        print("shared")
        return [False for _ in self.items]


class Other:
    pass
'''

PROGRAMS = {
    "method of an argument": ('''
def run(x, store):
    return store.put(x)


def entry(x):
    return run(x, Store())

''', "put", True),
    "method of an argument that is None": ('''
def run(x, store=None):
    if store is not None:
        x = store.put(x)
    return x


def entry(x):
    return run(x)

''', "put", False),
    "property read in a library call": ('''
def run(x, store):
    return x + len(list(zip(store.items, store.shared)))


def entry(x):
    return run(x, Store())

''', "shared", True),
    "isinstance of its class": ('''
def run(x, store):
    if isinstance(store, Store):
        x = store.put(x)
    return x


def entry(x):
    return run(x, Store())

''', "put", True),
    "isinstance of another class": ('''
def run(x, store):
    if isinstance(store, Other):
        x = store.put(x)
    return x


def entry(x):
    return run(x, Store())

''', "put", False),
    "wrapper that renames a keyword not passed": ('''
@renamed("old_store", "store")
def run(x, store=None):
    if store is not None:
        x = store.put(x)
    return x


def entry(x):
    return run(x, store=Store())

''', "put", True),
    "wrapper that renames the keyword passed": ('''
@renamed("store", "box")
def run(x, store=None, box=None):
    if store is not None:
        x = store.put(x)
    return x


def entry(x):
    return run(x, store=Store())

''', "put", "conditional"),
    "base __init__ given the object by super().__init__": ('''
class Base:
    def __init__(self, store=None):
        self.store = store


class Holder(Base):
    def __init__(self):
        super().__init__(store=Store())


def run(x, holder):
    return holder.store.put(x)


def entry(x):
    return run(x, Holder())

''', "put", True),
    "base __init__ given nothing by super().__init__": ('''
class Base:
    def __init__(self, store=None):
        self.store = store


class Holder(Base):
    def __init__(self):
        super().__init__()


def run(x, holder):
    if holder.store is not None:
        x = holder.store.put(x)
    return x


def entry(x):
    return run(x, Holder())

''', "put", False),
}


def _source(body):
    """HEAD, the program's ``run`` and ``entry``, and the compiled call of ``entry``."""
    return HEAD + body + '\n\ntorch.compile(entry, backend="eager")(torch.ones(2))\n'


def _line(source, function):
    lines = source.split("\n")
    start = lines.index(f"    def {function}(self, x):" if function == "put" else "    def shared(self):")
    return next(i + 1 for i in range(start, len(lines)) if "print(" in lines[i])


def _diagnostics(tmp_path, source):
    (tmp_path / "m.py").write_text(source)
    proc = run_cli("check", "--isolated", "--no-cache", "--format", "json", "--exit-zero", "m.py", cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["diagnostics"]


@pytest.mark.parametrize("kind", sorted(PROGRAMS))
def test_break_is_definite_exactly_where_python_runs_it(tmp_path, kind):
    body, function, breaks = PROGRAMS[kind]
    source = _source(body)
    # a break in a property's getter is reported twice, as a break and as the reading frame's skip
    found = sorted({(d["line"], d["certainty"]) for d in _diagnostics(tmp_path, source) if d["effect"] != "info"})
    if breaks is True:
        assert found == [(_line(source, function), "definite")]
    elif breaks:
        assert found == [(_line(source, function), breaks)]
    else:
        assert found == []


@pytest.mark.parametrize("kind", sorted(PROGRAMS))
def test_runtime_agrees(tmp_path, kind):
    """Dynamo breaks at the print exactly in the programs that must report it."""
    pytest.importorskip("torch")
    body, function, breaks = PROGRAMS[kind]
    source = _source(body)
    (tmp_path / "m.py").write_text(source)
    proc = run_cli("confirm", "--isolated", "--backend", "eager", "--format", "json", "--run", "--", sys.executable,
                   "m.py", cwd=str(tmp_path))
    assert proc.returncode in (0, 1), proc.stderr
    lines = [b["stack"][-1]["line"] for run in json.loads(proc.stdout)["runs"] for b in run["breaks"]]
    assert lines == ([_line(source, function)] if breaks is True else [])
