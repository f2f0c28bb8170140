"""Helpers shared by the tests, imported as ``tests.support.<module>``
(pyproject puts the repository root on ``sys.path``; no test imports a
conftest). Fixtures that wrap them are in tests/conftest.py.

- ``paths``: the repository, the sample catalog, the tests' own catalogs.
- ``settings``: Settings in a temporary folder; ``tcab`` in a subprocess.
- ``harness_files``: harness definitions written on the fly.
- ``run_folders``: the one writer of test run folders (the real run.json writer).
- ``arena_corpus``: WAT controllers, good and hostile.
- ``results_rows``: row builders for the record_* API.
- ``capture``: the capture sample case's rules module and hand-built states.
"""
