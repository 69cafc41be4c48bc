import torch
import torch.nn as nn


class SeqClassifier(nn.Module):
    def __init__(self, vocab=6, d_model=32, nhead=4, layers=2, max_len=8):
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Parameter(torch.randn(1, max_len, d_model) * 0.1)
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=64, dropout=0.0)
        self.encoder = nn.TransformerEncoder(layer, num_layers=layers)
        self.cls = nn.Linear(d_model, 2)

    def forward(self, tokens):
        h = self.tok(tokens) + self.pos[:, : tokens.shape[1]]
        h = self.encoder(h)
        return self.cls(h.mean(dim=1))
