"""Data module producing a synthetic tabular classification task."""
import lightning as L
import torch
from torch.utils.data import DataLoader, TensorDataset, random_split


class TabularDataModule(L.LightningDataModule):
    def __init__(self, batch_size, num_classes, n_features=20, n_samples=3000, seed=0):
        super().__init__()
        self.batch_size = batch_size
        self.num_classes = num_classes
        self.n_features = n_features
        self.n_samples = n_samples
        self.seed = seed

    def setup(self, stage=None):
        g = torch.Generator().manual_seed(self.seed)
        centers = torch.randn(self.num_classes, self.n_features, generator=g) * 1.5
        y = torch.randint(0, self.num_classes, (self.n_samples,), generator=g)
        x = centers[y] + torch.randn(self.n_samples, self.n_features, generator=g) * 2.0
        full = TensorDataset(x, y)
        self.train_set, self.val_set, self.test_set = random_split(full, [0.7, 0.15, 0.15], generator=g)

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=self.batch_size)

    def test_dataloader(self):
        return DataLoader(self.test_set, batch_size=self.batch_size)
