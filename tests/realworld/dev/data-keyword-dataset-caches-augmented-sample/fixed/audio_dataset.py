import os
import random

import torch
import torch.nn.functional as F
import torchaudio
from torch.utils.data import Dataset

SAMPLE_RATE = 16000


class KeywordDataset(Dataset):
    def __init__(self, root, labels, featurizer, training=False, noise_dir=None, clip_seconds=1.0):
        self.labels = labels
        self.featurizer = featurizer
        self.training = training
        self.num_samples = int(SAMPLE_RATE * clip_seconds)
        self.items = []
        for index, label in enumerate(labels):
            folder = os.path.join(root, label)
            for name in sorted(os.listdir(folder)):
                if name.endswith(".wav"):
                    self.items.append((os.path.join(folder, name), index))
        self.noises = []
        if noise_dir is not None:
            for name in sorted(os.listdir(noise_dir)):
                if name.endswith(".wav"):
                    self.noises.append(self._load(os.path.join(noise_dir, name), pad=False))
        self.cache = {}

    def _load(self, path, pad=True):
        wav, sr = torchaudio.load(path)
        if sr != SAMPLE_RATE:
            wav = torchaudio.functional.resample(wav, sr, SAMPLE_RATE)
        wav = wav.mean(0)
        if pad:
            wav = F.pad(wav, (0, max(0, self.num_samples - wav.numel())))[: self.num_samples]
        return wav

    def augment(self, wav):
        shift = random.randint(-1600, 1600)
        wav = torch.roll(wav, shift)
        if shift > 0:
            wav[:shift] = 0
        elif shift < 0:
            wav[shift:] = 0
        if self.noises and random.random() < 0.8:
            noise = random.choice(self.noises)
            start = random.randint(0, noise.numel() - self.num_samples)
            wav = wav + random.uniform(0.0, 0.1) * noise[start:start + self.num_samples]
        return wav

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        if idx not in self.cache:
            path, label = self.items[idx]
            self.cache[idx] = (self._load(path), label)
        wav, label = self.cache[idx]
        if self.training:
            wav = self.augment(wav.clone())
        return self.featurizer(wav), label
