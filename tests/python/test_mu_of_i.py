"""tools/mu_of_i.py's analysis on data whose answer is known: block averages, the
autocorrelation time, and the mu(I) fit recovering mu_s, mu_2, I_0.

    .venv/bin/python -m pytest -q tests/python/test_mu_of_i.py

Generated inputs per run: 25 (hypothesis, the noisy fit) + 15 (the exact fit) examples.
"""
import math
import os
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import mu_of_i  # noqa: E402


def test_block_average_by_hand():
    # 30 samples: the first 10 (a third) discarded, the last 20 in 10 blocks of 2
    kept = np.array([1, 3, 2, 2, 5, 1, 0, 4, 3, 3, 2, 6, 1, 1, 2, 0, 4, 4, 3, 1], dtype=float)
    x = np.concatenate([np.full(10, 1e9), kept])
    mean, se, blocks = mu_of_i.block_average(x, blocks=10)
    means = kept.reshape(10, 2).mean(1)          # 2, 2, 3, 2, 3, 4, 1, 1, 4, 2
    assert np.array_equal(blocks, means)
    assert mean == pytest.approx(2.4, abs=1e-15)
    assert se == pytest.approx(math.sqrt(((means - 2.4) ** 2).sum() / 9) / math.sqrt(10), rel=1e-14)


def test_block_average_drops_the_oldest_remainder():
    # 35 samples: 11 discarded, 24 kept, 10 blocks of 2: the first 4 kept samples unused
    x = np.concatenate([np.full(11, -5.0), np.full(4, 100.0), np.arange(20.0)])
    mean, _, blocks = mu_of_i.block_average(x, blocks=10)
    assert mean == pytest.approx(9.5)
    assert blocks[0] == pytest.approx(0.5)


def test_too_few_samples_refused():
    with pytest.raises(ValueError):
        mu_of_i.block_average(np.ones(12), blocks=10)


def test_ratio_is_a_ratio_of_block_means():
    num = np.concatenate([np.zeros(10), np.repeat(np.arange(1.0, 11.0), 2)])
    den = np.concatenate([np.zeros(10), np.full(20, 2.0)])
    r, se = mu_of_i.ratio_block_average(num, den)
    assert r == pytest.approx(2.75)
    assert se == pytest.approx(np.arange(1.0, 11.0).std(ddof=1) / 2 / math.sqrt(10))


def test_autocorrelation_time_of_ar1():
    # x_n = a x_(n-1) + noise: tau_int = (1 + a) / (1 - a) = 9 for a = 0.8
    rng = np.random.default_rng(3)
    a, n = 0.8, 300000
    e = rng.normal(size=n)
    x = np.empty(n)
    x[0] = 0
    for k in range(1, n):
        x[k] = a * x[k - 1] + e[k]
    assert mu_of_i.autocorrelation_time(x, discard=0.0) == pytest.approx(9.0, rel=0.1)
    assert mu_of_i.autocorrelation_time(rng.normal(size=20000)) == pytest.approx(1.0, abs=0.15)


# The fit's points: 12 inertial numbers over 1e-3 .. 3, as a sweep that reaches past I_0.
# The generated inputs are derandomized (the same each run): a health check of how
# hypothesis draws the floats once failed a fresh clone's run, not the fit.
I_POINTS = np.logspace(-3, math.log10(3.0), 12)


@settings(max_examples=15, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.data_too_large, HealthCheck.too_slow])
@given(mu_s=st.floats(0.1, 0.5), dmu=st.floats(0.1, 0.6), i_0=st.floats(0.02, 1.0))
def test_fit_recovers_exact_data(mu_s, dmu, i_0):
    mu = mu_of_i.mu_model(I_POINTS, mu_s, mu_s + dmu, i_0)
    f = mu_of_i.fit_mu(I_POINTS, mu, np.full(len(mu), 0.01))
    assert f["mu_s"] == pytest.approx(mu_s, abs=1e-6)
    assert f["mu_2"] == pytest.approx(mu_s + dmu, abs=1e-6)
    assert f["I_0"] == pytest.approx(i_0, rel=1e-5)


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.data_too_large, HealthCheck.too_slow])
@given(mu_s=st.floats(0.2, 0.45), dmu=st.floats(0.2, 0.5), i_0=st.floats(0.05, 0.5),
       seed=st.integers(0, 2 ** 31 - 1))
def test_fit_recovers_noisy_data(mu_s, dmu, i_0, seed):
    """Noise of 0.003 (the block error bars of a mu(I) sweep): mu_s within 0.01, mu_2
    within 0.05, I_0 within 30 %, and each within 5 of the fit's own standard errors."""
    rng = np.random.default_rng(seed)
    sigma = 0.003
    mu = mu_of_i.mu_model(I_POINTS, mu_s, mu_s + dmu, i_0) + rng.normal(0, sigma, len(I_POINTS))
    f = mu_of_i.fit_mu(I_POINTS, mu, np.full(len(mu), sigma))
    assert abs(f["mu_s"] - mu_s) < 0.01
    assert abs(f["mu_2"] - (mu_s + dmu)) < 0.05
    assert abs(f["I_0"] / i_0 - 1) < 0.3
    assert abs(f["mu_s"] - mu_s) < 5 * f["mu_s_err"]
    assert abs(f["mu_2"] - (mu_s + dmu)) < 5 * f["mu_2_err"]
    assert abs(f["I_0"] - i_0) < 5 * f["I_0_err"]


def test_phi_line():
    i = np.array([0.01, 0.05, 0.1, 0.3])
    phi_c, a = mu_of_i.fit_phi(np.append(i, 0.005), np.append(0.59 - 0.3 * i, 0.61))
    assert phi_c == pytest.approx(0.59) and a == pytest.approx(0.3)
