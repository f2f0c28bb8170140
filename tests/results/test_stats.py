"""The estimators of tcab.results.stats against hand-computed values and
against statsmodels/scipy where they implement the same estimator."""

from __future__ import annotations

import math
import random

import pytest

from tcab.results.stats import bootstrap_mean, paired, pass_at_k, wilson


def test_wilson_by_hand():
    # 8/10, z = 1.96: centre (0.8 + 0.19208) / 1.38416 = 0.71675; half width
    # 1.96 / 1.38416 * sqrt(0.016 + 0.009604) = 0.22664 -> [0.4902, 0.9434].
    i = wilson(8, 10, z=1.96)
    assert i.estimate == 0.8
    assert i.low == pytest.approx(0.49016, abs=1e-4) and i.high == pytest.approx(0.94332, abs=1e-4)


def test_wilson_edges():
    assert wilson(0, 0) is None
    none = wilson(0, 5)
    assert none.estimate == 0 and none.low == 0 and 0.4 < none.high < 0.45  # 3.84/8.84 = 0.4345
    assert none.high == pytest.approx(0.43448, abs=1e-4)
    every = wilson(5, 5)
    assert every.high == 1 and every.low == pytest.approx(1 - 0.43448, abs=1e-4)
    for bad in ((6, 5), (-1, 5), (1, -1)):
        with pytest.raises(ValueError):
            wilson(*bad)


@pytest.mark.parametrize("count,n", [(0, 1), (1, 1), (3, 7), (8, 10), (50, 100), (1, 200), (199, 200)])
def test_wilson_matches_statsmodels(count, n):
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(count, n, alpha=0.05, method="wilson")
    i = wilson(count, n)
    assert i.low == pytest.approx(low, abs=1e-12) and i.high == pytest.approx(high, abs=1e-12)


def test_pass_at_k_by_hand():
    # n=5, c=2, k=2: 1 - C(3,2)/C(5,2) = 1 - 3/10 = 0.7
    assert pass_at_k(5, 2, 2) == pytest.approx(0.7)
    # pass@1 is the success rate
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    # fewer failures than k: some success is certain in any k draws
    assert pass_at_k(5, 4, 2) == 1.0
    assert pass_at_k(5, 0, 3) == 0.0
    assert pass_at_k(3, 1, 5) is None  # not enough repeats for k
    for bad in ((5, 6, 1), (5, 2, 0), (-1, 0, 1)):
        with pytest.raises(ValueError):
            pass_at_k(*bad)


@pytest.mark.parametrize("n,c,k", [(10, 3, 5), (200, 17, 10), (20, 0, 1), (1000, 999, 100), (30, 12, 30)])
def test_pass_at_k_matches_the_binomial_formula(n, c, k):
    from scipy.special import comb

    expected = 1 - comb(n - c, k, exact=True) / comb(n, k, exact=True)
    assert pass_at_k(n, c, k) == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_bootstrap_degenerate_cases():
    assert bootstrap_mean([]) is None
    one = bootstrap_mean([0.4])
    assert (one.estimate, one.low, one.high) == (0.4, 0.4, 0.4)
    same = bootstrap_mean([0.5, 0.5, 0.5])
    assert (same.low, same.high) == (0.5, 0.5)


def test_bootstrap_of_two_values_by_hand():
    # Two cases 0 and 1: a resample's mean is 0 (1/4), 0.5 (1/2) or 1 (1/4),
    # so the 2.5% and 97.5% percentiles of 2000 resamples are 0 and 1.
    i = bootstrap_mean([0.0, 1.0])
    assert i.estimate == 0.5 and i.low == 0.0 and i.high == 1.0


def test_bootstrap_is_reproducible_and_seeded():
    rng = random.Random(3)
    values = [rng.random() for _ in range(30)]
    assert bootstrap_mean(values) == bootstrap_mean(values)
    assert bootstrap_mean(values, seed=1) != bootstrap_mean(values, seed=0)


def test_bootstrap_matches_scipy_percentile_interval():
    """scipy draws its resamples differently, so the intervals agree to the
    Monte Carlo error of 2000 resamples, not exactly; both lie around the
    normal interval mean ± 1.96·sd/sqrt(n)."""
    import numpy as np
    from scipy.stats import bootstrap

    rng = random.Random(7)
    values = [rng.betavariate(2, 3) for _ in range(40)]
    ours = bootstrap_mean(values)
    theirs = bootstrap((np.array(values),), np.mean, confidence_level=0.95, n_resamples=20000,
                       method="percentile", random_state=1).confidence_interval
    sd = math.sqrt(sum((v - ours.estimate) ** 2 for v in values) / (len(values) - 1)) / math.sqrt(len(values))
    assert ours.low == pytest.approx(theirs.low, abs=0.25 * sd)
    assert ours.high == pytest.approx(theirs.high, abs=0.25 * sd)
    assert ours.low < ours.estimate < ours.high


def test_paired_counts_wins_and_keeps_pairs():
    a = [1.0, 0.8, 0.5, 0.2]
    b = [0.5, 0.8, 0.7, 0.0]
    p = paired(a, b)
    assert (p.cases, p.a_wins, p.b_wins, p.ties) == (4, 2, 1, 1)
    assert p.difference.estimate == pytest.approx((0.5 + 0 - 0.2 + 0.2) / 4)
    assert p.difference.low <= p.difference.estimate <= p.difference.high
    with pytest.raises(ValueError):
        paired([1.0], [1.0, 0.0])


def test_paired_interval_is_narrower_than_unpaired_for_correlated_cases():
    """Resampling cases keeps each case's pair: a constant advantage on cases
    of very different difficulty has a zero-width paired interval."""
    a = [0.1, 0.9, 0.4, 0.6, 0.3]
    b = [x - 0.1 for x in a]
    p = paired(a, b)
    assert p.difference.low == pytest.approx(0.1) and p.difference.high == pytest.approx(0.1)


@pytest.mark.parametrize("n", [2, 3, 7, 100, 255, 256, 300])
def test_bootstrap_draws_every_value_equally_often(n):
    """The byte draw (up to 256 values) rejects the bytes past the last whole
    multiple of n: without it, n = 255 would draw index 0 twice as often."""
    from collections import Counter

    from tcab.results.stats import _draw

    per = 400
    counts = Counter(_draw(list(range(n)), per * n, random.Random(5)))
    assert set(counts) == set(range(n))
    sd = math.sqrt(per)
    assert all(abs(c - per) < 5 * sd for c in counts.values()), counts.most_common(3)


def test_bootstrap_memory_stays_flat_for_many_cases():
    """100,000 cases would be 200 million draws at once; in batches the peak
    is a small multiple of the values themselves."""
    import tracemalloc

    rng = random.Random(9)
    values = [rng.random() for _ in range(100_000)]
    tracemalloc.start()
    try:
        interval = bootstrap_mean(values, resamples=20)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert interval.low < interval.estimate < interval.high
    assert peak < 16 * 1024 * 1024, peak


def test_interval_text_plain_and_signed():
    from tcab.results.stats import Interval, interval_text

    assert interval_text(None) == "—"
    assert interval_text(Interval(0.8, 0.55, 1.0)) == "80% [55%, 100%]"
    assert interval_text(Interval(0.12, -0.03, 0.25), signed=True) == "+12.0% [-3.0%, +25.0%]"
