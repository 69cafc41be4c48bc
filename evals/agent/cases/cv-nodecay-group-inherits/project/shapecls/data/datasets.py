import torch
from torch.utils.data import DataLoader, Dataset

from ..registry import DATASETS, create
from . import synthetic  # noqa: F401  (registers "shapes")
from .transforms import build_transform, worker_rng


class ArrayDataset(Dataset):
    def __init__(self, images, labels, transform, seed=0):
        self.images = images
        self.labels = torch.as_tensor(labels)
        self.transform = transform
        self.seed = seed
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        rng = worker_rng(self.seed, i, self.epoch)
        return self.transform(self.images[i], rng), self.labels[i]


def build_loaders(cfg):
    params = dict(cfg.params)
    train = ArrayDataset(*create(DATASETS, cfg.name, split="train", **params),
                         build_transform(True, cfg.aug), seed=cfg.seed)
    val = ArrayDataset(*create(DATASETS, cfg.name, split="val", **params),
                       build_transform(False, cfg.aug), seed=cfg.seed)
    gen = torch.Generator().manual_seed(cfg.seed)
    train_loader = DataLoader(train, batch_size=cfg.batch_size, shuffle=True, drop_last=True,
                              generator=gen, num_workers=cfg.workers)
    val_loader = DataLoader(val, batch_size=cfg.eval_batch_size, shuffle=False,
                            num_workers=cfg.workers)
    return train_loader, val_loader
