import torch
from torch.utils.data import Dataset


class MOSEIEmotionDataset(Dataset):
    """Utterance-level text/audio/video features with per-emotion intensities in [0, 3]."""

    EMOTIONS = ["anger", "happiness", "sadness", "disgust", "fear", "surprise"]

    def __init__(self, n_utts, emotion, seq_len=20, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.text = torch.randn(n_utts, seq_len, 100, generator=g)
        self.audio = torch.randn(n_utts, seq_len, 73, generator=g)
        self.video = torch.randn(n_utts, seq_len, 35, generator=g)
        rate = {"anger": 0.21, "happiness": 0.54, "sadness": 0.25,
                "disgust": 0.17, "fear": 0.08, "surprise": 0.10}[emotion]
        present = torch.rand(n_utts, generator=g) < rate
        self.text[present, :, 0] += 1.0
        intensity = torch.rand(n_utts, generator=g) * 3
        self.intensity = torch.where(present, intensity.clamp_min(0.3), torch.zeros_like(intensity))

    def __len__(self):
        return len(self.intensity)

    def __getitem__(self, idx):
        label = int(self.intensity[idx] > 0)
        return self.text[idx], self.audio[idx], self.video[idx], label
