"""The parse floor of a linter: what a tool that only parses costs, measured in one process.

Used by ``bench/run.py`` (rows ``ast``, ``libcst``, ``libcst+pos``); it can also be run alone::

    python bench/floor.py MODE PATH...        # PATH: .py files, or @LISTFILE (one path a line)

MODE:
  ast          ``ast.parse`` of every file (CPython's own parser; the floor of an ``ast`` linter)
  parse        ``libcst.parse_module`` of every file
  pos          parse, then what gblint does with each tree before its own rules run:
               ``MetadataWrapper(tree, unsafe_skip_copy=True)``, ``resolve(PositionProvider)``
               (the only metadata gblint declares) and one ``visit`` with a visitor that does
               nothing (the bare cost of libcst walking every node once)
  fields       parse, then a read-only walk over every node's dataclass fields (an explicit stack,
               a dict from node type to handler, field names cached per type): what one pass
               over the tree costs without libcst's ``visit`` machinery, which rebuilds every node
               it leaves (``_visit_and_replace_children``) and calls two hooks per attribute

The ``*_s`` phase times are CPU seconds of this process (``time.process_time``), which a busy
machine disturbs less than wall time.

Each file is read and decoded as gblint reads it (``tokenize.open``: PEP 263), and each tree is
dropped before the next file is read. Prints one JSON object on stdout::

    {"mode", "files", "lines", "failed", "read_s", "parse_s", "resolve_s", "visit_s", "libcst"}

where the ``*_s`` are CPU seconds summed over files inside this process (the whole process, with
interpreter start and imports, is what run.py times from outside).
"""
from __future__ import annotations

import dataclasses
import json
import sys
import time
import tokenize


def _paths(args):
    for a in args:
        if a.startswith("@"):
            with open(a[1:], encoding="utf-8") as fh:
                yield from (line.rstrip("\n") for line in fh if line.strip())
        else:
            yield a


def main(argv) -> int:
    if len(argv) < 2 or argv[0] not in ("ast", "parse", "pos", "fields"):
        print(__doc__, file=sys.stderr)
        return 2
    mode = argv[0]
    pc = time.process_time
    handlers, field_cache = {}, {}  # fields mode: type -> handler (none: one dict lookup per node)
    if mode == "ast":
        import ast
        parse = ast.parse
        version = None
    else:
        import libcst as cst
        from libcst.metadata import MetadataWrapper, PositionProvider
        parse = cst.parse_module
        version = getattr(cst, "__version__", None) or _dist_version("libcst")

        class Noop(cst.CSTVisitor):
            METADATA_DEPENDENCIES = (PositionProvider,)

    out = {"mode": mode, "files": 0, "lines": 0, "failed": 0, "read_s": 0.0, "parse_s": 0.0,
           "resolve_s": 0.0, "visit_s": 0.0, "libcst": version, "python": sys.version.split()[0]}
    for path in _paths(argv[1:]):
        out["files"] += 1
        t0 = pc()
        try:
            with tokenize.open(path) as fh:
                text = fh.read()
        except (OSError, SyntaxError, UnicodeDecodeError):
            out["failed"] += 1
            continue
        t1 = pc()
        out["read_s"] += t1 - t0
        out["lines"] += text.count("\n") + (1 if text and not text.endswith("\n") else 0)
        try:
            tree = parse(text)
        except Exception:  # libcst.ParserSyntaxError, SyntaxError, RecursionError, ...
            out["failed"] += 1
            out["parse_s"] += pc() - t1
            continue
        t2 = pc()
        out["parse_s"] += t2 - t1
        if mode == "fields":
            n = 0
            stack = [tree]
            while stack:
                node = stack.pop()
                n += 1
                t = type(node)
                h = handlers.get(t)
                if h is not None:
                    h(node)
                names = field_cache.get(t)
                if names is None:
                    names = field_cache[t] = [f.name for f in dataclasses.fields(t)]
                kids = []
                for name in names:
                    v = getattr(node, name)
                    if isinstance(v, cst.CSTNode):
                        kids.append(v)
                    elif type(v) in (tuple, list):
                        kids.extend(x for x in v if isinstance(x, cst.CSTNode))
                kids.reverse()
                stack.extend(kids)
            out["visit_s"] += pc() - t2
            out["nodes"] = out.get("nodes", 0) + n
        if mode == "pos":
            try:
                wrapper = MetadataWrapper(tree, unsafe_skip_copy=True)
                wrapper.resolve(PositionProvider)
                t3 = pc()
                out["resolve_s"] += t3 - t2
                wrapper.visit(Noop())  # PositionProvider is already resolved: this is the walk alone
                out["visit_s"] += pc() - t3
            except RecursionError:
                out["failed"] += 1
            del wrapper
        del tree, text
    for k in ("read_s", "parse_s", "resolve_s", "visit_s"):
        out[k] = round(out[k], 4)
    print(json.dumps(out))
    return 0


def _dist_version(name):
    try:
        from importlib.metadata import version
        return version(name)
    except Exception:
        return None


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
