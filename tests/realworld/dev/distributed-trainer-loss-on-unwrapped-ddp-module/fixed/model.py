"""Time-series language model: a patch encoder whose embeddings prefix a small causal decoder."""
import torch
import torch.nn.functional as F
from torch import nn


class TimeSeriesEncoder(nn.Module):
    def __init__(self, patch_size=8, dim=64):
        super().__init__()
        self.patch_size = patch_size
        self.proj = nn.Linear(patch_size, dim)

    def forward(self, series):
        b, t = series.shape
        patches = series[:, : t - t % self.patch_size].view(b, -1, self.patch_size)
        return self.proj(patches)


class TSLanguageModel(nn.Module):
    def __init__(self, vocab_size=128, dim=64, layers=2, heads=4):
        super().__init__()
        self.encoder = TimeSeriesEncoder(dim=dim)
        self.tok_emb = nn.Embedding(vocab_size, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, dim * 2, batch_first=True)
        self.decoder = nn.TransformerEncoder(layer, layers)
        self.lm_head = nn.Linear(dim, vocab_size)

    def _logits(self, series, input_ids):
        prefix = self.encoder(series)
        x = torch.cat([prefix, self.tok_emb(input_ids)], dim=1)
        mask = nn.Transformer.generate_square_subsequent_mask(x.size(1))
        h = self.decoder(x, mask=mask, is_causal=True)
        return self.lm_head(h[:, prefix.size(1):])

    def compute_loss(self, batch):
        logits = self._logits(batch["series"], batch["input_ids"][:, :-1])
        return F.cross_entropy(logits.reshape(-1, logits.size(-1)), batch["input_ids"][:, 1:].reshape(-1))

    def forward(self, batch):
        return self.compute_loss(batch)

    @torch.no_grad()
    def generate(self, series, bos_id=1, max_new_tokens=8):
        ids = torch.full((series.size(0), 1), bos_id, dtype=torch.long)
        for _ in range(max_new_tokens):
            next_id = self._logits(series, ids)[:, -1].argmax(-1, keepdim=True)
            ids = torch.cat([ids, next_id], dim=1)
        return ids
