import torch.nn.functional as F
from torch import nn
from torch_geometric.nn import GATv2Conv


class CellTypeGAT(nn.Module):
    def __init__(self, in_dim, hidden, n_classes, heads=4, dropout=0.3):
        super().__init__()
        self.conv1 = GATv2Conv(in_dim, hidden, heads=heads, dropout=dropout)
        self.conv2 = GATv2Conv(hidden * heads, hidden, heads=heads, dropout=dropout)
        self.lin = nn.Linear(hidden * heads, n_classes)
        self.dropout = dropout

    def forward(self, x, edge_index):
        x = F.dropout(x, p=self.dropout, training=self.training)
        x = F.elu(self.conv1(x, edge_index))
        x = F.dropout(x, p=self.dropout, training=self.training)
        x = F.elu(self.conv2(x, edge_index))
        return self.lin(x)
