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
        return audio[: int(MAX_SECONDS * sr)], sr

    def __getitem__(self, idx):
        row = self.meta.iloc[idx]
        audio, sr = self.load_audio(row["path"])
        return {"audio": audio, "sr": sr, "label": self.label2id[row["gender"]]}


class AudioCollator:
    def __init__(self, feature_extractor):
        self.feature_extractor = feature_extractor

    def __call__(self, batch):
        waves = [
            torchaudio.functional.resample(item["audio"], orig_freq=item["sr"], new_freq=TARGET_SR).numpy()
            if item["sr"] != TARGET_SR else item["audio"].numpy()
            for item in batch
        ]
        feats = self.feature_extractor(
            waves, sampling_rate=TARGET_SR, padding=True, return_attention_mask=True, return_tensors="pt"
        )
        feats["labels"] = torch.tensor([item["label"] for item in batch], dtype=torch.long)
        return feats
