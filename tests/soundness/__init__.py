"""The soundness test of issue 38: generated programs, run under Dynamo, against gblint's definite diagnostics.

- :mod:`tests.soundness.generator`: :class:`~tests.soundness.generator.Spec` (one program's choices), the
  hypothesis strategy :func:`~tests.soundness.generator.specs` and :func:`~tests.soundness.generator.render`
  (the program's source text).
- :mod:`tests.soundness.runner`: runs many programs in one warm child process (gblint's runtime observer, as
  ``scripts/measure_fixtures.py`` installs it), checks each with gblint, and compares
  (:func:`~tests.soundness.runner.judge`).

``tests/test_soundness.py`` is the CI test (a few hundred programs); ``scripts/soundness.py --count 10000`` the
long run.
"""
