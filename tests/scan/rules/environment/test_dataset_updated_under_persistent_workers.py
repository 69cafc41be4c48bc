"""The ``dataset-updated-under-persistent-workers`` rule (``mlsleuth/scan/rules/environment/dataset_updated_under_persistent_workers.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"dataset-updated-under-persistent-workers"}

DATA = """
import multiprocessing as mp
from torch.utils.data import Dataset


class Curriculum(Dataset):
    def __init__(self, start=0.9):
        self.start, self.epoch = start, 0
        self.shared_epoch = mp.Value("i", 0)

    def set_epoch(self, epoch):
        self.epoch = epoch

    def set_shared_epoch(self, epoch):
        self.shared_epoch.value = epoch

    def __len__(self):
        return 100

    def __getitem__(self, i):
        return i * max(0.0, self.start - 0.1 * self.epoch)
"""


def test_set_epoch_method_of_a_dataset_in_another_file(tmp_path):
    train = """
    from torch.utils.data import DataLoader
    from data import Curriculum

    def main(epochs=10):
        train_set = Curriculum()
        loader = DataLoader(train_set, batch_size=8, num_workers=2, persistent_workers=True)  # expect: dataset-updated-under-persistent-workers
        for epoch in range(epochs):
            train_set.set_epoch(epoch)
            for x in loader:
                pass
    """
    check_project(tmp_path, {"data.py": DATA, "train.py": train}, RULE)


def test_attribute_reassigned_through_loader_dataset_and_config_flag():
    check(
        """
        import torch.utils.data as tud

        class Cfg:
            workers = 4
            persistent = True

        def fit(ds, model, cfg=Cfg()):
            dl = tud.DataLoader(ds, num_workers=cfg.workers, persistent_workers=cfg.persistent)  # expect: dataset-updated-under-persistent-workers
            for epoch in range(5):
                dl.dataset.aug_strength = 0.1 * epoch
                for i, batch in enumerate(dl):
                    model(batch)
        """,
        RULE,
    )


def test_shared_state_sampler_epoch_and_non_persistent_loaders_are_fine(tmp_path):
    train = """
    from torch.utils.data import DataLoader, DistributedSampler
    from data import Curriculum

    def main(epochs=10):
        train_set = Curriculum(start=0.5)
        sampler = DistributedSampler(train_set)
        loader = DataLoader(train_set, sampler=sampler, num_workers=2, persistent_workers=True)
        train_set.set_epoch(3)                        # before the workers start: they see it
        for epoch in range(epochs):
            sampler.set_epoch(epoch)
            train_set.set_shared_epoch(epoch)          # shared memory: every worker reads the new value
            for x in loader:
                pass
        fresh = DataLoader(train_set, num_workers=2, persistent_workers=False)
        for epoch in range(epochs):
            train_set.set_epoch(epoch)
            for x in fresh:
                pass
    """
    check_project(tmp_path, {"data.py": DATA, "train.py": train}, RULE)
