import torch
from torch import nn


class HRED(nn.Module):
    def __init__(self, vocab_size, emb_dim, hid_dim, dropout=0.3):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, emb_dim)
        self.utt_enc = nn.GRU(emb_dim, hid_dim, batch_first=True)
        self.ctx_enc = nn.GRU(hid_dim, hid_dim, batch_first=True)
        self.img_proj = nn.Linear(4096, hid_dim)
        self.dropout = nn.Dropout(dropout)
        self.decoder = nn.GRU(emb_dim, hid_dim, batch_first=True)
        self.out = nn.Linear(hid_dim, vocab_size)

    def forward(self, context, image_feats, response_in):
        b, n_utt, n_tok = context.shape
        _, h = self.utt_enc(self.dropout(self.embed(context.view(b * n_utt, n_tok))))
        utt = h[-1].view(b, n_utt, -1) + self.img_proj(image_feats)
        _, ctx = self.ctx_enc(self.dropout(utt))
        dec, _ = self.decoder(self.dropout(self.embed(response_in)), ctx)
        return self.out(self.dropout(dec))
