import torch
from torch import nn


class PeriodicPositionalEncoding(nn.Module):
    def __init__(self, d_model, period=25, max_seq_len=600):
        super().__init__()
        pe = torch.zeros(period, d_model)
        position = torch.arange(0, period, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-torch.log(torch.tensor(10000.0)) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        repeat = max_seq_len // period + 1
        self.register_buffer("pe", pe.repeat(repeat, 1).unsqueeze(0))

    def forward(self, x):
        return x + self.pe[:, : x.size(1)]


class AudioToFace(nn.Module):
    def __init__(self, audio_dim=768, vertice_dim=15069, feature_dim=128, n_layers=2):
        super().__init__()
        self.audio_proj = nn.Linear(audio_dim, feature_dim)
        self.ppe = PeriodicPositionalEncoding(feature_dim)
        layer = nn.TransformerEncoderLayer(feature_dim, nhead=4, dim_feedforward=2 * feature_dim, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=n_layers)
        self.vertice_map_r = nn.Linear(feature_dim, vertice_dim)
        nn.init.zeros_(self.vertice_map_r.weight)
        nn.init.zeros_(self.vertice_map_r.bias)

    def forward(self, audio, template, vertice, criterion):
        # audio: (B, 2T, audio_dim) -> average pairs of audio frames to the 25 fps mesh rate
        b, t2, d = audio.shape
        audio = audio[:, : t2 // 2 * 2].reshape(b, t2 // 2, 2, d).mean(2)
        frames = min(audio.shape[1], vertice.shape[1])
        hidden = self.encoder(self.ppe(self.audio_proj(audio[:, :frames])))
        vertice_out = self.vertice_map_r(hidden) + template.unsqueeze(1)
        return criterion(vertice_out, vertice[:, :frames])
