import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from solver import Solver


def task_net(n_in, n_cls):
    return nn.Sequential(
        nn.Linear(n_in, 128), nn.BatchNorm1d(128), nn.ReLU(),
        nn.Linear(128, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(0.3),
        nn.Linear(128, n_cls),
    )


def make_set(n_per_class, centers, gen):
    xs, ys = [], []
    for c, mu in enumerate(centers):
        xs.append(mu + 0.7 * torch.randn(n_per_class, mu.numel(), generator=gen))
        ys.append(torch.full((n_per_class,), c))
    return TensorDataset(torch.cat(xs), torch.cat(ys))


if __name__ == "__main__":
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    centers = torch.randn(4, 16, generator=gen)
    train_set = make_set(250, centers, gen)
    test_set = make_set(200, centers, gen)
    args = {"epochs": 5, "lr": 1e-3}
    solver = Solver(args)
    model = task_net(16, 4)
    opt = torch.optim.Adam(model.parameters(), lr=args["lr"])
    model = solver.train(model, DataLoader(train_set, batch_size=32, shuffle=True), opt)
    acc = solver.test(model, DataLoader(test_set, batch_size=50))
    print(f"final test accuracy: {acc:.1f}%")
