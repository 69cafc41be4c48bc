"""Synthetic customer table standing in for the CRM export."""
from __future__ import annotations

import numpy as np

PLANS = ["basic", "standard", "premium"]
REGIONS = ["north", "south", "east", "west", "central"]
NUMERIC = ["tenure_months", "monthly_charges", "support_calls", "late_payments", "usage_gb", "discount_pct"]
CATEGORICAL = {"plan": PLANS, "region": REGIONS}


def simulate_customers(n: int, churn_rate: float, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    table = {
        "tenure_months": rng.gamma(2.0, 12.0, n).round(),
        "monthly_charges": rng.normal(60, 20, n).clip(10, 150).round(2),
        "support_calls": rng.poisson(1.5, n).astype(float),
        "late_payments": rng.poisson(0.6, n).astype(float),
        "usage_gb": rng.lognormal(3.0, 0.8, n).round(1),
        "discount_pct": rng.choice([0, 5, 10, 20], n, p=[0.6, 0.2, 0.15, 0.05]).astype(float),
        "plan": rng.choice(PLANS, n, p=[0.5, 0.35, 0.15]),
        "region": rng.choice(REGIONS, n),
    }
    score = (
        -0.05 * table["tenure_months"]
        + 0.02 * table["monthly_charges"]
        + 0.45 * table["support_calls"]
        + 0.6 * table["late_payments"]
        - 0.03 * table["discount_pct"]
        + np.where(table["plan"] == "basic", 0.5, 0.0)
        + rng.normal(0, 1.6, n)
    )
    threshold = np.quantile(score, 1 - churn_rate)
    table["churned"] = (score > threshold).astype(np.int64)
    return table
