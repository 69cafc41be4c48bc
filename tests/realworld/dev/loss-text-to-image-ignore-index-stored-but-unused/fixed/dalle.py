import torch
import torch.nn as nn
import torch.nn.functional as F
from einops import rearrange


class DALLE(nn.Module):
    def __init__(self, *, dim, vae, num_text_tokens=10000, text_seq_len=256, depth=12, heads=8, ignore_index=0):
        super().__init__()
        self.vae = vae
        for p in self.vae.parameters():
            p.requires_grad = False
        self.num_image_tokens = vae.num_tokens
        self.num_text_tokens = num_text_tokens
        self.text_seq_len = text_seq_len
        self.image_seq_len = vae.fmap_size ** 2
        total_tokens = num_text_tokens + self.num_image_tokens
        self.text_emb = nn.Embedding(num_text_tokens, dim)
        self.image_emb = nn.Embedding(self.num_image_tokens, dim)
        self.pos_emb = nn.Embedding(text_seq_len + self.image_seq_len, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, 4 * dim, batch_first=True, norm_first=True)
        self.transformer = nn.TransformerEncoder(layer, depth)
        self.to_logits = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, total_tokens))
        self.ignore_index = ignore_index

    def forward(self, text, image, return_loss=False):
        with torch.no_grad():
            image_codes = self.vae.get_codebook_indices(image)
        tokens = torch.cat([self.text_emb(text), self.image_emb(image_codes)], dim=1)
        n = tokens.shape[1]
        tokens = tokens + self.pos_emb(torch.arange(n, device=tokens.device))
        causal = torch.triu(torch.full((n, n), float("-inf"), device=tokens.device), diagonal=1)
        logits = self.to_logits(self.transformer(tokens, mask=causal))
        if not return_loss:
            return logits
        offset_codes = image_codes + self.num_text_tokens
        labels = torch.cat([text[:, 1:], offset_codes], dim=1)
        return F.cross_entropy(rearrange(logits[:, :-1], "b n c -> b c n"), labels, ignore_index=self.ignore_index)


def train(dalle, loader, opt, epochs, device):
    dalle.train()
    for epoch in range(epochs):
        for i, (text, images) in enumerate(loader):
            loss = dalle(text.to(device), images.to(device), return_loss=True)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(dalle.parameters(), 0.5)
            opt.step()
            if i % 100 == 0:
                print(epoch, i, loss.item())
