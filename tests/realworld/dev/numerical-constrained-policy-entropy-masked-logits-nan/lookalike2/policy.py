import torch
import torch.nn as nn


class ConstrainedTokenPolicy(nn.Module):
    """Tiny GRU language policy whose vocabulary is restricted per position by a grammar mask."""

    def __init__(self, vocab_size=64, hidden=128):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden)
        self.rnn = nn.GRU(hidden, hidden, batch_first=True)
        self.lm_head = nn.Linear(hidden, vocab_size)

    def forward(self, input_ids, allowed_mask):
        h, _ = self.rnn(self.embed(input_ids))
        logits = self.lm_head(h)
        return logits.masked_fill(~allowed_mask, float("-inf"))
