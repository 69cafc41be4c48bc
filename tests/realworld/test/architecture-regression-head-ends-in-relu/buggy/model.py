import torch
import torch.nn as nn


class RTPredictor(nn.Module):
    """Bidirectional LSTM that regresses the (standardised) retention time of a peptide."""

    def __init__(self, vocab_size=22, emb_dim=32, hidden=128, dropout=0.1):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb_dim, padding_idx=0)
        self.lstm = nn.LSTM(emb_dim, hidden, num_layers=2, batch_first=True, bidirectional=True, dropout=dropout)
        self.head = nn.Sequential(
            nn.Linear(2 * hidden, 64),
            nn.ReLU(),
            nn.Dropout(dropout),
            nn.Linear(64, 1),
            nn.ReLU(),
        )

    def forward(self, tokens):
        out, _ = self.lstm(self.embedding(tokens))
        mask = (tokens != 0).unsqueeze(-1).float()
        pooled = (out * mask).sum(1) / mask.sum(1).clamp(min=1)
        return self.head(pooled).squeeze(-1)
