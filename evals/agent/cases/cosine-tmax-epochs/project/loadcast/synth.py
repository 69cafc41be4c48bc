"""Simulated hourly load (MW) for a set of feeders: daily and weekly cycles, temperature, noise."""
from __future__ import annotations

import numpy as np


def simulate_load(n_feeders: int, n_days: int, seed: int):
    """Returns (load [n_feeders, hours], temperature [hours]) as float32."""
    rng = np.random.default_rng(seed)
    hours = np.arange(n_days * 24)
    hod = hours % 24
    dow = (hours // 24) % 7
    season = np.sin(2 * np.pi * hours / (24 * 365.0))
    temp = 12 + 9 * season + 5 * np.sin(2 * np.pi * (hod - 9) / 24) + rng.normal(0, 1.5, hours.size)
    loads = []
    for _ in range(n_feeders):
        base = rng.uniform(20, 60)
        morning = rng.uniform(0.15, 0.35) * np.exp(-0.5 * ((hod - 8) / 1.5) ** 2)
        evening = rng.uniform(0.25, 0.45) * np.exp(-0.5 * ((hod - 19) / 2.0) ** 2)
        weekend = np.where(dow >= 5, rng.uniform(0.75, 0.9), 1.0)
        heating = rng.uniform(0.005, 0.015) * np.clip(15 - temp, 0, None)
        cooling = rng.uniform(0.005, 0.02) * np.clip(temp - 22, 0, None)
        shape = (1 + morning + evening + heating + cooling) * weekend
        loads.append(base * shape * (1 + rng.normal(0, 0.02, hours.size)))
    return np.asarray(loads, dtype=np.float32), temp.astype(np.float32)
