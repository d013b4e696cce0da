"""Configuration: ``[tool.gblint]`` and its schema, the rule catalogue, the files a run checks.

Layer 4 of gblint (``tests/test_architecture.py``: core < abstract < syntax < rules < settings < dynamo < fixing < project < frontends).
"""
