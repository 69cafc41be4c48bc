import csv
from pathlib import Path

import torch
import torchaudio
from torch.utils.data import Dataset

from config import CLIP_SECONDS, MEL_PARAMS, SAMPLE_RATE


class LogMel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mel = torchaudio.transforms.MelSpectrogram(**MEL_PARAMS)
        self.to_db = torchaudio.transforms.AmplitudeToDB(top_db=80.0)

    def forward(self, wave):
        return self.to_db(self.mel(wave))


class TaggingDataset(Dataset):
    """Rows of (filename, label) from a csv; clips are mono, resampled, cropped or padded."""

    def __init__(self, csv_path, audio_dir, label_to_idx, train=True):
        with open(csv_path) as fh:
            self.rows = [(r["fname"], r["label"]) for r in csv.DictReader(fh)]
        self.audio_dir = Path(audio_dir)
        self.label_to_idx = label_to_idx
        self.train = train
        self.num_samples = SAMPLE_RATE * CLIP_SECONDS
        self.features = LogMel()

    def __len__(self):
        return len(self.rows)

    def _fix_length(self, wave):
        if wave.shape[-1] >= self.num_samples:
            if self.train:
                start = torch.randint(0, wave.shape[-1] - self.num_samples + 1, (1,)).item()
            else:
                start = 0
            return wave[..., start:start + self.num_samples]
        return torch.nn.functional.pad(wave, (0, self.num_samples - wave.shape[-1]))

    def __getitem__(self, idx):
        fname, label = self.rows[idx]
        wave, sr = torchaudio.load(str(self.audio_dir / fname))
        wave = wave.mean(dim=0)
        if sr != SAMPLE_RATE:
            wave = torchaudio.functional.resample(wave, sr, SAMPLE_RATE)
        wave = self._fix_length(wave)
        return self.features(wave).unsqueeze(0), self.label_to_idx[label]
