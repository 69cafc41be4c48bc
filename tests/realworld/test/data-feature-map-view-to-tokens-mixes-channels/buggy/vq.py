import torch
import torch.nn as nn
import torch.nn.functional as F


class VectorQuantizer(nn.Module):
    def __init__(self, dim, codebook_size, beta=0.25):
        super().__init__()
        self.codebook = nn.Embedding(codebook_size, dim)
        self.codebook.weight.data.uniform_(-1 / codebook_size, 1 / codebook_size)
        self.beta = beta

    def forward(self, z):
        d = (z.pow(2).sum(-1, keepdim=True) - 2 * z @ self.codebook.weight.t()
             + self.codebook.weight.pow(2).sum(-1))
        idx = d.argmin(-1)
        q = self.codebook(idx)
        loss = F.mse_loss(q, z.detach()) + self.beta * F.mse_loss(z, q.detach())
        return z + (q - z).detach(), idx, loss
