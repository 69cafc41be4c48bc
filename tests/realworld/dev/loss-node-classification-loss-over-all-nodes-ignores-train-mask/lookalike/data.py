"""Build one cell-neighbourhood graph per tissue slice; slices are split between train/val/test."""
import numpy as np
import torch
from torch_geometric.data import Data
from torch_geometric.nn import knn_graph
import torch_geometric.transforms as T


def load_slice_graph(npz_path, k=10):
    raw = np.load(npz_path)
    x = torch.from_numpy(raw["expression"]).float()
    pos = torch.from_numpy(raw["coords"]).float()
    y = torch.from_numpy(raw["cell_type"]).long()

    x = torch.log1p(x)
    x = (x - x.mean(0)) / (x.std(0) + 1e-6)

    edge_index = knn_graph(pos, k=k, loop=False)
    return T.ToUndirected()(Data(x=x, y=y, pos=pos, edge_index=edge_index))


def load_slices(paths, k=10):
    return [load_slice_graph(p, k=k) for p in paths]
