import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from losses import SupConLoss
from models import ContrastiveModel

CONFIG = {"num_classes": 5, "batch_size": 32, "epochs": 3, "lr": 3e-3, "temperature": 0.1,
          "alpha": 0.5}


def make_logmels(n=320, n_mels=24, frames=16, num_classes=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, num_classes, (n,), generator=g)
    x = torch.randn(n, 1, n_mels, frames, generator=g)
    for i in range(n):
        band = 3 + 4 * labels[i]
        x[i, 0, band:band + 3, :] += 2.5
    return TensorDataset(x, labels)


def augment(x):
    shift = int(torch.randint(-3, 4, (1,)))
    x = torch.roll(x, shifts=shift, dims=3)
    f0 = int(torch.randint(0, x.shape[2] - 3, (1,)))
    x = x.clone()
    x[:, :, f0:f0 + 2, :] = 0
    return x + 0.1 * torch.randn_like(x)


def main():
    torch.manual_seed(0)
    cfg = CONFIG
    loader = DataLoader(make_logmels(num_classes=cfg["num_classes"]), batch_size=cfg["batch_size"],
                        shuffle=True, drop_last=True)
    model = ContrastiveModel(cfg["num_classes"])
    criterion = SupConLoss(cfg["temperature"])
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])

    step = 0
    for epoch in range(cfg["epochs"]):
        model.train()
        for x, y in loader:
            x1, x2 = augment(x), augment(x)
            proj1, pred1 = model(x1)
            proj2, _ = model(x2)
            features = torch.stack([proj1, proj2], dim=1)
            loss_con = criterion(features, y)
            loss_ce = F.cross_entropy(pred1, y)
            loss = cfg["alpha"] * loss_con + (1 - cfg["alpha"]) * loss_ce
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if step % 10 == 0:
                acc = (pred1.argmax(1) == y).float().mean().item()
                print(f"epoch {epoch} step {step} supcon {loss_con.item():.4f} ce {loss_ce.item():.4f} acc {acc:.3f}")
            step += 1


if __name__ == "__main__":
    main()
