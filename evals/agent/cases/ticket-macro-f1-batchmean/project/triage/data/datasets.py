"""Splits, datasets and loaders. Batches are (token_ids, offsets, labels) for nn.EmbeddingBag."""
from __future__ import annotations

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from ..registry import DATASETS
from .synth import QUEUES, make_tickets
from .vocab import Vocab


class LabelEncoder:
    def __init__(self, classes):
        self.classes = list(classes)
        self.index = {c: i for i, c in enumerate(self.classes)}

    def __call__(self, labels):
        return [self.index[c] for c in labels]


def stratified_split(labels, val_fraction: float, seed: int):
    """Indices (train, val) with every class split in the same proportion."""
    rng = np.random.default_rng(seed)
    labels = np.asarray(labels)
    train, val = [], []
    for c in np.unique(labels):
        idx = np.flatnonzero(labels == c)
        rng.shuffle(idx)
        n_val = max(1, int(round(len(idx) * val_fraction)))
        val.extend(idx[:n_val].tolist())
        train.extend(idx[n_val:].tolist())
    return sorted(train), sorted(val)


class TicketDataset(Dataset):
    def __init__(self, ids, labels):
        self.ids = ids
        self.labels = labels

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.ids[i], self.labels[i]


def collate(batch):
    lengths = [len(ids) for ids, _ in batch]
    tokens = torch.tensor([t for ids, _ in batch for t in ids], dtype=torch.long)
    offsets = torch.tensor([0] + lengths[:-1], dtype=torch.long).cumsum(0)
    labels = torch.tensor([y for _, y in batch], dtype=torch.long)
    return tokens, offsets, labels


@DATASETS.register("simulated_tickets")
def simulated_tickets(cfg):
    texts, queues = make_tickets(cfg.n_tickets, cfg.seed)
    encoder = LabelEncoder(QUEUES)
    labels = encoder(queues)
    train_idx, val_idx = stratified_split(labels, cfg.val_fraction, cfg.seed)
    vocab = Vocab.build([texts[i] for i in train_idx], min_count=cfg.min_count)
    encode = lambda idx: TicketDataset([vocab.encode(texts[i]) for i in idx], [labels[i] for i in idx])  # noqa: E731
    return encode(train_idx), encode(val_idx), vocab


def build_data(cfg):
    train, val, vocab = DATASETS.build(cfg.name, cfg)
    g = torch.Generator().manual_seed(cfg.seed)
    train_loader = DataLoader(train, batch_size=cfg.batch_size, shuffle=True, generator=g, collate_fn=collate,
                              drop_last=True)
    val_loader = DataLoader(val, batch_size=cfg.eval_batch_size, shuffle=False, collate_fn=collate)
    return train_loader, val_loader, vocab


def class_counts(dataset, n_classes: int) -> torch.Tensor:
    return torch.bincount(torch.tensor(dataset.labels), minlength=n_classes)


def n_classes() -> int:
    return len(QUEUES)
