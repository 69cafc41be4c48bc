import torch
import torch.nn as nn


class BiModalGRU(nn.Module):
    def __init__(self, d_t=100, d_a=73, d_v=35, hidden=64, n_classes=2, dropout=0.2):
        super().__init__()
        self.proj_t = nn.Linear(d_t, hidden)
        self.proj_a = nn.Linear(d_a, hidden)
        self.proj_v = nn.Linear(d_v, hidden)
        self.gru = nn.GRU(3 * hidden, hidden, batch_first=True)
        self.dropout = nn.Dropout(dropout)
        self.smax_fc = nn.Linear(hidden, n_classes)

    def forward(self, text, audio, video):
        fused = torch.cat([self.proj_t(text), self.proj_a(audio), self.proj_v(video)], dim=-1)
        out, _ = self.gru(torch.relu(fused))
        return self.smax_fc(self.dropout(out[:, -1]))
