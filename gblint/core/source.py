"""Reading and parsing source files; failures become diagnostics, never tracebacks.

Three things here keep a run alive on hostile input:

* :func:`decode_source` decodes like the interpreter (PEP 263 cookie, BOM) and turns every
  failure into a ``GBL002`` diagnostic that names the line and says what to do.
* :func:`parse_source` first asks CPython's own compiler whether the file nests deeper than
  Python accepts (more than 200 brackets, a ``-`` chain thousands long...). libcst's native
  parser recurses on the C stack and would overflow it on such input, which kills the process
  with a segmentation fault no ``except`` can catch. A file Python cannot compile cannot run
  under ``torch.compile`` either, so ``GBL001`` is the correct answer for it.
* :func:`run_deep` runs a function in a thread with a large stack and a raised recursion limit,
  so deep-but-valid trees (a 1,000-term sum) are parsed and analysed instead of failing with
  ``RecursionError``.
"""
from __future__ import annotations

import ast
import difflib
import functools
import io
import os
import re
import stat
import sys
import threading
import tokenize
import warnings
from typing import TYPE_CHECKING, Callable, List, Optional, Tuple, TypeVar

from .diagnostics import Diagnostic

if TYPE_CHECKING:  # libcst is imported where a file is parsed: a run whose summaries are cached never needs it
    import libcst as cst

T = TypeVar("T")

#: Stack of the thread :func:`run_deep` starts. Only the pages a deep recursion touches are
#: ever committed, so a large reservation costs address space, not memory.
DEEP_STACK_BYTES = 512 * 1024 * 1024
#: Recursion limit while :func:`run_deep` runs; 100,000 frames fit in the stack above with a
#: wide margin even when every frame goes through C (measured: 128 MiB suffices on 3.11).
DEEP_RECURSION_LIMIT = 100_000
#: Longest chain of ``and``/``or`` in one statement that is handed to libcst. CPython keeps a
#: chain flat, libcst nests one node per operator; the native parser's stack is the limit.
MAX_BOOL_CHAIN = 10_000

_DEPTH_MESSAGES = ("too many nested parentheses", "too complex", "too many levels of indentation",
                   "too many indentation levels", "maximum recursion depth")


class SourceError(Exception):
    """A file that cannot be read, decoded or parsed; ``diagnostic`` says why."""

    def __init__(self, diagnostic: Diagnostic):
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def _diag(path: str, code: str, name: str, message: str, line: int = 1, column: int = 1,
          hint: str = "") -> Diagnostic:
    return Diagnostic(path=path, line=line, column=column, end_line=line, end_column=column, code=code, name=name,
                      effect="info", message=message, hint=hint)


def describe_exception(exc: BaseException, limit: int = 300) -> str:
    """``"TypeName: first line of the message"``, at most ``limit`` characters, never raising.

    ``str()`` of an exception can itself fail or be enormous: libcst's ``KeyError(node)`` prints
    the whole subtree, and printing a deep one raises ``RecursionError``.
    """
    name = type(exc).__name__
    try:
        text = str(exc)
    except BaseException:  # noqa: B036 - any failure to print must not replace the original error
        text = "<message could not be printed>"
    text = text.strip().splitlines()[0] if text.strip() else ""
    if len(text) > limit:
        text = text[:limit] + "..."
    return f"{name}: {text}" if text else name


def caused_by_recursion(exc: BaseException) -> bool:
    """True when ``exc`` is, or was raised while handling, a ``RecursionError`` or a stack
    ``MemoryError`` (libcst turns a ``RecursionError`` in its metadata providers into a
    ``KeyError``)."""
    seen = set()
    cur: Optional[BaseException] = exc
    while cur is not None and id(cur) not in seen:
        if isinstance(cur, RecursionError):
            return True
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
    return False


def too_deep(path: str, what: str = "analyse", line: int = 1) -> SourceError:
    """The ``GBL001`` error for a file nested past what gblint can walk."""
    return SourceError(_diag(path, "GBL001", "syntax-error", f"file is nested too deeply to {what}", line,
                             hint="Split the deeply nested expression or block into smaller ones."))


# ------------------------------------------------------------------ reading and decoding

def read_source(path: str) -> str:
    """Read ``path`` and decode it as Python source (PEP 263 coding cookie, BOM).

    Raises SourceError (GBL002) when the file cannot be read (missing, a folder, a FIFO or
    device, no permission) or decoded.
    """
    return decode_source(read_bytes(path), path)


def text_digest(text: str) -> str:
    """A digest of source text as gblint read it (what :func:`digest` gives for a readable file)."""
    import hashlib
    return "t:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def digest(path: str) -> str:
    """A digest of what gblint reads at ``path``: its decoded text's (:func:`text_digest`); for a file that
    does not decode, its bytes'; ``"-"`` for one that cannot be read (missing, not a regular file)."""
    import hashlib
    try:
        data = read_bytes(path)
    except SourceError:
        return "-"
    try:
        return text_digest(decode_source(data, path))
    except SourceError:
        return "b:" + hashlib.sha256(data).hexdigest()


def read_bytes(path: str) -> bytes:
    """The bytes of the regular file ``path`` (what :func:`read_source` decodes).

    Raises SourceError (GBL002) when the file cannot be read (missing, a folder, a FIFO or
    device, no permission).
    """
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            # a FIFO would block the run forever, a device could be endless
            raise SourceError(_diag(path, "GBL002", "unreadable-file", "cannot read file: not a regular file"))
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise SourceError(_diag(path, "GBL002", "unreadable-file", f"cannot read file: {exc.strerror or exc}"))


def decode_source(data: bytes, path: str) -> str:
    """Decode bytes like the interpreter does (PEP 263 cookie, UTF-8 BOM; default UTF-8).

    Returns the text without a BOM. Raises SourceError (GBL002) for an unknown or
    conflicting cookie, bytes invalid in the declared encoding, or NUL bytes.
    """
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # unknown encoding, BOM/cookie conflict, undecodable first lines
        msg = getattr(exc, "msg", None) or str(exc)
        raise SourceError(_diag(path, "GBL002", "unreadable-file", f"cannot decode file: {msg}",
                                hint="Fix the `# -*- coding: ... -*-` line, or save the file as UTF-8."))
    try:
        text = data.decode(encoding)
    except LookupError as exc:  # a cookie that names a codec which is not a text encoding (rot13)
        raise SourceError(_diag(path, "GBL002", "unreadable-file", f"cannot decode file: {exc}"))
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        bad = data[exc.start:exc.start + 1].hex().upper()
        raise SourceError(_diag(path, "GBL002", "unreadable-file",
                                f"cannot decode file: byte 0x{bad} is not valid {encoding}", line, column,
                                hint="Save the file as UTF-8, or declare its encoding on the first or second "
                                     "line (PEP 263), e.g. `# -*- coding: latin-1 -*-`."))
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise SourceError(_diag(path, "GBL002", "unreadable-file", "file contains NUL bytes; not Python source", line))
    return text


# ------------------------------------------------------------------ parsing

def parse_source(text: str, path: str, python_version: Optional[Tuple[int, int]] = None) -> cst.Module:
    """Parse ``text`` with libcst, in a large-stack thread (:func:`run_deep`).

    ``python_version`` selects libcst's grammar (None: libcst's default, the newest it knows).
    Raises SourceError (GBL001) for a syntax error (with its position), for nesting deeper than
    CPython accepts or than libcst can parse, and for any other parser failure.
    """
    import libcst as cst
    check_nesting(text, path)
    try:
        return run_deep(_parse, text, python_version)
    except cst.ParserSyntaxError as exc:
        python_error = _python_syntax_error(text, path)
        if python_error is not None and python_error.lineno:
            # both parsers refuse it: CPython's message and position are the ones users know
            msg, line, column = python_error.msg, python_error.lineno, python_error.offset or 1
        else:
            msg = exc.message or (str(exc).splitlines()[0] if str(exc) else "invalid syntax")
            line, column = exc.raw_line or 1, (exc.raw_column or 0) + 1
            if python_error is None:  # CPython accepts it: a limit of libcst's, not the user's mistake
                feed = _form_feed_in_indentation(text)
                if feed is not None:
                    raise SourceError(_diag(
                        path, "GBL001", "syntax-error",
                        f"gblint's parser ({_parser_name()}) cannot parse this file, although Python accepts it: "
                        f"line {feed} has a form feed inside its indentation", feed, 1,
                        hint="Python restarts the indentation count after a form feed (\\f) and libcst does not; "
                             "remove the form feed from the indentation, or exclude the file."))
                raise SourceError(_diag(path, "GBL001", "syntax-error",
                                        f"gblint's parser ({_parser_name()}) cannot parse this file, although "
                                        f"Python accepts it: {msg}", line, max(1, column), hint=_syntax_hint()))
        raise SourceError(_diag(path, "GBL001", "syntax-error", f"syntax error: {msg}", line, max(1, column),
                                hint=_syntax_hint()))
    except Exception as exc:  # libcst raises plain exceptions on some malformed input
        if caused_by_recursion(exc):
            raise too_deep(path, "parse")
        raise SourceError(_diag(path, "GBL001", "syntax-error", f"cannot parse file: {describe_exception(exc)}"))


@functools.lru_cache(maxsize=None)
def _parser_name() -> str:
    try:
        from importlib.metadata import version
        return f"libcst {version('libcst')}"
    except Exception:  # metadata missing in odd installs: the name is only for the message
        return "libcst"


def _syntax_hint() -> str:
    return (f"If the file is valid for a newer Python than gblint's parser ({_parser_name()}) knows, upgrade "
            "libcst or exclude the file.")


def _form_feed_in_indentation(text: str) -> Optional[int]:
    """The first line (1-based) with a statement whose indentation has a form feed, where
    CPython's tokenizer restarts the column count and libcst's does not; None when there is none."""
    for number, line in enumerate(text.split("\n"), 1):
        content = line.lstrip(" \t\f")
        if "\f" in line[:len(line) - len(content)] and content.strip():
            return number
    return None


def _parse(text: str, python_version: Optional[Tuple[int, int]]) -> cst.Module:
    import libcst as cst
    if python_version is not None:
        config = cst.PartialParserConfig(python_version=f"{python_version[0]}.{python_version[1]}")
        return cst.parse_module(text, config)
    return cst.parse_module(text)


_BOOL_WORD = re.compile(r"(?<![^\W\d])(?:and|or)\b")


def check_nesting(text: str, path: str) -> None:
    """Raise SourceError (GBL001) when ``text`` nests deeper than the running CPython accepts,
    or chains more than :data:`MAX_BOOL_CHAIN` ``and``/``or`` in one statement.

    Python's compiler (never executing anything) bounds every other kind of nesting: it
    rejects more than 200 open brackets, 100 indentation levels, and expression trees a few
    thousand deep. Other syntax errors are left to libcst, which may know newer syntax than
    the running interpreter. Call it from a thread at the normal recursion limit: on Python
    3.11 the compiler's depth limit scales with ``sys.getrecursionlimit()``.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like are not our business
            compile(text, path, "exec", dont_inherit=True)
    except (RecursionError, MemoryError):
        raise too_deep(path, "parse: Python itself cannot compile it")
    except SyntaxError as exc:
        msg = str(getattr(exc, "msg", "") or "")
        if any(m in msg for m in _DEPTH_MESSAGES):
            raise SourceError(_diag(path, "GBL001", "syntax-error", f"syntax error: {msg}", exc.lineno or 1,
                                    max(1, exc.offset or 1),
                                    hint="Split the deeply nested expression or block into smaller ones."))
    except Exception:  # ValueError for NUL bytes, UnicodeEncodeError for lone surrogates: libcst reports them
        pass
    if len(text) > 2 * MAX_BOOL_CHAIN and len(_BOOL_WORD.findall(text)) > MAX_BOOL_CHAIN:
        line = _longest_bool_chain(text)
        if line:
            raise SourceError(_diag(path, "GBL001", "syntax-error",
                                    f"a statement chains more than {MAX_BOOL_CHAIN} `and`/`or`: too deep to parse",
                                    line, hint="Use all(...) / any(...) over a sequence instead."))


def compile_error(text: str, path: str) -> Optional[str]:
    """Why CPython's own compiler rejects ``text`` (``"line N: message"``), or None when it compiles.

    Stricter than libcst, which accepts code the compiler refuses (a ``global`` after an
    assignment, ``await`` outside an ``async def``). Warnings are silenced; nothing is run.
    ``text`` is a str, ``path`` only names the file in messages. Raises nothing.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return f"line {exc.lineno or 1}: {exc.msg}"
    except Exception as exc:  # RecursionError, MemoryError, ValueError (NUL bytes)
        return describe_exception(exc)
    return None


#: Default of ``max-file-size`` (bytes). libcst's parser costs about 30-90 µs and 2-4 KB per
#: token (measured: a 400 KB one-line list literal, 23 s and 800 MB; a 5 MB one, 132 s and
#: 11 GB). The largest file of the torch package is 1.4 MB with about 270k tokens.
MAX_FILE_SIZE = 2_000_000
_TOKEN = re.compile(r"\w+|[^\w\s]")


def check_size(text: str, path: str, max_file_size: Optional[int] = MAX_FILE_SIZE) -> None:
    """Raise SourceError (GBL002) when ``text`` is too large to hand to libcst: more than
    ``max_file_size`` bytes (UTF-8), a line longer than a 20th of it, or more tokens (roughly
    counted) than a quarter of it; GBL001 instead when such a line or count is nested deeper
    than CPython itself compiles (:func:`check_nesting`). ``max_file_size`` None or 0 means no
    limit. Cheap: the lines and tokens of a small file are never counted."""
    if not max_file_size or max_file_size <= 0:
        return
    hint = "Raise `max-file-size` in [tool.gblint] to check it, or exclude the file."
    size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    if size > max_file_size:
        raise SourceError(_diag(path, "GBL002", "unreadable-file", f"file is too large to analyse ({size} bytes > "
                                f"{max_file_size}); raise max-file-size to check it", hint=hint))
    max_line = max_file_size // 20
    if len(text) > max_line:
        lines = split_lines(text, keepends=False)
        longest = max(range(len(lines)), key=lambda i: len(lines[i]))
        if len(lines[longest]) > max_line:
            check_nesting(text, path)  # what CPython cannot compile either is a syntax error (GBL001)
            raise SourceError(_diag(path, "GBL002", "unreadable-file",
                                    f"line {longest + 1} is too long to analyse ({len(lines[longest])} characters > "
                                    f"{max_line}); raise max-file-size to check it", longest + 1, hint=hint))
    max_tokens = max_file_size // 4
    if len(text) > max_tokens:
        tokens = sum(1 for _ in _TOKEN.finditer(text))
        if tokens > max_tokens:
            check_nesting(text, path)
            raise SourceError(_diag(path, "GBL002", "unreadable-file",
                                    f"file is too large to analyse (about {tokens} tokens > {max_tokens}); "
                                    "raise max-file-size to check it", hint=hint))


def _python_syntax_error(text: str, path: str) -> Optional[SyntaxError]:
    """The error CPython's parser (not its compiler: no "'return' outside function") finds, or None."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as exc:
        return exc
    except Exception:  # RecursionError, MemoryError, ValueError: no position worth reporting
        pass
    return None


def _longest_bool_chain(text: str) -> int:
    """The first line of a statement with more than MAX_BOOL_CHAIN ``and``/``or``, else 0;
    1 when the text does not tokenize (where statements end is then unknown)."""
    count, start = 0, 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.NAME and tok.string in ("and", "or"):
                if count == 0:
                    start = tok.start[0]
                count += 1
                if count > MAX_BOOL_CHAIN:
                    return start
            elif tok.type == tokenize.NEWLINE:
                count = 0
    except (tokenize.TokenError, SyntaxError):
        return 1  # cannot tell where statements end: refuse rather than risk the parser's stack
    return 0


# ------------------------------------------------------------------ deep recursion

_local = threading.local()
_stack_lock = threading.Lock()
_limit_lock = threading.Lock()
_limit_users = 0
_saved_limit = 0


def in_deep_thread() -> bool:
    """True inside a function called by :func:`run_deep`."""
    return getattr(_local, "deep", False)


def run_deep(fn: Callable[..., T], *args, **kwargs) -> T:
    """Call ``fn(*args, **kwargs)`` in a thread with a :data:`DEEP_STACK_BYTES` stack and the
    recursion limit raised to :data:`DEEP_RECURSION_LIMIT`; return its result or re-raise
    its exception in the caller.

    libcst's visitors and code generation recurse once or more per tree level, so the default
    limit of 1,000 fails on a 300-term sum that Python runs happily. Inside ``run_deep`` a call
    is direct. Where the platform refuses the stack size or a thread, ``fn`` runs in the
    calling thread with the normal limit (deep files then fail with ``RecursionError``, which
    callers turn into ``GBL001``). The recursion limit is process-wide: it is raised while any
    ``run_deep`` call runs and restored when the last one ends. Python 3.12 and later also cap
    C-level recursion on their own, so there the deepest trees may still end as ``GBL001``.
    """
    if in_deep_thread():
        return fn(*args, **kwargs)
    outcome: dict = {}

    def target() -> None:
        _local.deep = True
        try:
            outcome["value"] = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: B036 - handed to the caller's thread
            outcome["error"] = exc

    thread = None
    with _stack_lock:  # the stack size is process-wide: set it only around our own start
        try:
            previous = threading.stack_size(DEEP_STACK_BYTES)
        except (ValueError, RuntimeError):
            previous = None
        if previous is not None:
            try:
                thread = threading.Thread(target=target, name="gblint-deep", daemon=True)
                _raise_limit()
                try:
                    thread.start()
                except BaseException:
                    _restore_limit()
                    raise
            except RuntimeError:  # cannot start a thread (resource limits)
                thread = None
            finally:
                threading.stack_size(previous)
    if thread is None:
        return fn(*args, **kwargs)
    try:
        thread.join()
    finally:
        _restore_limit()
    if "error" in outcome:
        exc = outcome.pop("error")
        try:
            raise exc
        finally:
            del exc  # no reference cycle through the traceback
    return outcome["value"]


def _raise_limit() -> None:
    global _limit_users, _saved_limit
    with _limit_lock:
        if _limit_users == 0:
            _saved_limit = sys.getrecursionlimit()
            if _saved_limit < DEEP_RECURSION_LIMIT:
                sys.setrecursionlimit(DEEP_RECURSION_LIMIT)
        _limit_users += 1


def _restore_limit() -> None:
    global _limit_users
    with _limit_lock:
        _limit_users -= 1
        # leave a limit someone else set meanwhile alone
        if _limit_users == 0 and _saved_limit < DEEP_RECURSION_LIMIT == sys.getrecursionlimit():
            sys.setrecursionlimit(_saved_limit)


#: Where Python ends a line (the tokenizer, ``compile``, LSP): ``\r\n``, ``\r``, ``\n``. Not
#: :meth:`str.splitlines`, which also breaks at ``\f``, ``\v``, ``\x1c``-``\x1e``, ``\x85``,
#: ``\u2028`` and ``\u2029``, so its line numbers drift from Python's and the editor's.
LINE_BREAK = re.compile(r"\r\n|\r|\n")
_KEEPENDS = re.compile(rf"[^\r\n]*(?:{LINE_BREAK.pattern})|[^\r\n]+$")


def split_lines(text: str, keepends: bool = True) -> List[str]:
    """The lines of ``text``, split where Python ends lines (:data:`LINE_BREAK`).

    With ``keepends`` (the default) each line keeps its ending and ``"".join`` gives ``text``
    back: ``"a\\r\\nb"`` -> ``["a\\r\\n", "b"]``, ``""`` -> ``[]``. Without, the lines as an
    editor numbers them, one more than there are line breaks: ``"a\\nb\\n"`` ->
    ``["a", "b", ""]``, ``""`` -> ``[""]``."""
    if not keepends:
        return LINE_BREAK.split(text)
    return [line for line in _KEEPENDS.findall(text) if line]


def restore_line_endings(old: str, new: str, default: str = "\n", loose: bool = False) -> str:
    """``new`` (an edit of ``old``) with the line endings the file ``old`` would give it.

    A line of ``new`` that ends in a bare ``\\n`` gets, when it is a line of ``old`` (matched in
    order by its text; ``loose`` also ignores indentation), that line's ending; otherwise (an
    inserted line) the ending of the line above it in the result, else of the first kept line
    below it, else ``default``. Lines that end in ``\\r\\n`` or ``\\r`` are left as they are, so
    a file that mixes endings keeps each line's own. Both arguments are str; raises nothing.
    """
    if "\n" not in new:
        return new
    styles = {_ending(line) for line in split_lines(old)} - {""}
    if len(styles) == 1:  # one style in the whole file (the usual case): no matching needed
        style = styles.pop()
        return new if style == "\n" else "".join(
            line[:-1] + style if _ending(line) == "\n" else line for line in split_lines(new))
    a, b = split_lines(old), split_lines(new)

    def body(line: str) -> str:
        line = line.rstrip("\r\n")
        return line.strip() if loose else line

    endings: list = [None] * len(b)
    # common head and tail first: the matcher is quadratic in the worst case, edits are small
    head = 0
    while head < min(len(a), len(b)) and body(a[head]) == body(b[head]):
        endings[head] = _ending(a[head])
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and body(a[-1 - tail]) == body(b[-1 - tail]):
        endings[len(b) - 1 - tail] = _ending(a[-1 - tail])
        tail += 1
    # autojunk: lines frequent in a long middle (blank lines...) are only matched next to others
    matcher = difflib.SequenceMatcher(None, [body(x) for x in a[head:len(a) - tail]],
                                      [body(x) for x in b[head:len(b) - tail]])
    for i, j, n in matcher.get_matching_blocks():
        for k in range(n):
            endings[head + j + k] = _ending(a[head + i + k])
    out = []
    above = ""
    for i, line in enumerate(b):
        own = _ending(line)
        if own == "\n":
            own = endings[i] or above or next((e for e in endings[i + 1:] if e), default)
            line = line[:-1] + own
        above = own or above
        out.append(line)
    return "".join(out)


def _ending(line: str) -> str:
    """The line ending ``line`` ends with (``\\r\\n``, ``\\n``, ``\\r``), or ``""``."""
    if line.endswith("\r\n"):
        return "\r\n"
    return line[-1] if line and line[-1] in "\r\n" else ""
