"""Score single molecules with a trained GINE regressor (one graph per call)."""
import sys

import torch
from torch_geometric.datasets import ZINC

from model import GINERegressor


@torch.no_grad()
def predict_one(model, data):
    out = model(data.x, data.edge_index, data.edge_attr)
    return out.item()


def main():
    model = GINERegressor()
    model.load_state_dict(torch.load("gine_zinc_best.pt", map_location="cpu"))
    model.eval()
    test_ds = ZINC("data/ZINC", subset=True, split="test")
    indices = [int(i) for i in sys.argv[1:]] or list(range(10))
    for i in indices:
        data = test_ds[i]
        print(f"molecule {i}: predicted {predict_one(model, data):.3f} target {data.y.item():.3f}")


if __name__ == "__main__":
    main()
