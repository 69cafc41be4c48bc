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
        random.Random(self.seed).shuffle(file_names)
        n_train = int(len(file_names) * self.splits[0])
        n_val = int(len(file_names) * self.splits[1])
        self.train_files = file_names[:n_train]
        self.val_files = file_names[n_train:n_train + n_val]
        self.test_files = file_names[n_train + n_val:]
        self.train_dataset = ShardDataset(self.cached_data_path, self.train_files)
        self.val_dataset = ShardDataset(self.cached_data_path, self.val_files)
        self.test_dataset = ShardDataset(self.cached_data_path, self.test_files)

    def train_dataloader(self):
        return DataLoader(self.train_dataset, batch_size=self.batch_size, shuffle=True, num_workers=self.num_workers)

    def val_dataloader(self):
        return DataLoader(self.val_dataset, batch_size=self.batch_size, num_workers=self.num_workers)

    def test_dataloader(self):
        return DataLoader(self.test_dataset, batch_size=self.batch_size, num_workers=self.num_workers)
