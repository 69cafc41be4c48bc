import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from utils import load_dynamic_graphs, sparse_adj_list


class GraphGRUCell(nn.Module):
    def __init__(self, in_dim, h_dim):
        super().__init__()
        self.lin_x = nn.Linear(in_dim, 3 * h_dim)
        self.lin_h = nn.Linear(h_dim, 3 * h_dim)

    def forward(self, x, adj, h):
        gx = torch.sparse.mm(adj, self.lin_x(x))
        gh = torch.sparse.mm(adj, self.lin_h(h))
        rx, zx, nx = gx.chunk(3, dim=-1)
        rh, zh, nh = gh.chunk(3, dim=-1)
        r = torch.sigmoid(rx + rh)
        z = torch.sigmoid(zx + zh)
        n = torch.tanh(nx + r * nh)
        return (1 - z) * n + z * h


class VGRNN(nn.Module):
    def __init__(self, x_dim, h_dim, z_dim):
        super().__init__()
        self.h_dim = h_dim
        self.enc = nn.Linear(x_dim + h_dim, 2 * z_dim)
        self.prior = nn.Linear(h_dim, 2 * z_dim)
        self.rnn = GraphGRUCell(x_dim + z_dim, h_dim)

    def forward(self, xs, adjs, edge_targets):
        h = torch.zeros(xs[0].shape[0], self.h_dim)
        kld, nll = 0.0, 0.0
        for x, adj, target in zip(xs, adjs, edge_targets):
            mu, logvar = self.enc(torch.cat([x, h], -1)).chunk(2, -1)
            p_mu, p_logvar = self.prior(h).chunk(2, -1)
            z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
            logits = z @ z.t()
            nll = nll + F.binary_cross_entropy_with_logits(logits, target)
            kld = kld + 0.5 * torch.mean(p_logvar - logvar + (logvar.exp() + (mu - p_mu) ** 2) / p_logvar.exp() - 1)
            h = self.rnn(torch.cat([x, z], -1), adj, h)
        return kld, nll


parser = argparse.ArgumentParser()
parser.add_argument("--dataset", default="enron10")
parser.add_argument("--h_dim", type=int, default=32)
parser.add_argument("--z_dim", type=int, default=16)
parser.add_argument("--lr", type=float, default=1e-2)
parser.add_argument("--clip", type=float, default=10.0)
parser.add_argument("--epochs", type=int, default=1000)
args = parser.parse_args()

seed = 123
np.random.seed(seed)
torch.manual_seed(seed)

features, adj_time_list, edge_targets = load_dynamic_graphs(args.dataset)
adjs = sparse_adj_list(adj_time_list)

model = VGRNN(features[0].shape[1], args.h_dim, args.z_dim)
for p in model.parameters():
    p.register_hook(lambda g: g.clamp(-args.clip, args.clip))
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)

for k in range(args.epochs):
    optimizer.zero_grad()
    kld_loss, nll_loss = model(features, adjs, edge_targets)
    loss = kld_loss + nll_loss
    loss.backward()
    optimizer.step()

    if k % 50 == 0:
        print("epoch: ", k, "| kld_loss: {:.4f}".format(kld_loss.item()), "| nll_loss: {:.4f}".format(nll_loss.item()),
              "| loss: {:.4f}".format(loss.item()))
