import torch
from torch import nn


class SmilesVAE(nn.Module):
    def __init__(self, vocab_size, pad_idx, emb_dim=128, hidden=512, latent=64):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, emb_dim, padding_idx=pad_idx)
        self.encoder = nn.GRU(emb_dim, hidden, batch_first=True, bidirectional=True)
        self.to_mu = nn.Linear(2 * hidden, latent)
        self.to_logvar = nn.Linear(2 * hidden, latent)
        self.latent_to_hidden = nn.Linear(latent, hidden)
        self.decoder = nn.GRU(emb_dim + latent, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab_size)

    def encode(self, tokens):
        _, h = self.encoder(self.embed(tokens))
        h = torch.cat([h[0], h[1]], dim=-1)
        return self.to_mu(h), self.to_logvar(h)

    def decode(self, z, tokens_in):
        emb = self.embed(tokens_in)
        z_rep = z.unsqueeze(1).expand(-1, emb.size(1), -1)
        h0 = torch.tanh(self.latent_to_hidden(z)).unsqueeze(0)
        out, _ = self.decoder(torch.cat([emb, z_rep], dim=-1), h0)
        return self.out(out)

    def forward(self, tokens):
        mu, logvar = self.encode(tokens)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        logits = self.decode(z, tokens[:, :-1])
        return logits, mu, logvar
