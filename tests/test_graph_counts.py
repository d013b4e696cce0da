"""The predicted graph count counts what is proven (issue 38): graphs from definite breaks and skipped frames,
in frames known to be compiled on their own; ``graphs_at_most`` beside it counts them as if every conditional
break happened. Compared with the graphs torch 2.13 compiled for the programs of tests/cases/kinds
(``observed.json``, written by ``scripts/measure_fixtures.py``: one op count per compiled graph).

- k50: a clean region calling helpers and submodules (one graph);
- k51: a definite break in the compiled function (it resumes: two graphs);
- k52: breaks only under tests gblint cannot decide, in the frame and in helpers it calls: none happens, one
  graph, while each conditional break raises the upper bound;
- k53: a break in a ``for`` body skips the frame (GB7000): the helper it calls before the break, on each
  iteration, is compiled on its own;
- k54: a definite nested break in one helper and a conditional one in another: the definite one splits the
  caller and its helper, the conditional one adds nothing proven;
- kb47: a break that cannot resume (in a loop, a ``try``, an unsupported ``with``, a skip marker) after a graph
  break the frame resumed from skips only the resume function: the graphs before it are kept, none after it;
- kb49: ``skip_frame()`` in an inlined helper skips the helper only: its caller breaks at the call and resumes.
"""
import json
import os

import pytest

from gblint.settings.config import Settings
from gblint.project.engine import SourceFile, run
from gblint.frontends.output import graph_count

from .conftest import ROOT

FOLDER = os.path.join(ROOT, "tests", "cases", "kinds")
with open(os.path.join(FOLDER, "observed.json"), encoding="utf-8") as _fh:
    OBSERVED = json.load(_fh)["programs"]
COUNTED = sorted(n for n in OBSERVED if n.split("_")[0] in ("k50", "k51", "k52", "k53", "k54", "kb47", "kb49"))
#: the programs whose breaks are conditional and did not happen in the measured run
CONDITIONAL_ONLY = ("k52_conditional_breaks_only.py", "k54_definite_and_conditional_in_callees.py")


def regions(name: str):
    """JSON ``coverage.regions`` of gblint on the program ``name`` alone (torch 2.13.0, Python 3.11)."""
    report = run([SourceFile(os.path.join(FOLDER, name), None)],
                 Settings(python_version=(3, 11), torch_version="2.13.0"), fixes=False, coverage=True)[0]
    return report.coverage["regions"]


def test_the_counted_programs_are_measured():
    assert len(COUNTED) == 7 and set(CONDITIONAL_ONLY) <= set(COUNTED)
    assert all(OBSERVED[n]["exception"] is None for n in COUNTED)


@pytest.mark.parametrize("name", COUNTED)
def test_proven_graphs_are_the_measured_graphs(name):
    """The predicted count (``graphs``, summed over the regions) is the number of graphs Dynamo compiled."""
    found = regions(name)
    assert found and all(r["graphs"] is not None for r in found)
    assert sum(r["graphs"] for r in found) == len(OBSERVED[name]["graphs"])


@pytest.mark.parametrize("name", COUNTED)
def test_upper_bound_covers_the_proven_count(name):
    """``graphs_at_most`` is never below ``graphs``; it is above it exactly where a conditional break could add
    graphs (the programs of CONDITIONAL_ONLY)."""
    found = regions(name)
    proven, most = sum(r["graphs"] for r in found), sum(r["graphs_at_most"] for r in found)
    assert most >= proven
    assert (most > proven) == (name in CONDITIONAL_ONLY)


def test_text_names_the_bound_only_when_it_differs():
    assert graph_count(1, 35) == "~1 graph (up to 35 if the conditional breaks happen)"
    assert graph_count(2, 2) == "~2 graphs"
