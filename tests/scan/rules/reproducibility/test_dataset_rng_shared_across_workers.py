"""The ``dataset-rng-shared-across-workers`` rule (``mlsleuth/scan/rules/reproducibility/dataset_rng_shared_across_workers.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

RULE = "dataset-rng-shared-across-workers"


def test_generator_made_in_init_and_drawn_in_getitem_with_workers():
    src = """
    import numpy as np
    from torch.utils.data import DataLoader, Dataset

    class Crops(Dataset):
        def __init__(self, images, seed=0):
            self.images = images
            self.rng = np.random.default_rng(seed)

        def __len__(self):
            return len(self.images)

        def _offset(self):
            return self.rng.integers(0, 8, size=2)  # expect: dataset-rng-shared-across-workers

        def __getitem__(self, i):
            dy, dx = self._offset()
            return self.images[i][dy:dy + 24, dx:dx + 24]

    loader = DataLoader(Crops(images), batch_size=32, shuffle=True, num_workers=4)
    """
    (f,) = findings(src, RULE)
    check(src, {RULE})
    assert "num_workers=4" in f.observation


def test_torch_generator_passed_as_keyword():
    src = """
    import torch
    from torch.utils import data

    class Noise(data.Dataset):
        def __init__(self, n):
            self.n = n
            self.gen = torch.Generator().manual_seed(0)

        def __getitem__(self, i):
            return torch.randn(3, generator=self.gen)  # expect: dataset-rng-shared-across-workers

    def make(workers):
        return data.DataLoader(Noise(10), num_workers=workers)
    """
    check(src, {RULE})


def test_global_numpy_random_worker_init_fn_and_no_workers_are_fine():
    global_np = """
    import numpy as np
    from torch.utils.data import DataLoader, Dataset

    class Jitter(Dataset):
        def __getitem__(self, i):
            return i + np.random.rand()

    loader = DataLoader(Jitter(), num_workers=4)
    """
    seeded = """
    import numpy as np
    from torch.utils.data import DataLoader, Dataset, get_worker_info

    class Jitter(Dataset):
        def __init__(self):
            self.rng = np.random.default_rng(0)

        def __getitem__(self, i):
            return i + self.rng.random()

    def seed_worker(worker_id):
        get_worker_info().dataset.rng = np.random.default_rng(get_worker_info().seed)

    loader = DataLoader(Jitter(), num_workers=4, worker_init_fn=seed_worker)
    """
    single = """
    import numpy as np
    from torch.utils.data import DataLoader, Dataset

    class Jitter(Dataset):
        def __init__(self):
            self.rng = np.random.default_rng(0)

        def __getitem__(self, i):
            return i + self.rng.random()

    loader = DataLoader(Jitter(), num_workers=0)
    """
    per_item = """
    import numpy as np
    from torch.utils.data import DataLoader, Dataset

    class Jitter(Dataset):
        def __init__(self, seed):
            self.seed = seed
            self.rng = np.random.default_rng(seed)

        def __getitem__(self, i):
            self.rng = np.random.default_rng((self.seed, i))
            return i + self.rng.random()

    loader = DataLoader(Jitter(0), num_workers=2)
    """
    for src in (global_np, seeded, single, per_item):
        check(src, {RULE})


def test_module_level_generator_in_iterable_dataset():
    src = """
    import random
    from torch.utils.data import DataLoader, IterableDataset

    rng = random.Random(1234)

    class Stream(IterableDataset):
        def __iter__(self):
            for i in range(100):
                yield i, rng.random()  # expect: dataset-rng-shared-across-workers

    loader = DataLoader(Stream(), batch_size=8, num_workers=2)
    """
    check(src, {RULE})


def test_generator_in_a_batch_sampler_runs_in_the_main_process():
    # A (batch) sampler is iterated by the DataLoader in the main process, even with workers: its
    # generator is never copied into a worker, and it keeps its state from epoch to epoch.
    src = """
    import random
    from torch.utils.data import DataLoader, Dataset, Sampler

    class BucketBatches(Sampler):
        def __init__(self, lengths, batch_size, seed=0):
            self.lengths = lengths
            self.batch_size = batch_size
            self.rng = random.Random(seed)

        def __iter__(self):
            order = sorted(range(len(self.lengths)), key=self.lengths.__getitem__)
            batches = [order[i:i + self.batch_size] for i in range(0, len(order), self.batch_size)]
            self.rng.shuffle(batches)
            return iter(batches)

        def __len__(self):
            return (len(self.lengths) + self.batch_size - 1) // self.batch_size

    class Tokens(Dataset):
        def __init__(self, rows):
            self.rows = rows

        def __len__(self):
            return len(self.rows)

        def __getitem__(self, i):
            return self.rows[i]

    def loader(rows, lengths):
        return DataLoader(Tokens(rows), batch_sampler=BucketBatches(lengths, 16), num_workers=4)
    """
    check(src, set())
