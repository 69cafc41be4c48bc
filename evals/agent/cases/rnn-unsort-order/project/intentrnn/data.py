"""Datasets, padding collate and a length-bucketed batch sampler."""
from __future__ import annotations

import random

import torch
from torch.utils.data import DataLoader, Dataset, Sampler

from .synth import make_corpus
from .vocab import Vocab


class IntentDataset(Dataset):
    def __init__(self, texts, labels, vocab: Vocab, word_dropout: float = 0.0):
        self.ids = [vocab.encode(t) for t in texts]
        self.labels = list(labels)
        self.unk_id = vocab.unk_id
        self.word_dropout = word_dropout

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, idx):
        ids = self.ids[idx]
        if self.word_dropout > 0:
            ids = [self.unk_id if random.random() < self.word_dropout else t for t in ids]
        return torch.tensor(ids, dtype=torch.long), self.labels[idx]

    def lengths(self) -> list[int]:
        return [len(x) for x in self.ids]


class PadCollate:
    """Pads token ids to the longest sequence of the batch; returns (tokens [B, T], lengths [B], labels [B])."""

    def __init__(self, pad_id: int):
        self.pad_id = pad_id

    def __call__(self, batch):
        seqs, labels = zip(*batch)
        lengths = torch.tensor([len(s) for s in seqs], dtype=torch.long)
        tokens = torch.full((len(seqs), int(lengths.max())), self.pad_id, dtype=torch.long)
        for i, s in enumerate(seqs):
            tokens[i, : len(s)] = s
        return tokens, lengths, torch.tensor(labels, dtype=torch.long)


class BucketBatchSampler(Sampler):
    """Batches of similar length (less padding). Longest first within each batch; batch order optionally shuffled."""

    def __init__(self, lengths, batch_size: int, shuffle: bool = False, seed: int = 0):
        self.lengths = list(lengths)
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.rng = random.Random(seed)

    def __iter__(self):
        order = sorted(range(len(self.lengths)), key=lambda i: -self.lengths[i])
        batches = [order[i:i + self.batch_size] for i in range(0, len(order), self.batch_size)]
        if self.shuffle:
            self.rng.shuffle(batches)
        return iter(batches)

    def __len__(self) -> int:
        return (len(self.lengths) + self.batch_size - 1) // self.batch_size


def build_data(data_cfg):
    train_texts, train_labels = make_corpus(data_cfg.n_train, data_cfg.min_len, data_cfg.max_len, data_cfg.seed)
    val_texts, val_labels = make_corpus(data_cfg.n_val, data_cfg.min_len, data_cfg.max_len, data_cfg.seed + 1)
    vocab = Vocab.build(train_texts, data_cfg.max_vocab)
    train = IntentDataset(train_texts, train_labels, vocab, data_cfg.word_dropout)
    val = IntentDataset(val_texts, val_labels, vocab)
    collate = PadCollate(vocab.pad_id)
    g = torch.Generator().manual_seed(data_cfg.seed)
    train_loader = DataLoader(train, batch_size=data_cfg.batch_size, shuffle=True, collate_fn=collate, generator=g)
    val_loader = DataLoader(val, batch_sampler=BucketBatchSampler(val.lengths(), 128), collate_fn=collate)
    return vocab, train_loader, val_loader
