"""The certainty of a diagnostic from the conditions its break is reached under, in words.

A condition is a test as written that gblint cannot decide (:meth:`gblint.dynamo.calls.CallValues.residual`), a
mode (:data:`gblint.abstract.values.TRAIN_MODE`), an error path (:data:`gblint.abstract.values.ERROR_PATH`), or a
test that inputs are not empty (:data:`NONEMPTY`: :func:`gblint.abstract.sizes.nonempty_test`), which the default
output shows in followed packages too, as it holds for every input but an empty one
(:func:`gblint.project.reporting.conditional_shown`).
"""
from __future__ import annotations

from typing import Sequence, Tuple

from .values import MODE_TESTS, ERROR_PATH, MODE_CONDITIONS

#: the prefix of a condition that is a test that inputs are not empty
NONEMPTY = "\0nonempty:"
#: the words a condition of tests that inputs are not empty ends with
NONEMPTY_WORDS = " (true for inputs that are not empty)"


def certainty_of(conditions: Sequence[str]) -> Tuple[str, str]:
    """``(certainty, condition)`` of a diagnostic whose site is reached under ``conditions``
    (the tests, as written, that gblint cannot decide; :data:`ERROR_PATH` for an error path):
    ``("error-path", "")``, ``("conditional", "when `TEST`")`` naming the innermost test (and
    how many more; ended by :data:`NONEMPTY_WORDS` where every condition is a test that inputs are not empty), or
    ``("definite", "")``."""
    if ERROR_PATH in conditions:
        return "error-path", ""
    conditions = tuple(dict.fromkeys(conditions))  # one test met again through the calls on the way is one
    if not conditions:
        return "definite", ""
    if len(conditions) == 1 and conditions[0] in MODE_CONDITIONS:
        return "conditional", MODE_CONDITIONS[conditions[0]]
    nonempty = all(c.startswith(NONEMPTY) for c in conditions)
    named = [MODE_TESTS.get(c, c[len(NONEMPTY):] if c.startswith(NONEMPTY) else c) for c in conditions if c]
    last = named[-1] if named else ""
    # a test as written is shown as code; a condition in words that quotes its code already is not
    text = (f"when {last}" if "`" in last else f"when `{last}`") if named else "under a condition"
    if len(conditions) > 1:
        text += f" (and {len(conditions) - 1} more condition{'s' if len(conditions) > 2 else ''})"
    return "conditional", text + (NONEMPTY_WORDS if nonempty else "")
