"""Small-sample statistics for paired sweep comparisons, in numpy only.

Everything here is written for 2 to a few dozen seeds, and stays linear in
memory (and about linear in time) for sweeps with hundreds of thousands of
seeds: Hodges-Lehmann by selection, the Monte Carlo sign-flip in bounded
chunks, Page's L by its normal approximation past PAGE_EXACT_MAX_N blocks. SciPy is deliberately
not used at runtime (it is slow to import and a heavy dependency); the tests
check each function against SciPy or against hand computation.

Conventions: p-values are two-sided unless a name says otherwise; arrays of
paired differences have the seed axis last.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

# Monte Carlo settings for the sign-flip test beyond exact enumeration.
EXACT_SIGNFLIP_MAX_N = 20
SIGNFLIP_MC_DRAWS = 100_000
SIGNFLIP_MC_SEED = 20240611
# With many seeds the Monte Carlo draws shrink so that draws * seeds stays within this many
# sign flips (never below SIGNFLIP_MC_MIN_DRAWS draws), and each chunk of draws holds at most
# SIGNFLIP_MC_CHUNK_CELLS signs: time and memory stay linear in the seed count.
SIGNFLIP_MC_WORK = 2 * 10**7
SIGNFLIP_MC_MIN_DRAWS = 1_000
SIGNFLIP_MC_CHUNK_CELLS = 10**6
# Hodges-Lehmann forms every Walsh average up to this many differences, then selects the median.
HL_ALL_PAIRS_MAX_N = 400
HL_PIVOT_SEED = 20241124
# A spread this small relative to the mean is rounding error: the differences are identical
# (to single precision, which is how TensorBoard and many loggers store metrics).
ZERO_SPREAD = 1e-6
# Page's L is enumerated exactly (permutations within each block) up to this many values
# and this many blocks (the convolution grows with the blocks: quadratic time); beyond, the
# normal approximation, which is accurate long before that many blocks.
PAGE_EXACT_MAX_K = 8
PAGE_EXACT_MAX_N = 400


# --------------------------------------------------------------------------
# Special functions
# --------------------------------------------------------------------------

def betainc(a, b, x):
    """Regularised incomplete beta function I_x(a, b), vectorised over ``x`` (and a, b).

    Uses the continued fraction of the incomplete beta (modified Lentz
    iteration), on ``x`` when ``x < (a+1)/(a+b+2)`` and via the symmetry
    ``I_x(a,b) = 1 - I_{1-x}(b,a)`` otherwise, where it converges fast.
    """
    a, b, x = np.broadcast_arrays(np.asarray(a, float), np.asarray(b, float), np.asarray(x, float))
    out = np.empty(x.shape)
    lo = x <= 0
    hi = x >= 1
    mid = ~(lo | hi)
    out[lo] = 0.0
    out[hi] = 1.0
    if mid.any():
        am, bm, xm = a[mid], b[mid], x[mid]
        flip = xm >= (am + 1.0) / (am + bm + 2.0)
        aa = np.where(flip, bm, am)
        bb = np.where(flip, am, bm)
        xx = np.where(flip, 1.0 - xm, xm)
        lgam = np.vectorize(math.lgamma, otypes=[float])
        log_front = lgam(aa + bb) - lgam(aa) - lgam(bb) + aa * np.log(xx) + bb * np.log1p(-xx)
        frac = _beta_continued_fraction(aa, bb, xx)
        val = np.exp(log_front) * frac / aa
        out[mid] = np.where(flip, 1.0 - val, val)
    return out if out.ndim else float(out)


def _beta_continued_fraction(a, b, x, max_iter: int = 500, eps: float = 1e-15):
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = np.ones_like(x)
    d = 1.0 - qab * x / qap
    d = np.where(np.abs(d) < tiny, tiny, d)
    d = 1.0 / d
    h = d.copy()
    done = np.zeros(x.shape, bool)
    for m in range(1, max_iter + 1):
        m2 = 2 * m
        num = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + num * d
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = 1.0 + num / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1.0 / d
        h = np.where(done, h, h * d * c)
        num = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + num * d
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = 1.0 + num / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1.0 / d
        delta = d * c
        h = np.where(done, h, h * delta)
        done |= np.abs(delta - 1.0) < eps
        if done.all():
            break
    return h


def _betainc_scalar(a: float, b: float, x: float) -> float:
    """Scalar I_x(a, b) in plain floats (the same continued fraction, without array overhead)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    flip = x >= (a + 1.0) / (a + b + 2.0)
    if flip:
        a, b, x = b, a, 1.0 - x
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    d = 1.0 / (tiny if abs(d) < tiny else d)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        num = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + num * d
        d = 1.0 / (tiny if abs(d) < tiny else d)
        c = 1.0 + num / c
        c = tiny if abs(c) < tiny else c
        h *= d * c
        num = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + num * d
        d = 1.0 / (tiny if abs(d) < tiny else d)
        c = 1.0 + num / c
        c = tiny if abs(c) < tiny else c
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    val = math.exp(log_front) * h / a
    return 1.0 - val if flip else val


def _t_cdf_scalar(t: float, df: float) -> float:
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    half = 0.5 * _betainc_scalar(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - half if t >= 0 else half


def _t_pdf_scalar(t: float, df: float) -> float:
    log_c = math.lgamma((df + 1.0) / 2.0) - math.lgamma(df / 2.0) - 0.5 * math.log(df * math.pi)
    return math.exp(log_c - (df + 1.0) / 2.0 * math.log1p(t * t / df))


def gammainc_upper(a: float, x: float) -> float:
    """Regularised upper incomplete gamma Q(a, x) (series below a+1, continued fraction above)."""
    if x <= 0:
        return 1.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1.0:
        term = total = 1.0 / a
        ap = a
        for _ in range(1000):
            ap += 1.0
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-16:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return min(1.0, math.exp(log_front) * h)


def chi2_sf(q: float, df: float) -> float:
    """Survival function of the chi-square distribution."""
    return gammainc_upper(df / 2.0, q / 2.0)


def norm_cdf(z):
    """Standard normal CDF, vectorised."""
    z = np.asarray(z, float)
    out = 0.5 * _erfc(-z / math.sqrt(2.0))
    return out if out.ndim else float(out)


_erfc = np.vectorize(math.erfc, otypes=[float])


def t_sf_two_sided(t, df):
    """P(|T| >= |t|) for Student's t with ``df`` degrees of freedom, vectorised.

    An infinite ``t`` (zero spread) gives 0; NaN stays NaN.
    """
    t = np.asarray(t, float)
    df = np.asarray(df, float)
    x = df / (df + t * t)
    p = betainc(df / 2.0, 0.5, np.where(np.isfinite(t), x, 0.0))
    p = np.where(np.isnan(t) | np.isnan(df), np.nan, p)
    return p if np.ndim(p) else float(p)


def t_cdf(t, df):
    """CDF of Student's t, vectorised."""
    t = np.asarray(t, float)
    half = 0.5 * np.asarray(t_sf_two_sided(t, df), float)
    out = np.where(t >= 0, 1.0 - half, half)
    return out if out.ndim else float(out)


def t_ppf(q: float, df: float) -> float:
    """Quantile of Student's t: Newton steps on the CDF, safeguarded by a bracket (bisection fallback)."""
    if not 0.0 < q < 1.0:
        raise ValueError(f"quantile level must be in (0, 1), got {q}")
    if q == 0.5:
        return 0.0
    if q < 0.5:
        return -t_ppf(1.0 - q, df)
    lo, hi = 0.0, 1.0
    while _t_cdf_scalar(hi, df) < q:
        lo, hi = hi, hi * 2.0
        if hi > 1e300:
            return math.inf
    t = 0.5 * (lo + hi)
    for _ in range(200):
        f = _t_cdf_scalar(t, df) - q
        if f < 0:
            lo = t
        else:
            hi = t
        pdf = _t_pdf_scalar(t, df)
        step = f / pdf if pdf > 0 else math.inf
        nxt = t - step
        if not lo < nxt < hi:
            nxt = 0.5 * (lo + hi)
        if abs(nxt - t) <= 1e-14 * max(1.0, abs(t)) or hi - lo <= 1e-14 * max(1.0, hi):
            return nxt
        t = nxt
    return t


def nct_power_two_sided(ncp: float, df: float, alpha: float, grid: int = 4001) -> float:
    """Power of a two-sided one-sample t-test: P(|T'| > t_crit) for noncentral t.

    T' = (Z + ncp) / S with S = sqrt(chi2_df / df). The probability is
    integrated numerically over the density of S (Simpson's rule on a grid
    wide enough to hold essentially all of its mass), with the normal CDF
    inside; accurate to about 1e-7 against SciPy's ``nct``.
    """
    crit = t_ppf(1.0 - alpha / 2.0, df)
    spread = 1.0 / math.sqrt(2.0 * df)  # approximate sd of S
    lower = max(0.0, 1.0 - 14.0 * spread)
    upper = max(1.0 + 14.0 * spread, 3.0)
    s = np.linspace(lower, upper, grid)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_dens = (
            (df / 2.0) * math.log(df)
            - (df / 2.0 - 1.0) * math.log(2.0)
            - math.lgamma(df / 2.0)
            + (df - 1.0) * np.log(s)
            - df * s * s / 2.0
        )
    dens = np.exp(log_dens)
    if lower == 0.0:  # the density at s = 0: sqrt(2/pi) for one degree of freedom, else 0
        dens[0] = math.sqrt(2.0 / math.pi) if df == 1.0 else 0.0
    inner = norm_cdf(ncp - crit * s) + norm_cdf(-ncp - crit * s)
    h = s[1] - s[0]
    weights = np.ones(grid)
    weights[1:-1:2] = 4.0
    weights[2:-1:2] = 2.0
    return float(min(1.0, max(0.0, h / 3.0 * np.sum(weights * dens * inner))))


def seeds_needed(d_z: float, alpha: float, power: float = 0.8, max_n: int = 10_000) -> int | None:
    """Smallest number of paired seeds giving ``power`` to detect effect ``d_z`` (two-sided t).

    None when the effect is zero or not finite, or more than ``max_n`` would be needed.
    """
    if not math.isfinite(d_z) or d_z == 0.0:
        return None
    d = abs(d_z)

    def pw(n: int) -> float:
        return nct_power_two_sided(d * math.sqrt(n), n - 1, alpha)

    # Start from the normal approximation, then settle on the exact answer (power rises with n).
    z_a = _norm_ppf(1.0 - alpha / 2.0)
    z_b = _norm_ppf(power)
    n = max(2, min(max_n, math.ceil(((z_a + z_b) / d) ** 2)))
    if pw(n) >= power:
        while n > 2 and pw(n - 1) >= power:
            n -= 1
        return n
    lo, hi = n, n
    while pw(hi) < power:
        if hi >= max_n:
            return None
        lo, hi = hi, min(max_n, hi + max(1, hi // 4))
    while hi - lo > 1:  # pw(lo) < power <= pw(hi)
        mid = (lo + hi) // 2
        if pw(mid) >= power:
            hi = mid
        else:
            lo = mid
    return hi


def _norm_ppf(p: float) -> float:
    """Standard normal quantile by bisection on erfc (only used for starting points)."""
    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if 0.5 * math.erfc(-mid / math.sqrt(2.0)) < p:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


# --------------------------------------------------------------------------
# Paired-difference statistics
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class PairedT:
    n: int
    mean: float
    sd: float
    t: float
    p: float
    ci_low: float
    ci_high: float
    d_z: float


def paired_t(diffs, alpha: float = 0.05) -> PairedT:
    """One-sample t-test of paired differences against zero, with a (1-alpha) t-interval.

    With identical differences (zero spread) the t statistic is infinite and
    the test degenerate: ``t``/``d_z`` are +-inf and ``p`` is 0 when the mean
    is not zero, 1 when it is. Callers must treat that case separately.
    """
    d = np.asarray(diffs, float)
    n = d.size
    if n < 2:
        raise ValueError("a paired t-test needs at least two pairs")
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    if sd <= ZERO_SPREAD * abs(mean):  # identical differences up to rounding
        sd = 0.0
    se = sd / math.sqrt(n)
    half = t_ppf(1.0 - alpha / 2.0, n - 1) * se
    if sd == 0.0:
        t = math.copysign(math.inf, mean) if mean != 0 else 0.0
        p = 0.0 if mean != 0 else 1.0
        dz = t
    else:
        t = mean / se
        p = float(t_sf_two_sided(t, n - 1))
        dz = mean / sd
    return PairedT(n, mean, sd, t, p, mean - half, mean + half, dz)


def paired_t_pvalues(diffs) -> np.ndarray:
    """Two-sided paired-t p-values for many sets of differences at once (seed axis last)."""
    d = np.asarray(diffs, float)
    n = d.shape[-1]
    mean = d.mean(-1)
    sd = d.std(-1, ddof=1)
    sd = np.where(sd <= ZERO_SPREAD * np.abs(mean), 0.0, sd)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (sd / math.sqrt(n))
    t = np.where(sd == 0, np.where(mean == 0, 0.0, np.inf), t)
    return np.asarray(t_sf_two_sided(t, np.full(t.shape, n - 1.0)), float)


def welch_pvalues(a, b) -> np.ndarray:
    """Two-sided Welch (unequal-variance, unpaired) t-test p-values, seed axis last."""
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    na, nb = a.shape[-1], b.shape[-1]
    va, vb = a.var(-1, ddof=1) / na, b.var(-1, ddof=1) / nb
    se2 = va + vb
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (a.mean(-1) - b.mean(-1)) / np.sqrt(se2)
        df = se2 * se2 / (va * va / (na - 1) + vb * vb / (nb - 1))
    return np.asarray(t_sf_two_sided(t, df), float)


def signflip_pvalue(diffs, *, draws: int = SIGNFLIP_MC_DRAWS, seed: int = SIGNFLIP_MC_SEED) -> tuple[float, bool]:
    """Two-sided sign-flip (paired permutation) p-value of the mean difference.

    Under the null the differences are symmetric about zero, so every
    pattern of signs is equally likely. The statistic is the absolute sum,
    which orders sign patterns exactly as the paired t statistic does (the
    sum of squares does not change under sign flips). Exact enumeration of
    all 2**n patterns for n <= 20; beyond, a Monte Carlo estimate from
    ``draws`` random patterns with a fixed ``seed`` (p = (hits+1)/(draws+1)).
    Past 200 pairs the draws are cut to keep draws * n at ``SIGNFLIP_MC_WORK``
    (at least ``SIGNFLIP_MC_MIN_DRAWS``), so the smallest p is 1/(draws+1).
    Returns (p, exact).
    """
    d = np.asarray(diffs, float)
    n = d.size
    if n == 0:
        return 1.0, True
    obs = abs(float(d.sum()))
    tol = 1e-9 * max(1.0, float(np.abs(d).sum()))
    if n <= EXACT_SIGNFLIP_MAX_N:
        sums = np.zeros(1)
        for value in d:
            sums = np.concatenate((sums + value, sums - value))
        return float(np.mean(np.abs(sums) >= obs - tol)), True
    draws = min(draws, max(SIGNFLIP_MC_MIN_DRAWS, SIGNFLIP_MC_WORK // n))
    rows = max(1, min(10_000, SIGNFLIP_MC_CHUNK_CELLS // n))
    rng = np.random.default_rng(seed)
    hits = 0
    done = 0
    total = float(d.sum())
    while done < draws:  # random bits, 8 signs a byte: sum(+-d) = 2 * (bits @ d) - sum(d), a matrix product
        chunk = min(rows, draws - done)
        bits = np.unpackbits(rng.integers(0, 256, size=(chunk, (n + 7) // 8), dtype=np.uint8), axis=1, count=n)
        hits += int(np.count_nonzero(np.abs(2.0 * (bits.astype(float) @ d) - total) >= obs - tol))
        done += chunk
    return (hits + 1) / (draws + 1), False
    while done < draws:
        chunk = min(rows, draws - done)
        signs = rng.integers(0, 2, size=(chunk, n)) * 2 - 1
        hits += int(np.count_nonzero(np.abs(signs @ d) >= obs - tol))
        done += chunk
    return (hits + 1) / (draws + 1), False


def min_signflip_p(n: int) -> float:
    """The smallest two-sided p-value an exact sign-flip test can return with n pairs: 2/2**n."""
    return min(1.0, math.ldexp(1.0, 1 - n)) if n > 0 else 1.0


def sign_test_pvalue(wins: int, losses: int) -> float:
    """Exact two-sided sign test: P(a split at least this lopsided) when wins and losses are equally likely."""
    n = wins + losses
    if n == 0:
        return 1.0
    k = max(wins, losses)
    tail = sum(math.comb(n, i) for i in range(k, n + 1)) / 2.0**n
    return min(1.0, 2.0 * tail)


def hodges_lehmann(diffs) -> float:
    """Hodges-Lehmann estimate for paired data: the median of all Walsh averages (d_i+d_j)/2, i <= j.

    Up to ``HL_ALL_PAIRS_MAX_N`` differences every average is formed; beyond, the same median
    is found by selection (:func:`_walsh_sum_at_rank`) without forming the n(n+1)/2 averages:
    the result is identical, memory stays linear in n and time about n log n per round.
    """
    d = np.asarray(diffs, float)
    if d.size <= HL_ALL_PAIRS_MAX_N:
        i, j = np.triu_indices(d.size)
        return float(np.median((d[i] + d[j]) / 2.0))
    if np.isnan(d).any():
        return math.nan
    s = np.sort(d)
    total = s.size * (s.size + 1) // 2
    lower = _walsh_sum_at_rank(s, (total - 1) // 2) / 2.0
    if total % 2:
        return float(lower)
    upper = _walsh_sum_at_rank(s, total // 2) / 2.0
    return float(np.mean([lower, upper]))  # as np.median averages the two middle values


def _walsh_counts(s: np.ndarray, v: float) -> np.ndarray:
    """For sorted ``s``: per row i, the end of the columns j (i <= j) whose sum s_i + s_j <= v.

    Row sums grow with j (rounding is monotone), so each row's qualifying columns are a prefix;
    ``searchsorted`` finds it up to rounding and the boundary is then checked on the sums themselves.
    """
    n = s.size
    with np.errstate(over="ignore", invalid="ignore"):
        end = np.searchsorted(s, v - s, side="right")
        rows = np.arange(n)
        for _ in range(64):  # rounding moves the boundary by a few columns at most
            grow = end < n
            grow[grow] = s[rows[grow]] + s[end[grow]] <= v
            shrink = end > rows
            shrink[shrink] = s[rows[shrink]] + s[end[shrink] - 1] > v
            if not grow.any() and not shrink.any():
                break
            end = end + grow - shrink
    return np.maximum(end, rows)


def _walsh_sum_at_rank(s: np.ndarray, k: int) -> float:
    """The k-th smallest (0-based) of the sums s_i + s_j, i <= j, of sorted ``s``, in O(n) memory.

    Quickselect over the implicit sorted rows: a pivot drawn from the sums still in play
    (fixed seed, so the answer and the work are deterministic) narrows a value window
    (lo, hi] until it holds at most a few times n sums, which are then formed and ranked.
    """
    n = s.size
    rows = np.arange(n)
    rng = np.random.default_rng(HL_PIVOT_SEED)
    lo_end = rows.copy()  # no sums at or below lo (lo = -inf)
    hi = float(s[-1] + s[-1])
    hi_end = np.full(n, n)
    below = 0  # sums at or below lo
    for _ in range(10_000):
        window = int((hi_end - lo_end).sum())
        if window <= 4 * n:
            break
        cum = np.cumsum(hi_end - lo_end)
        pick = int(rng.integers(0, window))
        i = int(np.searchsorted(cum, pick, side="right"))
        j = int(lo_end[i] + pick - (cum[i - 1] if i else 0))
        pivot = float(s[i] + s[j])
        ends = _walsh_counts(s, pivot)
        at_or_below = int((ends - rows).sum())
        if at_or_below > k:
            if pivot == hi:  # many sums tie at hi: is the answer hi itself, or below it?
                pivot = float(np.nextafter(hi, -math.inf))
                ends = _walsh_counts(s, pivot)
                if int((ends - rows).sum()) <= k:
                    return hi
            hi, hi_end = pivot, ends
        else:
            lo_end, below = ends, at_or_below
    counts = hi_end - lo_end
    starts = np.repeat(lo_end - np.cumsum(counts) + counts, counts) + np.arange(int(counts.sum()))
    sums = s[np.repeat(rows, counts)] + s[starts]
    return float(np.partition(sums, k - below)[k - below])


def holm(pvalues) -> np.ndarray:
    """Holm step-down adjusted p-values (same order as given)."""
    p = np.asarray(pvalues, float)
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    adj_sorted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adj_sorted
    return out


# --------------------------------------------------------------------------
# Block designs: seeds are blocks, parameter values are treatments
# --------------------------------------------------------------------------

def rank_rows(y) -> np.ndarray:
    """Mid-ranks (1-based, ties averaged) within each row of a 2-D array."""
    y = np.asarray(y, float)
    if y.ndim == 2 and not np.isnan(y).any():
        less, equal = _row_comparisons(y)
        return less + (equal + 1) / 2.0
    out = np.empty_like(y)
    for r, row in enumerate(y):
        order = np.argsort(row, kind="stable")
        ranks = np.empty(row.size)
        sorted_row = row[order]
        i = 0
        while i < row.size:
            j = i
            while j + 1 < row.size and sorted_row[j + 1] == sorted_row[i]:
                j += 1
            ranks[order[i : j + 1]] = (i + j) / 2.0 + 1.0
            i = j + 1
        out[r] = ranks
    return out


def _row_comparisons(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per cell: how many cells of its row are smaller, and how many equal (itself included).

    All rows at once, in chunks of rows so the k-by-k comparisons stay within a few MB.
    """
    n, k = y.shape
    less = np.empty((n, k))
    equal = np.empty((n, k))
    step = max(1, 2_000_000 // max(1, k * k))
    for start in range(0, n, step):
        block = y[start : start + step]
        less[start : start + step] = (block[:, :, None] > block[:, None, :]).sum(-1)
        equal[start : start + step] = (block[:, :, None] == block[:, None, :]).sum(-1)
    return less, equal


@dataclass(frozen=True)
class BlockTest:
    statistic: float
    p: float
    method: str


def friedman(y) -> BlockTest:
    """Friedman's omnibus test, rows = blocks (seeds), columns = treatments (values).

    Chi-square approximation with the usual tie correction; it is rough with
    few seeds (fewer than about 10 blocks), which the method string says.
    """
    y = np.asarray(y, float)
    n, k = y.shape
    ranks = rank_rows(y)
    rsum = ranks.sum(0)
    q = 12.0 / (n * k * (k + 1)) * float(np.sum(rsum**2)) - 3.0 * n * (k + 1)
    _, equal = _row_comparisons(ranks)
    ties = float(np.sum(equal**2 - 1.0))  # a tie group of size c adds c**3 - c: c cells, each adding c**2 - 1
    denom = 1.0 - ties / (n * k * (k * k - 1))
    if denom <= 0:
        return BlockTest(0.0, 1.0, "all values tied within every seed")
    q /= denom
    method = "chi-square approximation" + (" (rough below 10 seeds)" if n < 10 else "")
    return BlockTest(q, chi2_sf(q, k - 1), method)


def page_l(y) -> tuple[float, float, float, str]:
    """Page's L trend test across ordered columns, rows = blocks.

    Returns (L, p_increasing, p_decreasing, method): one-sided p-values for
    a trend that rises or falls with the column order. Exact (conditional
    on the within-block ties, by enumerating every permutation of each
    block's ranks and convolving the block distributions) for up to
    PAGE_EXACT_MAX_K columns and PAGE_EXACT_MAX_N blocks; normal approximation beyond.
    """
    y = np.asarray(y, float)
    n, k = y.shape
    ranks = rank_rows(y)
    weights = np.arange(1, k + 1, dtype=float)
    big_l = float(np.sum(ranks.sum(0) * weights))
    if k <= PAGE_EXACT_MAX_K and n <= PAGE_EXACT_MAX_N:
        perms = np.array(list(itertools.permutations(range(k))))
        dist = np.ones(1)  # distribution of 2L (integers) over the blocks so far
        cache: dict[tuple, np.ndarray] = {}
        for row in ranks:
            key = tuple(np.sort(row))
            block = cache.get(key)
            if block is None:
                twice = np.rint(2.0 * np.asarray(key)[perms] @ weights).astype(np.int64)
                block = np.bincount(twice).astype(float) / len(perms)
                cache[key] = block
            dist = np.convolve(dist, block)
        obs = round(2.0 * big_l)
        p_inc = float(min(1.0, dist[obs:].sum()))
        p_dec = float(min(1.0, dist[: obs + 1].sum()))
        return big_l, p_inc, p_dec, "exact (permutations within seeds)"
    mean = n * k * (k + 1) ** 2 / 4.0
    var = n * k * k * (k + 1) * (k * k - 1) / 144.0
    z = (big_l - mean) / math.sqrt(var)
    return big_l, float(1.0 - norm_cdf(z)), float(norm_cdf(z)), "normal approximation"


def icc_consistency(y) -> float:
    """Between-seed correlation: ICC(3,1), the share of variance that a seed adds to every value alike.

    Rows are seeds, columns are values. Value-to-value mean differences are
    removed (two-way model), so this estimates the correlation of two runs
    with the same seed and different values, which is what pairing exploits.
    """
    y = np.asarray(y, float)
    n, k = y.shape
    if n < 2 or k < 2:
        raise ValueError("the between-seed correlation needs at least 2 seeds and 2 values")
    # The ICC does not depend on the unit: centre and scale first, so values near the float range
    # (1e300) do not overflow when squared.
    centred = y - np.median(y)
    scale = float(np.max(np.abs(centred))) if centred.size else 0.0
    if scale > 0 and math.isfinite(scale):
        y = centred / scale
    grand = y.mean()
    ss_rows = k * float(np.sum((y.mean(1) - grand) ** 2))
    ss_cols = n * float(np.sum((y.mean(0) - grand) ** 2))
    ss_err = float(np.sum((y - grand) ** 2)) - ss_rows - ss_cols
    ms_rows = ss_rows / (n - 1)
    ms_err = ss_err / ((n - 1) * (k - 1))
    denom = ms_rows + (k - 1) * ms_err
    return float((ms_rows - ms_err) / denom) if denom > 0 else float("nan")


def zscore_within_seed(y) -> np.ndarray:
    """The popular recipe's first step: standardise each seed's row across values (ddof=1)."""
    y = np.asarray(y, float)
    mu = y.mean(-1, keepdims=True)
    sd = y.std(-1, ddof=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sd > 0, (y - mu) / sd, 0.0)


def slope_per_row(x, y) -> np.ndarray:
    """Least-squares slope of each row of ``y`` on ``x``."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    xc = x - x.mean()
    return (y - y.mean(-1, keepdims=True)) @ xc / float(xc @ xc)


def quadratic_per_row(x, y) -> np.ndarray:
    """Least-squares quadratic coefficient of each row of ``y`` on ``x`` (x standardised)."""
    x = np.asarray(x, float)
    xs = (x - x.mean()) / (x.std() or 1.0)
    design = np.stack([np.ones_like(xs), xs, xs * xs], axis=1)
    coef, *_ = np.linalg.lstsq(design, np.asarray(y, float).T, rcond=None)
    return coef[2]
