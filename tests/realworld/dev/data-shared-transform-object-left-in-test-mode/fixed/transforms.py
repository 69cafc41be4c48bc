import torch
import torch.nn as nn


class AudioTransforms(nn.Module):
    """Waveform pipeline; random gain/time-shift/noise only in 'train' mode."""

    def __init__(self, sample_rate=32000, clip_s=5):
        super().__init__()
        self.mode = "train"
        self.n = sample_rate * clip_s

    def set_mode(self, mode):
        self.mode = mode
        return self

    def forward(self, wav):
        wav = wav[..., : self.n]
        if self.mode == "train":
            wav = wav * (10 ** (torch.empty(1).uniform_(-6, 6) / 20))
            wav = torch.roll(wav, int(torch.randint(-self.n // 10, self.n // 10, (1,))), dims=-1)
            wav = wav + 0.005 * torch.randn_like(wav)
        return (wav - wav.mean()) / (wav.std() + 1e-6)
