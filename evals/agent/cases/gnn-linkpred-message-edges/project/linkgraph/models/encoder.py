import torch.nn as nn
import torch.nn.functional as F

from ..registry import ENCODERS
from .layers import GCNLayer, SAGELayer, mean_adjacency, normalized_adjacency


class _StackedEncoder(nn.Module):
    layer_cls = None

    def __init__(self, in_dim, hidden, out_dim, num_layers=2, dropout=0.3):
        super().__init__()
        dims = [in_dim] + [hidden] * (num_layers - 1) + [out_dim]
        self.layers = nn.ModuleList(self.layer_cls(a, b) for a, b in zip(dims[:-1], dims[1:]))
        self.dropout = dropout

    def adjacency(self, edge_index, num_nodes):
        raise NotImplementedError

    def forward(self, x, adj):
        for i, layer in enumerate(self.layers):
            x = F.dropout(x, self.dropout, self.training)
            x = layer(x, adj)
            if i < len(self.layers) - 1:
                x = F.relu(x)
        return x


@ENCODERS.register("gcn")
class GCNEncoder(_StackedEncoder):
    layer_cls = GCNLayer

    def adjacency(self, edge_index, num_nodes):
        return normalized_adjacency(edge_index, num_nodes, self_loops=True)


@ENCODERS.register("sage")
class SAGEEncoder(_StackedEncoder):
    layer_cls = SAGELayer

    def adjacency(self, edge_index, num_nodes):
        return mean_adjacency(edge_index, num_nodes)
