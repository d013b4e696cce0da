"""What the program may change after building objects (gblint.abstract.changes), taken in a file at a time as
the interpreter reads files (issue 39): the files' order must not matter, and a file read later
may make a store read earlier reachable (its caller comes later)."""
import itertools
import textwrap

from gblint.abstract.changes import ProgramChanges, program_changes
from gblint.settings.config import Settings
from gblint.project.engine import summarize

FILES = {
    "lib.py": '''
        import torch

        class Config:
            def __init__(self):
                self.use_cache = False

        def enable(cfg):
            cfg.use_cache = True

        def never(cfg):
            cfg.unused = True

        def toggle():
            global DEBUG
            DEBUG = True
        ''',
    "helpers.py": '''
        from lib import enable

        def setup(log, cfg):
            enable(cfg)
            cfg.reset()
        ''',
    "driver.py": '''
        from helpers import setup
        from lib import Config, toggle

        def main():
            cfg = Config()
            setup(None, cfg)
            register(toggle)
        ''',
}


def _summaries():
    return [summarize(textwrap.dedent(text), path, Settings()) for path, text in FILES.items()]


def test_any_order_of_files_gives_what_all_files_at_once_give():
    summaries = _summaries()
    whole = program_changes(summaries, ["main"])
    assert "use_cache" in whole[0] and "unused" not in whole[0]
    assert "reset" in whole[1]
    assert ("lib.py", "DEBUG") in whole[2]
    for order in itertools.permutations(summaries):
        changes = ProgramChanges()
        for s in order:
            changes.add(s)
            changes.result()  # asked between files, as the interpreter does
        changes.drive(["main"])
        assert changes.result() == whole


def test_a_store_becomes_reachable_only_when_its_caller_is_read():
    lib, helpers, driver = _summaries()
    changes = ProgramChanges()
    changes.add(lib)
    changes.drive(["main"])
    assert "use_cache" not in changes.result()[0]  # nothing read so far calls enable
    changes.add(helpers)
    assert "use_cache" not in changes.result()[0]  # setup is not called yet
    changes.add(driver)
    assert "use_cache" in changes.result()[0] and ("lib.py", "DEBUG") in changes.result()[2]
    assert "unused" not in changes.result()[0]
