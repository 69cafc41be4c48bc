"""The ``constant-reseed`` rule (``mlsleuth/scan/rules/reproducibility/constant_reseed.py``)."""

from __future__ import annotations

from scan.helpers import check

RESEED = "constant-reseed"


def test_constant_reseed_every_step_and_every_sample():
    src = """
    import numpy as np
    import torch
    from torch.utils.data import Dataset

    class Augmented(Dataset):
        def __getitem__(self, i):
            np.random.seed(42)  # expect: constant-reseed
            return self.items[i] + np.random.normal(size=3)

    def train(model, loader, opt):
        for x, y in loader:
            torch.manual_seed(0)  # expect: constant-reseed
            loss = model(x, y)
            loss.backward()
            opt.step()
    """
    check(src, {RESEED})


def test_seed_once_varying_seed_and_per_run_seed_in_a_sweep_are_fine():
    src = """
    import random
    import numpy as np
    import torch
    from torch.utils.data import Dataset

    torch.manual_seed(0)

    class Augmented(Dataset):
        def __getitem__(self, i):
            rng = np.random.default_rng((self.seed, self.epoch, i))
            return self.items[i] + rng.normal(size=3)

    def sweep(make_model, loader, lrs):
        for lr in lrs:
            torch.manual_seed(0)
            model = make_model()
            opt = torch.optim.SGD(model.parameters(), lr=lr)
            for epoch in range(3):
                random.seed(1000 + epoch)
                for x, y in loader:
                    loss = model(x, y)
                    loss.backward()
                    opt.step()
    """
    check(src, {RESEED})
