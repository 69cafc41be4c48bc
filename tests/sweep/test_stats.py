"""Every statistic of mlsleuth.sweep.stats against SciPy or a hand computation."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from mlsleuth.sweep import stats as st

scipy_stats = pytest.importorskip("scipy.stats", reason="scipy is the reference implementation (dev extra)")
special = pytest.importorskip("scipy.special")


@pytest.mark.parametrize("a,b", [(0.5, 0.5), (1.0, 3.0), (2.5, 0.5), (15.0, 0.5), (0.5, 40.0), (120.0, 80.0)])
def test_betainc_matches_scipy(a, b):
    x = np.linspace(0.0, 1.0, 57)
    assert np.allclose(st.betainc(a, b, x), special.betainc(a, b, x), rtol=1e-12, atol=1e-14)
    for xi in (0.01, 0.3, 0.77, 0.999):
        assert st._betainc_scalar(a, b, xi) == pytest.approx(float(special.betainc(a, b, xi)), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("df", [1, 2, 3, 7, 29, 400])
def test_t_distribution_matches_scipy(df):
    t = np.array([-50.0, -4.2, -1.0, -0.1, 0.0, 0.3, 2.0, 9.0, 1e4])
    assert np.allclose(st.t_cdf(t, df), scipy_stats.t.cdf(t, df), rtol=1e-11, atol=1e-15)
    assert np.allclose(st.t_sf_two_sided(t, df), 2 * scipy_stats.t.sf(np.abs(t), df), rtol=1e-10, atol=1e-15)
    for q in (0.001, 0.025, 0.4, 0.5, 0.9, 0.975, 0.9995):
        assert st.t_ppf(q, df) == pytest.approx(scipy_stats.t.ppf(q, df), rel=1e-9, abs=1e-12)


def test_t_sf_handles_infinite_and_nan_statistics():
    assert st.t_sf_two_sided(math.inf, 4) == 0.0
    assert math.isnan(st.t_sf_two_sided(math.nan, 4))


@pytest.mark.parametrize("q,df", [(0.5, 1), (3.2, 2), (11.0, 4), (40.0, 9), (0.01, 3)])
def test_chi2_sf_matches_scipy(q, df):
    assert st.chi2_sf(q, df) == pytest.approx(scipy_stats.chi2.sf(q, df), rel=1e-10, abs=1e-15)


@pytest.mark.parametrize("ncp,df,alpha", [(0.0, 1, 0.05), (1.7, 2, 0.05), (3.0, 9, 0.01), (0.5, 100, 0.05), (2.8, 5000, 0.05), (5.0, 1, 0.05)])
def test_noncentral_t_power_matches_scipy(ncp, df, alpha):
    crit = scipy_stats.t.ppf(1 - alpha / 2, df)
    ref = scipy_stats.nct.sf(crit, df, ncp) + scipy_stats.nct.cdf(-crit, df, ncp)
    assert st.nct_power_two_sided(ncp, df, alpha) == pytest.approx(ref, abs=1e-7)


@pytest.mark.parametrize("d", [3.0, 1.3, 1.0, 0.45, -0.2])
def test_seeds_needed_is_the_smallest_n_with_80_percent_power(d):
    def power(n):
        crit = scipy_stats.t.ppf(0.975, n - 1)
        ncp = abs(d) * math.sqrt(n)
        return scipy_stats.nct.sf(crit, n - 1, ncp) + scipy_stats.nct.cdf(-crit, n - 1, ncp)

    n = st.seeds_needed(d, 0.05, 0.8)
    assert power(n) >= 0.8
    assert n == 2 or power(n - 1) < 0.8


def test_seeds_needed_none_for_zero_or_undefined_effect():
    assert st.seeds_needed(0.0, 0.05) is None
    assert st.seeds_needed(math.inf, 0.05) is None
    assert st.seeds_needed(1e-4, 0.05, max_n=500) is None


def test_paired_t_matches_scipy_ttest_rel_and_interval():
    rng = np.random.default_rng(4)
    a = rng.normal(size=7)
    b = a + rng.normal(0.3, 0.5, size=7)
    res = st.paired_t(b - a, alpha=0.1)
    ref = scipy_stats.ttest_rel(b, a)
    ci = ref.confidence_interval(0.9)
    assert res.t == pytest.approx(ref.statistic, rel=1e-12)
    assert res.p == pytest.approx(ref.pvalue, rel=1e-10)
    assert (res.ci_low, res.ci_high) == (pytest.approx(ci.low, rel=1e-10), pytest.approx(ci.high, rel=1e-10))
    d = b - a
    assert res.d_z == pytest.approx(d.mean() / d.std(ddof=1))


def test_paired_t_degenerate_spread():
    res = st.paired_t([0.2, 0.2, 0.2])
    assert math.isinf(res.t) and res.p == 0.0
    assert st.paired_t([0.0, 0.0, 0.0]).p == 1.0
    with pytest.raises(ValueError):
        st.paired_t([1.0])


def test_vectorised_paired_t_equals_scalar():
    rng = np.random.default_rng(5)
    d = rng.normal(0.2, 1.0, size=(50, 6))
    expected = [scipy_stats.ttest_1samp(row, 0.0).pvalue for row in d]
    assert np.allclose(st.paired_t_pvalues(d), expected, rtol=1e-10)


def test_welch_matches_scipy():
    rng = np.random.default_rng(6)
    a = rng.normal(0, 1, size=(20, 5))
    b = rng.normal(0.5, 2, size=(20, 5))
    expected = scipy_stats.ttest_ind(a, b, axis=1, equal_var=False).pvalue
    assert np.allclose(st.welch_pvalues(a, b), expected, rtol=1e-10)


@pytest.mark.parametrize("n", [2, 3, 6, 11])
def test_signflip_exact_matches_scipy_permutation_test(n):
    rng = np.random.default_rng(n)
    d = rng.normal(0.4, 1.0, size=n)
    p, exact = st.signflip_pvalue(d)
    ref = scipy_stats.permutation_test((d,), np.mean, permutation_type="samples", n_resamples=np.inf, alternative="two-sided")
    assert exact
    assert p == pytest.approx(ref.pvalue, rel=1e-12)


def test_signflip_smallest_p_and_hand_case():
    # Three differences all positive: only the all-plus and all-minus patterns reach |sum| = 6.
    assert st.signflip_pvalue([1.0, 2.0, 3.0]) == (pytest.approx(0.25), True)
    assert st.min_signflip_p(3) == 0.25
    assert st.min_signflip_p(6) == pytest.approx(1 / 32)


def test_signflip_monte_carlo_beyond_exact_limit_is_seeded_and_close():
    rng = np.random.default_rng(9)
    d = rng.normal(0.3, 1.0, size=st.EXACT_SIGNFLIP_MAX_N + 6)
    p1, exact = st.signflip_pvalue(d)
    p2, _ = st.signflip_pvalue(d)
    assert not exact and p1 == p2
    ref = scipy_stats.permutation_test((d,), np.mean, permutation_type="samples", n_resamples=200_000, alternative="two-sided", random_state=1)
    assert p1 == pytest.approx(ref.pvalue, abs=0.01)


def test_sign_test_matches_binomtest():
    for wins, losses in [(0, 6), (5, 1), (3, 3), (9, 1), (0, 0)]:
        ref = scipy_stats.binomtest(wins, wins + losses, 0.5).pvalue if wins + losses else 1.0
        assert st.sign_test_pvalue(wins, losses) == pytest.approx(ref, rel=1e-12)


def test_hodges_lehmann_by_hand():
    # Walsh averages of [1, 2, 10]: 1, 1.5, 5.5, 2, 6, 10 -> median (2 + 5.5) / 2
    assert st.hodges_lehmann([1.0, 2.0, 10.0]) == 3.75
    assert st.hodges_lehmann([-2.0]) == -2.0


def test_holm_by_hand():
    # sorted: 0.01*3 = 0.03; 0.03*2 = 0.06; 0.04*1 = 0.04 -> monotone 0.06
    assert np.allclose(st.holm([0.01, 0.04, 0.03]), [0.03, 0.06, 0.06])
    assert np.allclose(st.holm([0.5, 0.9]), [1.0, 1.0])
    assert st.holm([]).size == 0


def test_rank_rows_midranks():
    assert np.array_equal(st.rank_rows([[3.0, 1.0, 3.0, 2.0]]), [[3.5, 1.0, 3.5, 2.0]])


def test_friedman_matches_scipy_with_and_without_ties():
    rng = np.random.default_rng(11)
    y = rng.normal(size=(8, 4))
    ref = scipy_stats.friedmanchisquare(*y.T)
    res = st.friedman(y)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.p == pytest.approx(ref.pvalue, rel=1e-10)
    assert "rough" in res.method
    tied = np.round(rng.normal(size=(12, 3)), 0)
    ref = scipy_stats.friedmanchisquare(*tied.T)
    res = st.friedman(tied)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert "rough" not in res.method


@pytest.mark.parametrize("n,k", [(3, 3), (5, 4), (4, 6)])
def test_page_exact_matches_scipy(n, k):
    rng = np.random.default_rng(n * 10 + k)
    y = rng.normal(size=(n, k)) + 0.4 * np.arange(k)
    big_l, p_inc, p_dec, method = st.page_l(y)
    ref = scipy_stats.page_trend_test(y, method="exact")
    assert big_l == ref.statistic
    assert p_inc == pytest.approx(ref.pvalue, rel=1e-9)
    ref_dec = scipy_stats.page_trend_test(y[:, ::-1], method="exact")
    assert p_dec == pytest.approx(ref_dec.pvalue, rel=1e-9)
    assert method.startswith("exact")


def test_page_normal_approximation_beyond_exact_limit_matches_scipy():
    rng = np.random.default_rng(3)
    y = rng.normal(size=(6, st.PAGE_EXACT_MAX_K + 1)) + 0.2 * np.arange(st.PAGE_EXACT_MAX_K + 1)
    big_l, p_inc, _, method = st.page_l(y)
    ref = scipy_stats.page_trend_test(y, method="asymptotic")
    assert method == "normal approximation"
    assert big_l == ref.statistic
    assert p_inc == pytest.approx(ref.pvalue, rel=1e-9)


def test_page_with_ties_by_brute_force_enumeration():
    y = np.array([[1.0, 1.0, 2.0], [0.5, 3.0, 3.0]])
    big_l, p_inc, _, _ = st.page_l(y)
    ranks = st.rank_rows(y)
    w = np.arange(1, 4)
    stats = [sum(float(r[list(p)] @ w) for r, p in zip(ranks, combo))
             for combo in itertools.product(itertools.permutations(range(3)), repeat=2)]
    assert p_inc == pytest.approx(np.mean(np.array(stats) >= big_l - 1e-9))


def test_icc_recovers_seed_correlation():
    rng = np.random.default_rng(12)
    seed_part = rng.normal(0, math.sqrt(0.7), size=(4000, 1))
    y = seed_part + rng.normal(0, math.sqrt(0.3), size=(4000, 3)) + np.array([0.0, 1.0, -2.0])
    assert st.icc_consistency(y) == pytest.approx(0.7, abs=0.02)
    # no shared seed part: close to zero
    assert abs(st.icc_consistency(rng.normal(size=(4000, 3)))) < 0.03


def test_zscore_two_values_is_plus_minus_0707():
    z = st.zscore_within_seed(np.array([[1.0, 5.0], [3.0, 2.0]]))
    assert np.allclose(np.abs(z), 1 / math.sqrt(2))


def test_slope_and_curvature_match_polyfit():
    x = np.array([1.0, 2.0, 4.0, 8.0])
    y = np.array([[1.0, 2.5, 2.0, 0.5], [0.0, 1.0, 1.5, 1.0]])
    assert np.allclose(st.slope_per_row(x, y), [np.polyfit(x, row, 1)[0] for row in y])
    xs = (x - x.mean()) / x.std()
    assert np.allclose(st.quadratic_per_row(x, y), [np.polyfit(xs, row, 2)[0] for row in y])
