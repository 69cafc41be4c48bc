import os

import numpy as np
import pandas as pd
import torch
import torchaudio
from torch.utils.data import DataLoader, Dataset, WeightedRandomSampler


class CallDataset(Dataset):
    """Fixed-length clips around annotated calls, plus background noise segments."""

    def __init__(self, csv_path, cfg, augment=False):
        self.meta = pd.read_csv(csv_path)
        self.cfg = cfg
        self.augment = augment
        self.num_samples = int(cfg.seq_length * cfg.sample_rate)
        self.melspec = torchaudio.transforms.MelSpectrogram(
            sample_rate=cfg.sample_rate, n_fft=cfg.n_fft,
            hop_length=cfg.hop_length, n_mels=cfg.n_mels,
        )
        self.to_db = torchaudio.transforms.AmplitudeToDB()

    @property
    def labels(self):
        return self.meta["label"].to_numpy()

    def __len__(self):
        return len(self.meta)

    def _load_segment(self, row):
        path = os.path.join(self.cfg.audio_dir, row["filename"])
        offset = int(row["begin_time"] * self.cfg.sample_rate)
        wav, _ = torchaudio.load(path, frame_offset=offset, num_frames=self.num_samples)
        wav = wav.mean(dim=0, keepdim=True)
        if wav.shape[-1] < self.num_samples:
            wav = torch.nn.functional.pad(wav, (0, self.num_samples - wav.shape[-1]))
        return wav

    def __getitem__(self, idx):
        row = self.meta.iloc[idx]
        wav = self._load_segment(row)
        if self.augment:
            shift = np.random.randint(-1600, 1600)
            wav = torch.roll(wav, shifts=shift, dims=-1)
            wav = wav * np.random.uniform(0.7, 1.3)
        spec = self.to_db(self.melspec(wav))
        return spec, int(row["label"])


def class_balance_weights(labels, num_classes):
    counts = np.bincount(labels, minlength=num_classes).astype(np.float64)
    counts[counts == 0] = 1.0
    prior = 1.0 / counts
    return prior / prior.sum()


def get_loaders(train_cfg):
    dcfg = train_cfg.data
    train_set = CallDataset(dcfg.train_csv, dcfg, augment=True)
    val_set = CallDataset(dcfg.val_csv, dcfg, augment=False)

    if train_cfg.balance_classes:
        weights = class_balance_weights(train_set.labels, len(dcfg.label_names))
        sample_weights = weights[train_set.labels]
        sampler = WeightedRandomSampler(sample_weights, num_samples=len(train_set), replacement=True)
        train_loader = DataLoader(train_set, batch_size=train_cfg.batch_size, sampler=sampler,
                                  num_workers=train_cfg.num_workers, drop_last=True)
    else:
        train_loader = DataLoader(train_set, batch_size=train_cfg.batch_size, shuffle=True,
                                  num_workers=train_cfg.num_workers, drop_last=True)

    val_loader = DataLoader(val_set, batch_size=train_cfg.batch_size, shuffle=False,
                            num_workers=train_cfg.num_workers)
    return train_loader, val_loader
