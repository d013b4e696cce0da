"""One-line messages are shortened in their middle, at word boundaries: never inside a word or a
code span, the construct (the subject's first code span) and the consequence (the code's template)
kept whole (gblint/core/messages.py)."""
import itertools

import pytest

from gblint.core import messages
from gblint.settings.catalog import catalog
from gblint.core.messages import DEFAULT_BRIEF, LIMIT, atoms, clip, fit, headline, short_message

LONG_NAME = "transformer_encoder_layer_with_rotary_embeddings"
LONG_FRAME = "RotaryTransformerEncoderLayer.forward_with_key_value_cache"
LONG_CONDITION = f"when `self._thread_local_state.{LONG_NAME} is not None and config.use_cache`"
SEVERAL_SPANS = f"when `{LONG_NAME}` and `self.training` or not `config.{LONG_NAME}`"


def _subjects(row):
    """The longest subjects a code's message is filled with: its summary (many code spans), a
    long-named construct with a long description, and the subject of the issue's example."""
    return [row["summary"].rstrip("."),
            f"`self.{LONG_NAME}.{LONG_NAME}(...)` turns a tensor into a Python scalar, which Dynamo cannot trace",
            "`.item()` turns a tensor into a Python scalar"]


def _templates(row):
    from gblint.core.codes import CODES
    entry = CODES.get(row["code"])
    if entry is not None and entry.brief:
        return [(row["effect"], entry.brief)]
    return sorted(DEFAULT_BRIEF.items())


def _core(atom):
    return atom.strip(",;:.()…")


def _assert_whole_atoms(short, *full):
    """Every atom of ``short`` (a word or a code span, :func:`gblint.core.messages.atoms`), punctuation
    around it aside, is one of ``full``'s: no cut inside a word or a code span."""
    original = {_core(a) for text in full for a in atoms(text)}
    for a in atoms(short):
        assert _core(a) in original or not _core(a), (a, short, full)
    assert short.count("`") % 2 == 0, short


def _forms():
    for row in catalog():
        for (outcome, template), subject, frame, calls in itertools.product(
                _templates(row), _subjects(row), ("f", LONG_FRAME), (0, 12)):
            yield row["code"], outcome, template, subject, frame, calls


def test_every_codes_longest_message_form_is_cut_only_between_words():
    count = 0
    for code, outcome, template, subject, frame, calls in _forms():
        count += 1
        m = short_message(code, outcome, subject, frame, calls)
        rest = template.replace("{frame}", frame).replace("{via}", messages.via(calls))
        full = rest.replace("{subject}", subject)
        assert len(m) <= LIMIT, m
        construct = " ".join(messages._head(atoms(subject)))
        _assert_whole_atoms(m, full, rest.replace("{subject}", construct))
        consequence = rest.split("{subject}")[-1]
        if "{subject}" in template and len(construct) + len(consequence) + 2 <= LIMIT:  # room for both: both are whole
            assert m.endswith(consequence), (m, consequence)
            if construct.startswith("`"):  # a subject that starts with its construct keeps it
                assert m.startswith(construct), (m, construct)
        for condition in (LONG_CONDITION, SEVERAL_SPANS, "when `x`"):
            line = headline(m, condition)
            assert len(line) <= LIMIT, line
            assert line.endswith(")") and " (when" in line, line
            message, shown = line[:line.rindex(" (when")], line[line.rindex(" (when") + 2:-1]
            _assert_whole_atoms(shown, condition)
            _assert_whole_atoms(message, m)
            if len(m) + 9 <= LIMIT:  # room for "(when …)": only the message's closing remark may give way
                assert m.startswith(message), (m, line)
            if len(m) + len(condition) + 3 <= LIMIT:
                assert line == f"{m} ({condition})"
    assert count > 500


@pytest.mark.parametrize("text", [
    "`.item()` turns a tensor into a Python scalar via 2 calls in a loop and then some more words " * 3,
    f"`{LONG_NAME}(...)` " * 10,
    "word " * 60,
    f"a call of `self.{LONG_NAME}` with `{LONG_NAME}` and `{LONG_NAME}` and more",
])
@pytest.mark.parametrize("limit", [12, 20, 40, 80, 120])
def test_clip_keeps_whole_atoms_and_the_limit(text, limit):
    short = fit(text, limit)
    assert len(short) <= limit
    _assert_whole_atoms(short, text)


def test_the_middle_gives_way_the_construct_and_the_end_stay():
    subject = "`.item()` turns a tensor into a Python scalar"
    assert clip(subject, 30) == "`.item()` … a Python scalar"
    assert clip(LONG_CONDITION, 30) == "when …"
    assert clip(SEVERAL_SPANS, 70) == f"when `{LONG_NAME}` and …"
    assert clip(SEVERAL_SPANS, 90) == f"when `{LONG_NAME}` and `self.training` or not …"
    assert clip("`.item()` turns a tensor into a Python scalar", 12) == "`.item()` …"
