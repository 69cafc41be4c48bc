"""Multi-task training driver (QM9-style targets replaced by synthetic ones)."""
import argparse

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from model import SharedTrunkNet
from weight_methods import build_weight_method


def synthetic_tasks(n, in_dim, n_tasks, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, in_dim, generator=g)
    proj = torch.randn(in_dim, n_tasks, generator=g)
    scales = torch.logspace(-1, 2, n_tasks)
    y = torch.tanh(x @ proj) * scales + 0.05 * torch.randn(n, n_tasks, generator=g)
    return TensorDataset(x, y)


def compute_losses(preds, targets):
    return torch.stack([F.l1_loss(p, targets[:, i]) for i, p in enumerate(preds)])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--method", default="famo")
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--max-norm", type=float, default=1.0)
    parser.add_argument("--n-tasks", type=int, default=4)
    args = parser.parse_args()

    device = torch.device("cpu")
    loader = DataLoader(synthetic_tasks(2048, 16, args.n_tasks), batch_size=64, shuffle=True)
    model = SharedTrunkNet(16, args.n_tasks).to(device)
    weight_method = build_weight_method(args.method, args.n_tasks, device, max_norm=args.max_norm)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    for epoch in range(args.epochs):
        epoch_losses = torch.zeros(args.n_tasks)
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            losses = compute_losses(model(x), y)
            weight_method.backward(losses, shared_parameters=model.shared_parameters())
            optimizer.step()
            with torch.no_grad():
                new_losses = compute_losses(model(x), y)
            weight_method.update(new_losses)
            epoch_losses += losses.detach()
        print(f"epoch {epoch}: per-task L1 {(epoch_losses / len(loader)).tolist()}")


if __name__ == "__main__":
    main()
