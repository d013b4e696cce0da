"""``# noqa`` is read exactly as flake8 reads it: same comment syntax, same code lists, same
multi-line statements. flake8's own processor and violation check are the reference."""
import argparse

import pytest

from gblint.project.noqa import noqa_lines, statement_lines, suppressed

from .conftest import lint
from .test_cli import BREAK_IN_LOOP

COMMENTS = [
    "# noqa", "# NOQA", "# Noqa", "# NoQA: GBL102", "# noqa: E501 g", "# noqa: g", "# noqa:foo",
    "# noqa : GBL102", "# noqa:GBL102,GBL2", "# noqa: GBL1 GBL4", "# noqa: gbl102", "# noqa:  GBL102",
    "#noqa", "# noqa: E501,W291", "# noqa:E501, GBL", "## noqa: GBL10", "# noqa: GBL102x", "# NOQA:GBL2",
]


def flake8_ignores(lines, code, line):
    """Whether flake8 itself silences ``code`` on 1-based ``line`` of ``lines``."""
    from flake8.processor import FileProcessor
    from flake8.violation import Violation
    opts = argparse.Namespace(hang_closing=False, indent_size=4, max_doc_length=None, max_line_length=79,
                              verbose=0)
    processor = FileProcessor("x.py", opts, lines=list(lines))
    physical = processor.noqa_line_for(line)
    return Violation(code, "x.py", line, 1, "", physical if physical is not None else lines[line - 1]
                     ).is_inline_ignored(False)


@pytest.mark.parametrize("comment", COMMENTS)
@pytest.mark.parametrize("code", ["GBL102", "GBL201"])
def test_comment_is_read_as_flake8_reads_it(comment, code):
    lines = [f"x = y.item()  {comment}\n"]
    assert suppressed(code, 1, noqa_lines("".join(lines))) == flake8_ignores(lines, code, 1), comment


def test_case_of_the_word_and_malformed_lists():
    assert suppressed("GBL102", 1, noqa_lines("x  # NoQA: GBL102\n"))
    assert suppressed("GBL201", 1, noqa_lines("x  # Noqa\n"))
    assert not suppressed("GBL102", 1, noqa_lines("x  # noqa: E501 g\n"))  # "g" is not a code
    assert suppressed("GBL102", 1, noqa_lines("x  # noqa:foo\n"))  # no code list: blanket, as in flake8


STATEMENTS = (
    'x = y.item() + len("""a\n'        # 1
    'b""")  # noqa: GBL102\n'           # 2
    "z = y.item() + \\\n"               # 3
    "    1  # noqa\n"                   # 4
    "w = f(y.item(),\n"                 # 5
    "      2)  # noqa\n"                # 6: brackets do not join lines (tokenize's NL)
    's = """# noqa: E501\n'             # 7
    '"""  # noqa: GBL102\n'             # 8: the first noqa of the joined lines decides
)


@pytest.mark.parametrize("line", range(1, 9))
@pytest.mark.parametrize("code", ["GBL102", "GBL201"])
def test_multi_line_statements_as_flake8(line, code):
    lines = STATEMENTS.splitlines(True)
    assert suppressed(code, line, noqa_lines(STATEMENTS)) == flake8_ignores(lines, code, line), (line, code)


def test_statement_lines():
    assert statement_lines(STATEMENTS, 1) == (1, 2)
    assert statement_lines(STATEMENTS, 3) == (3, 4)
    assert statement_lines(STATEMENTS, 5) == (5, 5)
    assert statement_lines("x = (\n", 1) is None  # does not tokenize


def test_engine_honours_mixed_case_and_ignores_words():
    assert lint(BREAK_IN_LOOP.replace("graph_break()", "graph_break()  # NoQA: GBL201")) == []
    assert [d.code for d in lint(BREAK_IN_LOOP.replace("graph_break()", "graph_break()  # noqa: E501 g"))] == ["GBL201"]
