"""Synthetic molecules for aqueous-solubility regression (logS).

A "molecule" is a 1024-bit hashed substructure fingerprint plus 8 physico-chemical descriptors
(MolWt, cLogP, TPSA, H-bond donors / acceptors, rotatable bonds, aromatic rings, fraction sp3).
Molecules are drawn around a set of scaffolds (each scaffold fixes a block of bits), and logS
follows a General-Solubility-Equation-like law (-cLogP, melting-point proxy from aromatic rings
and MolWt) plus a few substructure contributions and interactions, plus measurement noise.
"""
from __future__ import annotations

import numpy as np

N_BITS = 1024
DESCRIPTORS = ("mol_wt", "clogp", "tpsa", "hbd", "hba", "rot_bonds", "arom_rings", "frac_sp3")


def _scaffolds(n: int, rng: np.random.Generator) -> np.ndarray:
    return rng.random((n, N_BITS)) < 0.035


def make_split(n: int, seed: int, n_scaffolds: int = 40, noise: float = 0.3, world_seed: int = 1234):
    world = np.random.default_rng(world_seed)
    scaffolds = _scaffolds(n_scaffolds, world)
    bit_effect = np.zeros(N_BITS)
    active = world.choice(N_BITS, size=48, replace=False)
    bit_effect[active] = world.normal(0, 0.35, size=48)
    pairs = world.choice(active, size=(12, 2), replace=True)
    pair_effect = world.normal(0, 0.4, size=12)

    rng = np.random.default_rng(seed)
    scaffold_id = rng.integers(0, n_scaffolds, size=n)
    noise_bits = rng.random((n, N_BITS)) < 0.02
    drop = rng.random((n, N_BITS)) < 0.15
    fp = (scaffolds[scaffold_id] & ~drop) | noise_bits

    arom = np.clip(rng.poisson(1.6, size=n) + fp[:, :16].sum(1) // 4, 0, 6)
    mol_wt = 120 + 55 * arom + 8 * fp.sum(1) / 10 + rng.normal(0, 25, size=n)
    clogp = -1.0 + 0.9 * arom + 0.004 * (mol_wt - 250) + rng.normal(0, 0.8, size=n)
    tpsa = np.clip(20 + 12 * fp[:, 16:48].sum(1) + rng.normal(0, 10, size=n), 0, None)
    hbd = rng.poisson(np.clip(tpsa / 40, 0.1, None))
    hba = rng.poisson(np.clip(tpsa / 20, 0.1, None))
    rot = rng.poisson(np.clip((mol_wt - 100) / 60, 0.1, None))
    fsp3 = np.clip(1.0 - arom / 6 + rng.normal(0, 0.1, size=n), 0, 1)
    desc = np.stack([mol_wt, clogp, tpsa, hbd, hba, rot, arom, fsp3], axis=1).astype(np.float32)

    mp_proxy = 0.35 * arom + 0.002 * (mol_wt - 250)
    logs = 0.5 - 0.85 * clogp - mp_proxy + 0.006 * tpsa - 0.08 * rot * (fsp3 < 0.3)
    logs += fp.astype(float) @ bit_effect
    logs += (fp[:, pairs[:, 0]] & fp[:, pairs[:, 1]]).astype(float) @ pair_effect
    logs += rng.normal(0, noise, size=n)
    return fp.astype(np.float32), desc, logs.astype(np.float32), scaffold_id.astype(np.int64)
