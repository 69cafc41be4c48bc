import numpy as np
import torch
import torch.nn.functional as F

from losses import AngularSupConLoss
from model import Embedder

N_CLASSES = 8
IN_DIM = 16


def make_clusters(n, seed):
    rng = np.random.default_rng(seed)
    centers = np.random.default_rng(42).normal(0, 1.0, size=(N_CLASSES, IN_DIM))
    labels = rng.integers(0, N_CLASSES, size=n)
    x = centers[labels] + rng.normal(0, 0.8, size=(n, IN_DIM))
    return torch.tensor(x, dtype=torch.float32), torch.tensor(labels)


@torch.no_grad()
def centroid_accuracy(model, x_tr, y_tr, x_va, y_va):
    z_tr = F.normalize(model(x_tr), dim=1)
    z_va = F.normalize(model(x_va), dim=1)
    centroids = torch.stack([z_tr[y_tr == c].mean(0) for c in range(N_CLASSES)])
    pred = (z_va @ F.normalize(centroids, dim=1).t()).argmax(1)
    return (pred == y_va).float().mean().item()


def main():
    torch.manual_seed(0)
    x_tr, y_tr = make_clusters(4000, seed=0)
    x_va, y_va = make_clusters(1000, seed=1)
    model = Embedder(IN_DIM)
    criterion = AngularSupConLoss(scale=16.0, margin=0.2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

    for step in range(1, 301):
        idx = torch.randint(0, len(x_tr), (128,))
        loss = criterion(model(x_tr[idx]), y_tr[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step == 1 or step % 50 == 0:
            acc = centroid_accuracy(model, x_tr, y_tr, x_va, y_va)
            print(f"step {step:3d} loss {loss.item():.4f} val_centroid_acc {acc:.3f}")


if __name__ == "__main__":
    main()
