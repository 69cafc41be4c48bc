import torch
import torch.nn as nn

from layers import EncoderLayer


class TextEncoder(nn.Module):
    def __init__(self, vocab, d_model=512, n_layers=6, n_classes=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, d_model, padding_idx=0)
        self.layers = nn.ModuleList([EncoderLayer(d_model) for _ in range(n_layers)])
        self.cls = nn.Linear(d_model, n_classes)

    def forward(self, ids, pad_mask):
        x = self.emb(ids)
        for layer in self.layers:
            x = layer(x, pad_mask)
        return self.cls(x[:, 0])


def train(encoder, loader, epochs=3, lr=1e-4):
    encoder = encoder.cuda().half()
    opt = torch.optim.Adam(encoder.parameters(), lr=lr, eps=1e-4)
    for epoch in range(epochs):
        for ids, pad_mask, y in loader:
            ids, pad_mask, y = ids.cuda(), pad_mask.cuda(), y.cuda()
            logits = encoder(ids, pad_mask)
            loss = nn.functional.cross_entropy(logits.float(), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(epoch, loss.item())
