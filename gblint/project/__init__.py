"""One run over a project: the engine, the summary cache, stored reports, noqa handling.

Layer 7 of gblint (``tests/test_architecture.py``: core < abstract < syntax < rules < settings < dynamo < fixing < project < frontends).
"""
