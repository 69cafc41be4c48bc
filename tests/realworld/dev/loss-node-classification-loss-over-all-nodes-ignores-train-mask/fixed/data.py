"""Build a cell-neighbourhood graph from spatial transcriptomics and split its nodes."""
import numpy as np
import torch
from torch_geometric.data import Data
from torch_geometric.nn import knn_graph
import torch_geometric.transforms as T


def load_spatial_graph(npz_path, k=10, num_val=0.1, num_test=0.2, seed=0):
    raw = np.load(npz_path)
    x = torch.from_numpy(raw["expression"]).float()
    pos = torch.from_numpy(raw["coords"]).float()
    y = torch.from_numpy(raw["cell_type"]).long()

    x = torch.log1p(x)
    x = (x - x.mean(0)) / (x.std(0) + 1e-6)

    edge_index = knn_graph(pos, k=k, loop=False)
    data = Data(x=x, y=y, pos=pos, edge_index=edge_index)
    data = T.ToUndirected()(data)
    torch.manual_seed(seed)
    data = T.RandomNodeSplit(split="train_rest", num_val=num_val, num_test=num_test)(data)
    return data
