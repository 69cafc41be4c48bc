"""The ``constant-reseed`` rule (``mlsleuth/scan/rules/reproducibility/constant_reseed.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

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


def test_seed_helper_called_with_a_config_seed_every_epoch(tmp_path):
    # The seed is not a literal but never changes inside the loop; the seeding lives in a helper of another
    # module and the optimizer steps inside the per-epoch function: every epoch replays the same draws.
    check_project(
        tmp_path,
        {
            "utils.py": """
            import random
            import numpy as np
            import torch

            def fix_random_seed(seed: int):
                random.seed(seed)
                np.random.seed(seed)
                torch.manual_seed(seed)
            """,
            "train.py": """
            from utils import fix_random_seed

            def train_one_epoch(model, optimizer, loader):
                for x, y in loader:
                    optimizer.zero_grad()
                    model(x, y).backward()
                    optimizer.step()

            def run(params, model, optimizer, loader):
                fix_random_seed(params.seed)
                for epoch in range(params.start_epoch, params.num_epochs):
                    fix_random_seed(params.seed)  # expect: constant-reseed
                    train_one_epoch(model, optimizer, loader)
            """,
        },
        {RESEED},
    )


def test_invariant_seed_in_an_epoch_loop_driving_a_trainer_method():
    src = """
    import torch

    class Trainer:
        def __init__(self, model, optimizer):
            self.model = model
            self.optimizer = optimizer

        def train_epoch(self, loader):
            for x, y in loader:
                self.optimizer.zero_grad()
                self.model(x, y).backward()
                self.optimizer.step()

    def fit(args, model, loader):
        trainer = Trainer(model, torch.optim.AdamW(model.parameters(), lr=args.lr))
        for epoch in range(args.epochs):
            torch.manual_seed(args.seed)  # expect: constant-reseed
            trainer.train_epoch(loader)
    """
    check(src, {RESEED})


def test_sweeps_varying_seeds_and_private_generators_stay_silent():
    src = """
    import torch
    from torch import nn

    def set_seed(seed):
        torch.manual_seed(seed)

    def train(model, optimizer, loader):
        for x, y in loader:
            optimizer.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()

    def train_with_lr(lr, loader):
        model = nn.Linear(4, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        train(model, optimizer, loader)

    def sweep(args, loader):
        for lr in args.lrs:
            set_seed(args.seed)  # a fresh model per run: the same seed makes the runs comparable
            model = nn.Linear(4, 1)
            optimizer = torch.optim.SGD(model.parameters(), lr=lr)
            train(model, optimizer, loader)

    def sweep_inside(args, loader):
        for lr in args.lrs:
            set_seed(args.seed)
            train_with_lr(lr, loader)

    def epochs(args, model, optimizer, loader, noisy_dev):
        for epoch in range(args.epochs):
            set_seed(args.seed + epoch)
            g = torch.Generator().manual_seed(args.seed)  # a private generator: the same corruption every epoch
            dev = noisy_dev + torch.randn(noisy_dev.shape, generator=g)
            train(model, optimizer, loader)
    """
    check(src, {RESEED})
