import torch
from torch import nn
from torch_geometric.nn import GINEConv, global_add_pool


def mlp(dim_in, dim_out):
    return nn.Sequential(nn.Linear(dim_in, dim_out), nn.BatchNorm1d(dim_out), nn.ReLU(), nn.Linear(dim_out, dim_out))


class GINERegressor(nn.Module):
    """Molecular property regressor: GINE message passing + sum readout."""

    def __init__(self, num_atom_types=28, num_bond_types=4, hidden=128, num_layers=4):
        super().__init__()
        self.atom_emb = nn.Embedding(num_atom_types, hidden)
        self.bond_emb = nn.Embedding(num_bond_types, hidden)
        self.convs = nn.ModuleList([GINEConv(mlp(hidden, hidden), train_eps=True) for _ in range(num_layers)])
        self.norms = nn.ModuleList([nn.BatchNorm1d(hidden) for _ in range(num_layers)])
        self.head = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, x, edge_index, edge_attr, batch=None):
        h = self.atom_emb(x.squeeze(-1))
        e = self.bond_emb(edge_attr)
        for conv, norm in zip(self.convs, self.norms):
            h = h + torch.relu(norm(conv(h, edge_index, e)))
        g = global_add_pool(h, batch)
        return self.head(g)
