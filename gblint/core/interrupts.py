"""How gblint stops when asked to: SIGTERM as an exception.

Kept apart from the command line so that every layer that cleans up on the way out (the
command line, ``gblint confirm``'s process reaper) can name it without importing the front end.
"""
from __future__ import annotations


class Terminated(BaseException):
    """SIGTERM, raised in the main thread (like KeyboardInterrupt for SIGINT) so that cleanup runs
    before the process exits: ``finally`` blocks remove temporary files, worker processes are
    stopped."""
