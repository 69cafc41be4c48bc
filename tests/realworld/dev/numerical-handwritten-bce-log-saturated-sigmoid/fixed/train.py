import torch
import torch.nn as nn

CONFIG = {"n": 1024, "dim": 16, "lr": 0.2, "epochs": 40, "batch_size": 128}


class Scorer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc1 = nn.Linear(dim, 64)
        self.fc2 = nn.Linear(64, 1)

    def forward(self, x):
        return torch.sigmoid(self.fc2(torch.relu(self.fc1(x)))).squeeze(1)


def binary_loss(y_pred, y_true):
    y_pred = y_pred.clamp(1e-7, 1 - 1e-7)
    loss = y_true * torch.log(y_pred) + (1 - y_true) * torch.log(1 - y_pred)
    return -loss.mean()


def run(cfg):
    torch.manual_seed(0)
    w = torch.randn(cfg["dim"])
    x = torch.randn(cfg["n"], cfg["dim"]) * 3
    y = (x @ w > 0).float()
    scorer = Scorer(cfg["dim"])
    opt = torch.optim.SGD(scorer.parameters(), lr=cfg["lr"], momentum=0.9)
    for epoch in range(cfg["epochs"]):
        perm = torch.randperm(cfg["n"])
        for s in range(0, cfg["n"], cfg["batch_size"]):
            idx = perm[s:s + cfg["batch_size"]]
            loss = binary_loss(scorer(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        if epoch % 10 == 0 or epoch == cfg["epochs"] - 1:
            with torch.no_grad():
                acc = ((scorer(x) > 0.5).float() == y).float().mean().item()
            print(f"epoch {epoch:2d}  loss {loss.item():.4f}  acc {acc:.3f}")


if __name__ == "__main__":
    run(CONFIG)
