import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from data import InitialConditionSet
from model import PINN


class InitialCondition:
    def __init__(self, dataset, batch_size, weight=1.0):
        self.loader = DataLoader(dataset, batch_size=batch_size, shuffle=True)
        self.weight = weight
        self.norm = nn.MSELoss()

    def __call__(self, solver, x, u):
        prediction = solver(x)
        return self.weight * self.norm(prediction, u)


def fit(solver, condition, optimizer, epochs):
    for ep in range(epochs):
        running, n = 0.0, 0
        for x, u in condition.loader:
            optimizer.zero_grad()
            loss = condition(solver, x, u)
            loss.backward()
            optimizer.step()
            running += loss.item()
            n += 1
        if ep % 10 == 0 or ep == epochs - 1:
            print(f"epoch {ep:3d}  ic loss {running / n:.5f}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2048)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--lr", type=float, default=3e-3)
    args = ap.parse_args()
    torch.manual_seed(0)
    solver = PINN()
    condition = InitialCondition(InitialConditionSet(args.n), args.batch)
    optimizer = torch.optim.Adam(solver.parameters(), lr=args.lr)
    fit(solver, condition, optimizer, args.epochs)
