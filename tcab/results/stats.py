"""The estimators the report uses to say how sure a figure is (docs/results.md, "Statistics").

Standard library only (the report must not import numpy: see
:mod:`tcab.results.report`). Each function is the textbook estimator, tested
against hand-computed values and against statsmodels/scipy where they
implement the same one (tests/results/test_stats.py):

- :func:`wilson`: the Wilson score interval of a binomial proportion
  (statsmodels ``proportion_confint(method="wilson")``);
- :func:`pass_at_k`: the unbiased pass@k estimator of Chen et al. (2021),
  ``1 - C(n-c, k) / C(n, k)``, defined when ``n >= k``;
- :func:`bootstrap_mean`: the mean and its percentile bootstrap interval,
  resampling the values (cases) with replacement, seeded so that a report is
  reproducible (scipy ``bootstrap(method="percentile")`` draws differently,
  so only its interval's neighbourhood is comparable).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

#: The two-sided 95% normal quantile (scipy.stats.norm.ppf(0.975)).
Z95 = 1.959963984540054
#: Resamples and seed of every bootstrap interval the report shows.
RESAMPLES = 2000
#: How many values a bootstrap draws at once (its memory: a list of this many floats).
DRAW_BATCH = 1 << 16
SEED = 0


@dataclass(frozen=True, slots=True)
class Interval:
    """An estimate and its 95% interval."""

    estimate: float
    low: float
    high: float


def wilson(successes: int, n: int, z: float = Z95) -> Interval | None:
    """The success rate ``successes/n`` and its Wilson score interval; None when ``n`` is 0.

    Raises ValueError for counts outside 0 <= successes <= n.
    """
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"wilson: expected 0 <= successes <= n, got {successes}/{n}")
    if n == 0:
        return None
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # Clamp the rounding dust at the ends (0/n gives low = 0 exactly on paper).
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half))


def pass_at_k(n: int, c: int, k: int) -> float | None:
    """The unbiased estimate that at least one of ``k`` runs drawn without
    replacement from ``n`` runs (``c`` of them successes) succeeds; None when
    ``n < k`` (too few repeats to say).

    Computed as a product of ``k`` ratios, C(n−c, k)/C(n, k) = Π (n−c−i)/(n−i)
    for i < k (no huge binomials, and k steps rather than c: a report takes
    pass@1, 5 and 10 of every group). Raises ValueError for bad counts.
    """
    if k < 1 or n < 0 or c < 0 or c > n:
        raise ValueError(f"pass_at_k: expected k >= 1 and 0 <= c <= n, got n={n} c={c} k={k}")
    if n < k:
        return None
    if n - c < k:
        return 1.0
    product = 1.0
    for i in range(k):
        product *= (n - c - i) / (n - i)
    return 1.0 - product


def interval_text(i: Interval | None, signed: bool = False) -> str:
    """An estimate and its interval as percentages, as every presenter shows
    one: ``80% [55%, 100%]``, or ``+12.0% [-3.0%, +25.0%]`` for a signed
    difference; an em dash for none."""
    if i is None:
        return "—"
    f = "{:+.1%}" if signed else "{:.0%}"
    return f"{f.format(i.estimate)} [{f.format(i.low)}, {f.format(i.high)}]"


def _quantile(ordered: Sequence[float], q: float) -> float:
    """The ``q`` quantile of sorted values, linear between order statistics
    (numpy's default, so the interval matches numpy.percentile on the same draws)."""
    pos = q * (len(ordered) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def _draw(values: list[float], k: int, rng: random.Random) -> list[float]:
    """``k`` values drawn uniformly with replacement from ``values``.

    Up to 256 values (a report's cases per harness and model), each draw is
    one random byte, kept when below the largest multiple of ``n`` (so every
    index is equally likely) and reduced modulo ``n``: the rejection and the
    reduction run inside ``bytes.translate``, not a Python loop per draw
    (7 bootstraps of 15 cases: 26 -> 6 ms). More values use ``choices``."""
    n = len(values)
    if n > 256:
        return rng.choices(values, k=k)
    keep = 256 - 256 % n
    reject, index = bytes(range(keep, 256)), bytes(i % n for i in range(256))
    picked = bytearray()
    while len(picked) < k:
        # Enough bytes that one round nearly always suffices (at most half are rejected).
        picked += rng.randbytes(2 * (k - len(picked)) + 64).translate(index, reject)
    return list(map(values.__getitem__, picked[:k]))


def bootstrap_mean(values: Sequence[float], resamples: int = RESAMPLES, seed: int = SEED,
                   confidence: float = 0.95) -> Interval | None:
    """The mean of ``values`` and its percentile bootstrap interval: ``resamples``
    resamples of ``len(values)`` values drawn with replacement (a
    ``random.Random(seed)``: the same values give the same interval).
    None for no values; one value gives a zero-width interval.
    """
    values = list(values)
    n = len(values)
    if n == 0:
        return None
    mean = math.fsum(values) / n
    if n == 1 or min(values) == max(values):
        return Interval(mean, mean, mean)
    rng, means = random.Random(seed), []
    # Drawn in batches of about DRAW_BATCH values: memory stays flat however many cases.
    per_batch = max(1, DRAW_BATCH // n)
    for start in range(0, resamples, per_batch):
        drawn = iter(_draw(values, n * min(per_batch, resamples - start), rng))
        means += (total / n for total in map(sum, zip(*[drawn] * n, strict=True)))  # groups of n
    means.sort()
    alpha = (1 - confidence) / 2
    return Interval(mean, _quantile(means, alpha), _quantile(means, 1 - alpha))


@dataclass(frozen=True, slots=True)
class Paired:
    """Two subjects compared on the cases both ran: the mean of (a − b) over
    those cases with its paired bootstrap interval, and who won how many."""

    cases: int
    difference: Interval | None
    a_wins: int
    b_wins: int
    ties: int


def paired(a: Sequence[float], b: Sequence[float], resamples: int = RESAMPLES, seed: int = SEED) -> Paired:
    """Compare per-case figures ``a[i]`` and ``b[i]`` (the same case at the
    same index): resampling cases keeps each case's pair together."""
    if len(a) != len(b):
        raise ValueError(f"paired: {len(a)} values against {len(b)}")
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    return Paired(len(diffs), bootstrap_mean(diffs, resamples, seed),
                  sum(d > 0 for d in diffs), sum(d < 0 for d in diffs), sum(d == 0 for d in diffs))


__all__ = ["RESAMPLES", "SEED", "Z95", "Interval", "Paired", "bootstrap_mean", "interval_text", "pass_at_k", "paired",
           "wilson"]
