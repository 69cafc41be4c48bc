import torch
from torch import nn
import torch.nn.functional as F


class LightGCN(nn.Module):
    """Embedding propagation over the normalised interaction graph; the final
    representation is the mean of the layer outputs."""

    def __init__(self, n_users, n_items, norm_adj, emb_size=32, n_layers=2, decay=1e-4):
        super().__init__()
        self.n_users, self.n_items = n_users, n_items
        self.norm_adj = norm_adj
        self.n_layers, self.decay = n_layers, decay
        self.user_emb = nn.Embedding(n_users, emb_size)
        self.item_emb = nn.Embedding(n_items, emb_size)
        nn.init.normal_(self.user_emb.weight, std=0.1)
        nn.init.normal_(self.item_emb.weight, std=0.1)

    def propagate(self):
        ego = torch.cat([self.user_emb.weight, self.item_emb.weight], dim=0)
        layers = [ego]
        for _ in range(self.n_layers):
            ego = torch.sparse.mm(self.norm_adj, ego)
            layers.append(ego)
        out = torch.stack(layers, dim=0).mean(dim=0)
        return out[: self.n_users], out[self.n_users:]

    def bpr_loss(self, users, pos, neg):
        u_all, i_all = self.propagate()
        u, p, n = u_all[users], i_all[pos], i_all[neg]
        mf = -F.logsigmoid((u * p).sum(-1) - (u * n).sum(-1)).mean()
        reg = (self.user_emb(users).pow(2).sum() + self.item_emb(pos).pow(2).sum()
               + self.item_emb(neg).pow(2).sum()) / (2 * len(users))
        return mf + self.decay * reg

    @torch.no_grad()
    def rating(self, users):
        u_all, i_all = self.propagate()
        return u_all[users] @ i_all.t()
