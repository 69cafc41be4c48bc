"""Tiny GPT pre-training on a stream of token ids (character level)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class TokenWindows(Dataset):
    def __init__(self, ids: torch.Tensor, block: int):
        self.ids = ids
        self.block = block

    def __len__(self):
        return len(self.ids) - self.block

    def __getitem__(self, i):
        return {"input_ids": self.ids[i : i + self.block]}


class TinyGPT(nn.Module):
    def __init__(self, vocab: int, dim: int = 128, layers: int = 2, block: int = 64):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(block, dim)
        layer = nn.TransformerEncoderLayer(dim, 4, 4 * dim, batch_first=True)
        self.blocks = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(dim, vocab)

    def forward(self, input_ids):
        t = input_ids.size(1)
        causal = nn.Transformer.generate_square_subsequent_mask(t)
        h = self.tok(input_ids) + self.pos(torch.arange(t, device=input_ids.device))
        return self.head(self.blocks(h, mask=causal, is_causal=True))


def lm_loss(model, batch):
    input_ids = batch["input_ids"]
    logits = model(input_ids[:, :-1])
    targets = input_ids[:, 1:]
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))


def train(model, ids, steps=1000, lr=3e-4):
    loader = DataLoader(TokenWindows(ids, 64), batch_size=32, shuffle=True)
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    step = 0
    while step < steps:
        for batch in loader:
            loss = lm_loss(model, batch)
            if not torch.isfinite(loss):
                raise FloatingPointError(f"loss is {loss.item()} at step {step}; run `mlsleuth nan` on this batch")
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            step += 1
            if step % 100 == 0:
                print(f"step {step} loss {loss.item():.3f} ppl {math.exp(loss.item()):.1f}")
    return model
