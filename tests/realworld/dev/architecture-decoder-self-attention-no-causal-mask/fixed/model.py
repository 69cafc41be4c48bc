import torch
import torch.nn as nn


class TinyDecoder(nn.Module):
    def __init__(self, vocab, d_model=48, nhead=4, n_layers=2, max_len=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(max_len, d_model)
        block = nn.TransformerEncoderLayer(d_model, nhead, 4 * d_model, dropout=0.0, batch_first=True)
        self.decoder = nn.TransformerEncoder(block, n_layers)
        self.lm_head = nn.Linear(d_model, vocab)

    def forward(self, idx):
        T = idx.shape[1]
        pos = torch.arange(T, device=idx.device)
        h = self.embed(idx) + self.pos(pos)
        causal = nn.Transformer.generate_square_subsequent_mask(T)
        h = self.decoder(h, mask=causal, is_causal=True)
        return self.lm_head(h)

    @torch.no_grad()
    def generate(self, idx, n_new):
        for _ in range(n_new):
            logits = self(idx)[:, -1]
            idx = torch.cat([idx, logits.argmax(-1, keepdim=True)], dim=1)
        return idx
