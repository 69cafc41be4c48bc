"""DataModule reading cached simulation shards and splitting them into train/val/test files."""
import os
import random

import lightning as L
import torch
from torch.utils.data import DataLoader, Dataset


class ShardDataset(Dataset):
    def __init__(self, cached_data_path, file_names):
        self.items = []
        for name in file_names:
            self.items.extend(torch.load(os.path.join(cached_data_path, name)))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        return self.items[idx]


class CachedSimulatedDataModule(L.LightningDataModule):
    def __init__(self, cached_data_path, splits=(0.7, 0.15, 0.15), batch_size=32, seed=42, num_workers=0):
        super().__init__()
        self.cached_data_path = cached_data_path
        self.splits = splits
        self.batch_size = batch_size
        self.seed = seed
        self.num_workers = num_workers

    def setup(self, stage=None):
        file_names = [f for f in os.listdir(self.cached_data_path) if f.endswith(".pt")]
        shard_index = {f: int(f.split("_")[1]) for f in file_names}
        rng = random.Random(self.seed)
        order = list(range(max(shard_index.values()) + 1))
        rng.shuffle(order)
        rank = {shard: i / len(order) for i, shard in enumerate(order)}
        train_cut, val_cut = self.splits[0], self.splits[0] + self.splits[1]
        by_index = lambda f: shard_index[f]
        self.train_files = sorted((f for f in file_names if rank[shard_index[f]] < train_cut), key=by_index)
        self.val_files = sorted((f for f in file_names if train_cut <= rank[shard_index[f]] < val_cut), key=by_index)
        self.test_files = sorted((f for f in file_names if rank[shard_index[f]] >= val_cut), key=by_index)
        self.train_dataset = ShardDataset(self.cached_data_path, self.train_files)
        self.val_dataset = ShardDataset(self.cached_data_path, self.val_files)
        self.test_dataset = ShardDataset(self.cached_data_path, self.test_files)

    def train_dataloader(self):
        return DataLoader(self.train_dataset, batch_size=self.batch_size, shuffle=True, num_workers=self.num_workers)

    def val_dataloader(self):
        return DataLoader(self.val_dataset, batch_size=self.batch_size, num_workers=self.num_workers)

    def test_dataloader(self):
        return DataLoader(self.test_dataset, batch_size=self.batch_size, num_workers=self.num_workers)
