import torch
import torch.nn as nn


class ConvBlock(nn.Module):
    def __init__(self, in_ch, out_ch, kernel_size=5):
        super().__init__()
        self.conv = nn.Conv1d(in_ch, out_ch, kernel_size, padding=kernel_size // 2)
        self.norm = nn.BatchNorm1d(out_ch)
        self.act = nn.GELU()

    def forward(self, x):
        return self.act(self.norm(self.conv(x)))


class PhonemeFrameEncoder(nn.Module):
    """Mel frames [B, T, n_mels] -> per-frame phoneme scores [B, T, n_phonemes + 1]."""

    def __init__(self, n_mels=80, hidden=128, n_phonemes=40):
        super().__init__()
        self.convs = nn.Sequential(ConvBlock(n_mels, hidden), ConvBlock(hidden, hidden))
        self.rnn = nn.GRU(hidden, hidden, batch_first=True, bidirectional=True)
        self.ph_head = nn.Linear(2 * hidden, n_phonemes + 1)
        self.boundary_head = nn.Linear(2 * hidden, 1)

    def forward(self, mel):
        x = self.convs(mel.transpose(1, 2)).transpose(1, 2)
        x, _ = self.rnn(x)
        return {
            "ph_frame_logits": self.ph_head(x),
            "boundary_logits": self.boundary_head(x).squeeze(-1),
        }
