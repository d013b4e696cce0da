"""Rewrites: the fixes the rules request, applied and predicted.

Layer 6 of gblint (``tests/test_architecture.py``: core < abstract < syntax < rules < settings < dynamo < fixing < project < frontends).
"""
