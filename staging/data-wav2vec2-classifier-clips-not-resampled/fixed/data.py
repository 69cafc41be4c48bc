import os

import pandas as pd
import torch
import torchaudio
from torch.utils.data import Dataset

TARGET_SR = 16000
MAX_SECONDS = 6.0


class VoiceClipDataset(Dataset):
    """Rows of metadata.csv: path, speaker_id, gender (m/f). Clips come from several corpora."""

    label2id = {"m": 0, "f": 1}

    def __init__(self, root, split):
        meta = pd.read_csv(os.path.join(root, "metadata.csv"))
        self.meta = meta[meta["split"] == split].reset_index(drop=True)
        self.root = root

    def __len__(self):
        return len(self.meta)

    def load_audio(self, rel_path):
        audio, sr = torchaudio.load(os.path.join(self.root, rel_path))
        audio = audio.mean(dim=0)
        if sr != TARGET_SR:
            audio = torchaudio.functional.resample(audio, orig_freq=sr, new_freq=TARGET_SR)
        return audio[: int(MAX_SECONDS * TARGET_SR)]

    def __getitem__(self, idx):
        row = self.meta.iloc[idx]
        return {"audio": self.load_audio(row["path"]), "label": self.label2id[row["gender"]]}


class AudioCollator:
    def __init__(self, feature_extractor):
        self.feature_extractor = feature_extractor

    def __call__(self, batch):
        waves = [item["audio"].numpy() for item in batch]
        feats = self.feature_extractor(
            waves, sampling_rate=TARGET_SR, padding=True, return_attention_mask=True, return_tensors="pt"
        )
        feats["labels"] = torch.tensor([item["label"] for item in batch], dtype=torch.long)
        return feats
