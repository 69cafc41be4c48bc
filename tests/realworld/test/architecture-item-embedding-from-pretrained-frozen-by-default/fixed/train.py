import torch
import torch.nn.functional as F

from config import CONFIG
from data import make_interactions
from model import FactorizationModel


def evaluate(model, loader):
    model.eval()
    se, n = 0.0, 0
    with torch.no_grad():
        for u, i, t, r in loader:
            se += F.mse_loss(model(u, i, t), r, reduction="sum").item()
            n += r.numel()
    model.train()
    return (se / n) ** 0.5


def main(cfg=CONFIG):
    torch.manual_seed(cfg["seed"])
    train_loader, test_loader = make_interactions(cfg)
    model = FactorizationModel(cfg)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    for epoch in range(cfg["epochs"]):
        for u, i, t, r in train_loader:
            optimizer.zero_grad()
            loss = F.mse_loss(model(u, i, t), r)
            loss.backward()
            optimizer.step()
        if epoch % 10 == 9:
            print(f"epoch {epoch + 1}: train mse {loss.item():.4f} test rmse {evaluate(model, test_loader):.4f}")


if __name__ == "__main__":
    main()
