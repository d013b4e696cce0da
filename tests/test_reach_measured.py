"""Reach against the runtime: every function Dynamo traced in the programs of tests/fixtures/reach.

Each program there calls into its own code the ways models do (decorators and their wrappers,
closures a factory returns, ``nn.ModuleDict``/``nn.ModuleList``/``nn.Sequential`` layers by key,
index and slice, objects known by an annotation, tables of callables, ``functools.partial``,
``checkpoint``, hooks registered in ``__init__``, ``super()`` through mixins, properties,
``__call__``, classmethods and staticmethods, config objects built at module level, compiled bound
methods and factory results, ``__init_subclass__`` wrappers, one decorator's wrapper entered
again inside itself around another method, a ``@dataclass`` output class whose generated
``__init__`` runs its base's ``__setattr__`` and ``__post_init__``, item stores that run
``__setitem__``, a ``dict`` subclass table whose ``__getitem__`` builds the class a key names, an
``nn.Module`` whose own decorated ``__call__`` reaches ``forward`` through ``super().__call__``, an
LSTM read before it is called, objects iterated and measured through ``__iter__``/``__getitem__``/
``__len__``, a layer built by name through a registry (``inspect.isclass``, a comprehension
variable named like a local, a table handed on in a local), layers appended to an empty
``nn.ModuleList`` or to a list, a metaclass ``__setattr__`` wrapping a dataclass's ``__init__``, a
base class's ``__init__`` given its layers through ``super().__init__``, objects handed in as
arguments through a wrapper that renames a keyword, a method the instance may rebind only in a
setter, a table of functions rebuilt by a dict comprehension and called through ``.values()``,
a class decorator that replaces ``__init__`` and ``forward`` with closures dispatching to a
kernel a registry holds, and a strategy object ``__init__`` hands to a setter method of its own).
``scripts/measure_fixtures.py
--traced --folder tests/fixtures/reach`` ran each under torch 2.13 (CPU, eager backend) with
gblint's observer and recorded, besides the breaks, the functions Dynamo traced
(``observed.json`` ``traced``). gblint must reach each of them (``coverage.functions`` of its
JSON output) and predict the breaks and skipped frames the runtime saw; nothing here compares
gblint with its own earlier output.
"""
import json
import os

import pytest

from gblint.settings.config import Settings
from gblint.project.engine import SourceFile, run

from .conftest import ROOT
from .test_measured import differences

REACH = os.path.join(ROOT, "tests", "fixtures", "reach")
with open(os.path.join(REACH, "observed.json"), encoding="utf-8") as _fh:
    DOC = json.load(_fh)


def _check(name):
    path = os.path.join(REACH, name)
    report, _, _, _ = run([SourceFile(path, None)], Settings(python_version=(3, 11), torch_version="2.13.0"),
                          coverage=True)
    assert report.errors == []
    reached = {f["function"] for f in report.coverage["functions"] if os.path.basename(f["path"]) == name}
    return reached, [d.to_json() for d in report.diagnostics]


def test_every_program_is_measured_with_what_it_traced():
    files = sorted(n for n in os.listdir(REACH) if n.endswith(".py"))
    assert sorted(DOC["programs"]) == files
    assert DOC["meta"]["torch"].startswith("2.13.") and DOC["meta"]["python"].startswith("3.11")
    assert all(obs.get("traced") and obs["exception"] is None for obs in DOC["programs"].values())


@pytest.mark.parametrize("name", sorted(DOC["programs"]))
def test_gblint_reaches_every_function_dynamo_traced(name):
    reached, _ = _check(name)
    missing = sorted(set(DOC["programs"][name]["traced"]) - reached)
    assert missing == [], f"{name}: Dynamo traced {missing}, which gblint did not reach"


@pytest.mark.parametrize("name", sorted(DOC["programs"]))
def test_breaks_behind_those_calls_are_predicted(name):
    _, diags = _check(name)
    assert differences(name, diags, DOC["programs"][name]) == {}
