"""Scoring performance engines: a built module run on held-out scenarios.

- :mod:`tcab.performance.sandbox`: one scenario in a fresh instance of the
  module, through the arena's sandbox (preflight, bounded compile, fuel,
  memory cap, bounded output); returns the output bytes or a failure, and
  the fuel burnt.
- :mod:`tcab.performance.verdict`: an output against the output schema and
  the expected snapshots (the first mismatching tick).
- :mod:`tcab.performance.score`: the phases (smoke, then stress), a run's
  verdict and total fuel, the digest key and its cache under ``build/scores/``.
- :mod:`tcab.performance.local`: ``tcab-perf-score``, one training scenario
  scored by the same code (the run image's command).
"""
