"""What Dynamo does with the code the regions reach: the project index, calls followed, the
consequence walk (graph breaks, skipped frames, resume functions) and the verdicts' sink.

Layer 5 of gblint (``tests/test_architecture.py``: core < abstract < syntax < rules < settings < dynamo < fixing < project < frontends).
"""
