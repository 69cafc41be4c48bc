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


def test_private_generator_rebuilt_per_sample_per_call_and_per_step():
    # vision dataset with a seed from __init__, an audio transform with a module constant, a helper called
    # from forward, an RL rollout loop that trains, a tabular noise step through an alias of numpy
    src = """
    import random
    import numpy as np
    import numpy.random as npr
    import torch
    from torch import nn
    from torch.utils.data import Dataset

    SEED = 1234

    class Crops(Dataset):
        def __init__(self, images, cfg):
            self.images = images
            self.cfg = cfg
            self.seed = cfg.seed

        def __len__(self):
            return len(self.images)

        def __getitem__(self, idx):
            rng = np.random.default_rng(self.seed)  # expect: constant-reseed
            top = rng.integers(0, 32)
            return self.images[idx][top:top + 224]

    class TimeShift:
        def __call__(self, wave):
            g = torch.Generator()
            g.manual_seed(SEED)  # expect: constant-reseed
            shift = int(torch.randint(0, 1600, (1,), generator=g))
            return torch.roll(wave, shift)

    def token_dropout(ids, p):
        keep = random.Random(0).random()  # expect: constant-reseed
        return ids if keep > p else ids[1:]

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(100, 8)

        def forward(self, ids):
            return self.emb(token_dropout(ids, 0.1))

    def rollout_and_train(policy, opt, env, steps):
        for t in range(steps):
            rs = npr.RandomState(42)  # expect: constant-reseed
            eps = rs.rand()
            obs = env.reset()
            loss = policy(torch.as_tensor(obs)).sum() * eps
            loss.backward()
            opt.step()
            opt.zero_grad()
    """
    check(src, {RESEED})


def test_private_generators_that_vary_or_are_built_once_stay_silent():
    src = """
    import numpy as np
    import torch
    from torch import nn
    from torch.utils.data import Dataset, get_worker_info

    SEED = 7

    class Crops(Dataset):
        def __init__(self, images, seed=0):
            self.images = images
            self.seed = seed
            self.rng = np.random.default_rng(seed)         # built once
            self.epoch = 0

        def set_epoch(self, epoch):
            self.epoch = epoch

        def __len__(self):
            return len(self.images)

        def __getitem__(self, idx):
            a = np.random.default_rng(self.seed + idx).integers(0, 32)          # per index
            b = np.random.default_rng((self.seed, self.epoch, idx)).random()    # per epoch and index
            c = np.random.default_rng().random()                                 # fresh entropy
            info = get_worker_info()
            d = np.random.default_rng(info.seed if info else 0).random()         # per worker
            e = self.rng.integers(0, 8)
            f = np.random.default_rng(self.epoch).random()                       # changed by set_epoch
            return self.images[idx][a:], b, c, d, e, f

    class ValCrops(Dataset):
        def __getitem__(self, idx):
            rng = np.random.default_rng(SEED)      # a fixed evaluation view on purpose
            return rng.random()

    class Noise(nn.Module):
        def forward(self, x, seed):
            g = torch.Generator().manual_seed(seed)   # the caller chooses the seed per call
            return x + torch.randn(x.shape, generator=g)

    class Unused:
        def __call__(self, x):
            np.random.default_rng(0)                  # built but never drawn from
            return x

    def make_fixed_split(n):
        rng = np.random.default_rng(SEED)             # runs once: a reproducible split
        return rng.permutation(n)
    """
    check(src, {RESEED})


def test_sampler_steps_and_periodic_validation_images_stay_silent():
    # a diffusion sampler's scheduler.step(residual, t, sample) and an environment's env.step(a) are not
    # optimizer steps; a fixed generator for the validation images every N steps is deliberate
    src = """
    import torch

    def compare(scheduler, other, sample, model):
        for t in scheduler.timesteps:
            residual = model(sample, t)
            g = torch.manual_seed(0)
            out = scheduler.step(residual, t, sample, generator=g).prev_sample
            g = torch.manual_seed(0)
            ref = other.step(residual, t, sample, generator=g).prev_sample
            assert torch.allclose(out, ref)

    def train(unet, pipeline, opt, loader, args):
        for step, batch in enumerate(loader):
            loss = unet(batch).mean()
            loss.backward()
            opt.step()
            opt.zero_grad()
            if step % args.validation_steps == 0:
                generator = torch.Generator().manual_seed(args.seed)
                images = [pipeline(args.prompt, generator=generator) for _ in range(4)]
    """
    check(src, {RESEED})
