"""Graph convolution layers on a sparse adjacency built once per edge set."""
import torch
import torch.nn as nn


def normalized_adjacency(edge_index: torch.Tensor, num_nodes: int, self_loops: bool = True):
    """Symmetric GCN normalisation D^-1/2 (A + I) D^-1/2 as a sparse COO matrix."""
    if self_loops:
        loops = torch.arange(num_nodes).repeat(2, 1)
        edge_index = torch.cat([edge_index, loops], dim=1)
    values = torch.ones(edge_index.shape[1])
    deg = torch.zeros(num_nodes).scatter_add_(0, edge_index[0], values)
    inv_sqrt = deg.clamp(min=1.0).pow(-0.5)
    values = inv_sqrt[edge_index[0]] * values * inv_sqrt[edge_index[1]]
    return torch.sparse_coo_tensor(edge_index, values, (num_nodes, num_nodes),
                                   check_invariants=False).coalesce()


def mean_adjacency(edge_index: torch.Tensor, num_nodes: int):
    """Row-normalised adjacency (mean over neighbours), no self loops."""
    values = torch.ones(edge_index.shape[1])
    deg = torch.zeros(num_nodes).scatter_add_(0, edge_index[0], values)
    values = values / deg.clamp(min=1.0)[edge_index[0]]
    return torch.sparse_coo_tensor(edge_index, values, (num_nodes, num_nodes),
                                   check_invariants=False).coalesce()


class GCNLayer(nn.Module):
    def __init__(self, in_dim: int, out_dim: int):
        super().__init__()
        self.lin = nn.Linear(in_dim, out_dim, bias=False)
        self.bias = nn.Parameter(torch.zeros(out_dim))

    def forward(self, x, adj):
        return torch.sparse.mm(adj, self.lin(x)) + self.bias


class SAGELayer(nn.Module):
    def __init__(self, in_dim: int, out_dim: int):
        super().__init__()
        self.lin_self = nn.Linear(in_dim, out_dim)
        self.lin_neigh = nn.Linear(in_dim, out_dim, bias=False)

    def forward(self, x, adj):
        return self.lin_self(x) + self.lin_neigh(torch.sparse.mm(adj, x))
