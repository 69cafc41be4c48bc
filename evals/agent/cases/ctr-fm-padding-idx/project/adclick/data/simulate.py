"""Simulated impression logs.

Each impression has six categorical fields. The click probability has main effects per field and
a low-rank interaction between the user segment and the ad category (some segments click on some
categories far more than the main effects predict), which is what the factorised models are for.
Value frequencies are skewed, like real traffic.
"""
import numpy as np

FIELDS = {
    "user_segment": [f"seg_{i:02d}" for i in range(10)],
    "device": ["mobile", "desktop", "tablet"],
    "hour": [f"h{h:02d}" for h in range(0, 24, 3)],
    "site_category": [f"site_{i}" for i in range(12)],
    "ad_category": [f"adcat_{i:02d}" for i in range(16)],
    "slot": ["top", "side", "inline", "footer"],
}
FIELD_NAMES = list(FIELDS)


def _skewed(rng, k, alpha):
    p = 1.0 / np.arange(1, k + 1) ** alpha
    return rng.permutation(p / p.sum())


def simulate(n_days: int, rows_per_day: int, seed: int):
    rng = np.random.default_rng(seed)
    probs = {name: _skewed(rng, len(values), 1.1) for name, values in FIELDS.items()}
    main = {name: rng.normal(0, 0.4, len(values)) for name, values in FIELDS.items()}
    seg_vec = rng.normal(0, 1.0, (len(FIELDS["user_segment"]), 3))
    cat_vec = rng.normal(0, 1.0, (len(FIELDS["ad_category"]), 3))
    n = n_days * rows_per_day
    codes = {name: rng.choice(len(values), size=n, p=probs[name]) for name, values in FIELDS.items()}
    logit = -3.0 + sum(main[name][codes[name]] for name in FIELDS)
    logit = logit + 0.8 * (seg_vec[codes["user_segment"]] * cat_vec[codes["ad_category"]]).sum(axis=1)
    clicks = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.float32)
    rows = {name: np.asarray(FIELDS[name], dtype=object)[codes[name]] for name in FIELDS}
    day = np.repeat(np.arange(n_days), rows_per_day)
    return rows, clicks, day
