import torch
from torch import nn

from layers import EncoderLayer


class Encoder(nn.Module):
    def __init__(self, vocab_size, max_len, d_model, ffn_hidden, n_head, n_layers, pad_idx):
        super().__init__()
        self.tok_emb = nn.Embedding(vocab_size, d_model, padding_idx=pad_idx)
        self.pos_emb = nn.Embedding(max_len, d_model)
        self.layers = nn.ModuleList([EncoderLayer(d_model, ffn_hidden, n_head) for _ in range(n_layers)])

    def forward(self, src, src_mask):
        positions = torch.arange(src.size(1), device=src.device)
        x = self.tok_emb(src) + self.pos_emb(positions)
        for layer in self.layers:
            x = layer(x, src_mask)
        return x


class SequenceClassifier(nn.Module):
    def __init__(self, vocab_size, num_classes, pad_idx=0, max_len=64, d_model=32,
                 ffn_hidden=64, n_head=4, n_layers=2):
        super().__init__()
        self.pad_idx = pad_idx
        self.encoder = Encoder(vocab_size, max_len, d_model, ffn_hidden, n_head, n_layers, pad_idx)
        self.head = nn.Linear(d_model, num_classes)

    def make_src_mask(self, src):
        keep = src != self.pad_idx
        key_mask = keep.unsqueeze(1).unsqueeze(2)    # [batch, 1, 1, src_len]
        query_mask = keep.unsqueeze(1).unsqueeze(3)  # [batch, 1, src_len, 1]
        return key_mask & query_mask

    def forward(self, src):
        src_mask = self.make_src_mask(src)
        enc = self.encoder(src, src_mask)
        keep = (src != self.pad_idx).unsqueeze(-1).float()
        pooled = (enc * keep).sum(dim=1) / keep.sum(dim=1)
        return self.head(pooled)
