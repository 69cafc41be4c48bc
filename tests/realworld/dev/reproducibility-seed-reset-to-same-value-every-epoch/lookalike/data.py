import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class SpecAugment:
    """Random time and frequency masking on (T, F) feature matrices."""

    def __init__(self, time_mask=6, freq_mask=4, num_masks=2):
        self.time_mask, self.freq_mask, self.num_masks = time_mask, freq_mask, num_masks

    def __call__(self, feats):
        feats = feats.clone()
        T, F = feats.shape
        for _ in range(self.num_masks):
            t = int(torch.randint(0, self.time_mask + 1, (1,)))
            t0 = int(torch.randint(0, T - t + 1, (1,)))
            feats[t0:t0 + t] = 0
            f = int(torch.randint(0, self.freq_mask + 1, (1,)))
            f0 = int(torch.randint(0, F - f + 1, (1,)))
            feats[:, f0:f0 + f] = 0
        return feats


class KeywordDataset(Dataset):
    """Synthetic fbank-like utterances: each keyword is a spectro-temporal template plus noise."""

    def __init__(self, num_utts, num_classes=8, T=32, F=16, seed=0, transform=None):
        rng = np.random.default_rng(seed)
        templates = np.random.default_rng(1234).normal(size=(num_classes, T, F))
        self.labels = rng.integers(0, num_classes, num_utts)
        shift = rng.integers(-3, 4, num_utts)
        feats = np.stack([np.roll(templates[c], s, axis=0) for c, s in zip(self.labels, shift)])
        self.feats = torch.tensor(feats + 1.8 * rng.normal(size=feats.shape), dtype=torch.float32)
        self.ids = [f"utt-{seed}-{i:05d}" for i in range(num_utts)]
        self.transform = transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        x = self.feats[idx]
        if self.transform is not None:
            x = self.transform(x)
        return x, int(self.labels[idx]), self.ids[idx]


def collate(batch):
    feats, labels, ids = zip(*batch)
    return torch.stack(feats), torch.tensor(labels), list(ids)


def get_dataloaders(params):
    train = KeywordDataset(params.num_train_utts, seed=0, transform=SpecAugment())
    valid = KeywordDataset(400, seed=1)
    train_dl = DataLoader(train, batch_size=params.batch_size, shuffle=True, collate_fn=collate)
    valid_dl = DataLoader(valid, batch_size=200, collate_fn=collate)
    return train_dl, valid_dl
