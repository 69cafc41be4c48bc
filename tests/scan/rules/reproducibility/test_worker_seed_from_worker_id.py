"""The ``worker-seed-from-worker-id`` rule (``mlsleuth/scan/rules/reproducibility/worker_seed_from_worker_id.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = "worker-seed-from-worker-id"


def test_seeds_made_of_the_worker_id_and_run_constants_flag():
    src = """
    import random
    import numpy as np
    from torch.utils.data import DataLoader

    SEED = 1234

    def worker_init_fn(worker_id):
        np.random.seed(worker_id)  # expect: worker-seed-from-worker-id

    def seed_worker(wid):
        random.seed(SEED + wid)  # expect: worker-seed-from-worker-id

    def make_loaders(train_set, val_set, args):
        train = DataLoader(train_set, batch_size=32, shuffle=True, num_workers=4, worker_init_fn=worker_init_fn)
        val = DataLoader(val_set, batch_size=32, num_workers=2, worker_init_fn=seed_worker)
        return train, val
    """
    check(src, {RULE})


def test_seeds_from_the_per_epoch_base_seed_or_persistent_workers_are_fine():
    src = """
    import random
    import numpy as np
    import torch
    from torch.utils.data import DataLoader, get_worker_info

    def from_initial_seed(worker_id):
        np.random.seed(torch.initial_seed() % 2**32)
        random.seed(torch.initial_seed() % 2**32)

    def from_worker_info(worker_id):
        np.random.seed(get_worker_info().seed % 2**32)

    def through_a_local(worker_id):
        base = torch.initial_seed() % 2**31
        np.random.seed(base + worker_id)

    def persistent(worker_id):
        np.random.seed(worker_id)

    def not_a_worker_init(worker_id):
        np.random.seed(worker_id)

    def loaders(ds):
        a = DataLoader(ds, num_workers=4, worker_init_fn=from_initial_seed)
        b = DataLoader(ds, num_workers=4, worker_init_fn=from_worker_info)
        c = DataLoader(ds, num_workers=4, worker_init_fn=through_a_local)
        d = DataLoader(ds, num_workers=4, worker_init_fn=persistent, persistent_workers=True)
        return a, b, c, d
    """
    check(src, {RULE})
